#include "gfx/heatmap.h"

#include <cstdint>

#include "gfx/gl_program.h"

namespace attnlab::gfx {

HeatmapRenderer& Renderer() {
  static HeatmapRenderer renderer;
  return renderer;
}

namespace {

// Row-major (rows, cols) is exactly a (cols wide, rows high) R32F texture: no copy, no transpose.
void UploadFloatTexture(GLuint* texture, const attn::Matrix& m) {
  if (!*texture) {
    glGenTextures(1, texture);
    glBindTexture(GL_TEXTURE_2D, *texture);
    // Float textures are not filterable in WebGL2; the shader uses texelFetch anyway.
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  }
  glBindTexture(GL_TEXTURE_2D, *texture);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_R32F, static_cast<GLsizei>(m.cols()), static_cast<GLsizei>(m.rows()), 0, GL_RED,
               GL_FLOAT, m.data());
}

}  // namespace

Heatmap::~Heatmap() {
  if (texture_) glDeleteTextures(1, &texture_);
  if (mask_texture_) glDeleteTextures(1, &mask_texture_);
}

void Heatmap::Upload(const attn::Matrix& m, const attn::Matrix* mask) {
  rows_ = static_cast<int>(m.rows());
  cols_ = static_cast<int>(m.cols());
  UploadFloatTexture(&texture_, m);
  has_mask_ = mask && mask->rows() == m.rows() && mask->cols() == m.cols();
  if (has_mask_) UploadFloatTexture(&mask_texture_, *mask);
}

void Heatmap::Draw(ImDrawList* list, ImVec2 p0, ImVec2 p1, const HeatmapStyle& style) {
  if (!texture_ || rows_ == 0 || cols_ == 0) return;
  HeatmapRenderer& r = Renderer();
  r.pending_.push_back({this, ImVec4(p0.x, p0.y, p1.x, p1.y), style});
  // The index, not a pointer: pending_ may grow (and move) before ImGui renders.
  list->AddCallback(&HeatmapRenderer::DrawCallback, reinterpret_cast<void*>(static_cast<intptr_t>(r.pending_.size())));
  list->AddCallback(ImDrawCallback_ResetRenderState, nullptr);
}

bool HeatmapRenderer::Init(std::string* error) {
  program_ = BuildProgram("heatmap.vert", "heatmap.frag", error);
  if (!program_) return false;
  u_rect_ = glGetUniformLocation(program_, "u_rect");
  u_display_ = glGetUniformLocation(program_, "u_display");
  u_range_ = glGetUniformLocation(program_, "u_range");
  u_colormap_ = glGetUniformLocation(program_, "u_colormap");
  u_gap_ = glGetUniformLocation(program_, "u_gap");
  u_gap_color_ = glGetUniformLocation(program_, "u_gap_color");
  u_values_ = glGetUniformLocation(program_, "u_values");
  u_mask_ = glGetUniformLocation(program_, "u_mask");
  u_has_mask_ = glGetUniformLocation(program_, "u_has_mask");
  const float unit_quad[] = {0, 0, 1, 0, 0, 1, 1, 1};  // triangle strip
  glGenVertexArrays(1, &vao_);
  glGenBuffers(1, &vbo_);
  glBindVertexArray(vao_);
  glBindBuffer(GL_ARRAY_BUFFER, vbo_);
  glBufferData(GL_ARRAY_BUFFER, sizeof(unit_quad), unit_quad, GL_STATIC_DRAW);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
  glBindVertexArray(0);
  return true;
}

void HeatmapRenderer::BeginFrame() { pending_.clear(); }

void HeatmapRenderer::Shutdown() {
  if (program_) glDeleteProgram(program_);
  if (vbo_) glDeleteBuffers(1, &vbo_);
  if (vao_) glDeleteVertexArrays(1, &vao_);
  program_ = vao_ = vbo_ = 0;
}

void HeatmapRenderer::DrawCallback(const ImDrawList*, const ImDrawCmd* cmd) {
  HeatmapRenderer& r = Renderer();
  const size_t index = static_cast<size_t>(reinterpret_cast<intptr_t>(cmd->UserCallbackData)) - 1;
  if (index >= r.pending_.size() || !r.program_) return;
  const Heatmap::Pending& p = r.pending_[index];
  const ImDrawData* draw_data = ImGui::GetDrawData();
  const ImVec2 pos = draw_data->DisplayPos, size = draw_data->DisplaySize,
               scale = draw_data->FramebufferScale;
  // Clip like ImGui does: scissor in framebuffer pixels, origin bottom-left.
  const ImVec4 clip = cmd->ClipRect;
  const float fb_height = size.y * scale.y;
  glEnable(GL_SCISSOR_TEST);
  glScissor(static_cast<GLint>((clip.x - pos.x) * scale.x), static_cast<GLint>(fb_height - (clip.w - pos.y) * scale.y),
            static_cast<GLsizei>((clip.z - clip.x) * scale.x), static_cast<GLsizei>((clip.w - clip.y) * scale.y));
  glDisable(GL_BLEND);
  glUseProgram(r.program_);
  glUniform4f(r.u_rect_, p.rect.x, p.rect.y, p.rect.z, p.rect.w);
  glUniform4f(r.u_display_, pos.x, pos.y, size.x, size.y);
  glUniform2f(r.u_range_, p.style.vmin, p.style.vmax);
  glUniform1i(r.u_colormap_, static_cast<int>(p.style.colormap));
  glUniform1f(r.u_gap_, p.style.gap);
  const ImVec4 bg = ImGui::GetStyleColorVec4(ImGuiCol_WindowBg);
  glUniform4f(r.u_gap_color_, bg.x, bg.y, bg.z, 1.0f);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, p.owner->texture_);
  glUniform1i(r.u_values_, 0);
  // Without a mask, unit 1 gets the values again so the sampler never points at nothing.
  glActiveTexture(GL_TEXTURE1);
  glBindTexture(GL_TEXTURE_2D, p.owner->has_mask_ ? p.owner->mask_texture_ : p.owner->texture_);
  glUniform1i(r.u_mask_, 1);
  glUniform1i(r.u_has_mask_, p.owner->has_mask_ ? 1 : 0);
  glActiveTexture(GL_TEXTURE0);
  glBindVertexArray(r.vao_);
  glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
  glBindVertexArray(0);
}

}  // namespace attnlab::gfx
