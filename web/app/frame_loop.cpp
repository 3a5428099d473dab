// Frame loop: platform events -> ImGui -> app -> WebGL2. Draws only when something changed.
#include "frame_loop.h"

#include <emscripten.h>
#include <emscripten/html5.h>
#include <GLES3/gl3.h>

#include <algorithm>
#include <cstdlib>
#include <cmath>
#include <iterator>
#include <cstring>
#include <vector>

#include "app.h"
#include "gfx/heatmap.h"
#include "gfx/heatmap_store.h"
#include "backends/imgui_impl_opengl3.h"
#include "imgui.h"
#include "imgui_internal.h"
#include "lm_client.h"
#include "offload.h"
#include "platform_html5.h"
#include "theme.h"
#include "widgets/export_menu.h"
#include "widgets/scroll_into_view.h"

namespace attnlab {
namespace {

bool g_started = false;
bool g_capture_view = false;  // the next frame saves the whole view as a PNG
bool g_running = false;  // the frame loop runs (paused while an embed is out of view)
EMSCRIPTEN_WEBGL_CONTEXT_HANDLE g_gl = 0;
double g_last_frame_ms = 0;  // CPU time of the last frame: engine re-runs, UI, GL submission
// Between webglcontextlost and webglcontextrestored nothing is drawn: every GL object is gone.
bool g_context_lost = false;
bool g_trap_next_frame = false;  // CrashForTesting("trap")
int g_frames_drawn = 0;

std::string g_font_ttf;   // the UI font's bytes, kept to rasterise it again at another UI scale
float g_ui_scale = 1.0f;  // the scale the font and the style are at (DisplayState::scale)
ImGuiStyle g_base_style;  // the sizes at scale 1 (colours come from the theme)

// `scale`: the lecture mode's UI scale; the font is rasterised at that size (crisp, not stretched).
void SetupFont(const std::string& ttf, float scale) {
  ImGuiIO& io = ImGui::GetIO();
  const float dpr = static_cast<float>(emscripten_get_device_pixel_ratio());
  io.Fonts->Clear();
  if (!ttf.empty()) {
    // Rasterise at device pixels and scale back, so text is crisp at devicePixelRatio 2.
    void* data = IM_ALLOC(ttf.size());
    std::memcpy(data, ttf.data(), ttf.size());
    ImFontConfig config;
    config.OversampleH = 1;
    // Latin-1, the Greek letters, the modifier letters the text uses (ᵀ ᵏ ᵒ ᵢ), general punctuation,
    // super- and subscript digits and signs, the subscript letters and maths symbols the text uses, ⱼ:
    // the font is subset to the same (web/CMakeLists.txt).
    static const ImWchar ranges[] = {0x0020, 0x00FF, 0x0391, 0x03A9, 0x03B1, 0x03C9, 0x1D40, 0x1D40, 0x1D4F, 0x1D4F,
                                     0x1D52, 0x1D52, 0x1D62, 0x1D62, 0x2010, 0x2027, 0x2070, 0x208E, 0x2095, 0x2096,
                                     0x209A, 0x209A, 0x209C, 0x209C, 0x2192, 0x2192,
                                     0x2202, 0x2202, 0x2212, 0x2212, 0x2218, 0x2218, 0x221A, 0x221A, 0x221D, 0x221E,
                                     0x2248, 0x2248, 0x2264, 0x2265, 0x22EF, 0x22EF, 0x230A, 0x230B, 0x2C7C, 0x2C7C, 0};
    io.Fonts->AddFontFromMemoryTTF(data, static_cast<int>(ttf.size()), std::round(15.0f * dpr * scale), &config, ranges);
    io.FontGlobalScale = 1.0f / dpr;
  } else {
    io.Fonts->AddFontDefault();
    io.FontGlobalScale = scale;
  }
}

// The lecture mode's UI scale, when the state changed it: the font again at the new size and
// ImGui's sizes scaled from the base style, the theme's colours kept. Between frames only.
void ApplyUiScale(float scale) {
  if (scale == g_ui_scale) return;
  g_ui_scale = scale;
  SetupFont(g_font_ttf, scale);
  ImGui_ImplOpenGL3_DestroyFontsTexture();
  ImGui_ImplOpenGL3_CreateFontsTexture();
  ImGuiStyle& style = ImGui::GetStyle();
  ImGuiStyle scaled = g_base_style;
  std::copy(std::begin(style.Colors), std::end(style.Colors), std::begin(scaled.Colors));
  scaled.ScaleAllSizes(scale);
  style = scaled;
}

// The frame's draw data once more, into an offscreen framebuffer: the part of the page `r` covers
// (CSS px) at `scale` pixels per CSS pixel. RGBA rows, top first; empty if GL refuses.
std::vector<uint8_t> RenderRegion(const LayoutRect& r, float scale, int* width, int* height) {
  GLint max_size = 0;
  glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &max_size);
  // Within GL's limit and 64 M pixels: a very tall view is saved at a lower scale, not refused.
  scale = std::min({scale, max_size / std::max(r.w, 1.0f), max_size / std::max(r.h, 1.0f),
                    std::sqrt(64e6f / std::max(r.w * r.h, 1.0f))});
  const int w = static_cast<int>(std::ceil(r.w * scale)), h = static_cast<int>(std::ceil(r.h * scale));
  if (w <= 0 || h <= 0) return {};
  GLuint fbo = 0, color = 0;
  glGenFramebuffers(1, &fbo);
  glGenRenderbuffers(1, &color);
  glBindRenderbuffer(GL_RENDERBUFFER, color);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, w, h);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color);
  std::vector<uint8_t> pixels;
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE) {
    const ImVec4 bg = ImGui::GetStyleColorVec4(ImGuiCol_WindowBg);
    glViewport(0, 0, w, h);
    glClearColor(bg.x, bg.y, bg.z, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    // The same draw lists seen through another window onto the page (the heatmaps read it too).
    ImDrawData* dd = ImGui::GetDrawData();
    const ImVec2 pos = dd->DisplayPos, size = dd->DisplaySize, fb_scale = dd->FramebufferScale;
    dd->DisplayPos = ImVec2(r.x, r.y);
    dd->DisplaySize = ImVec2(w / scale, h / scale);
    dd->FramebufferScale = ImVec2(scale, scale);
    ImGui_ImplOpenGL3_RenderDrawData(dd);
    dd->DisplayPos = pos;
    dd->DisplaySize = size;
    dd->FramebufferScale = fb_scale;
    pixels.resize(static_cast<size_t>(w) * h * 4);
    glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
    for (int y = 0; y < h / 2; ++y)  // GL's rows run bottom up
      std::swap_ranges(pixels.begin() + static_cast<size_t>(y) * w * 4, pixels.begin() + static_cast<size_t>(y + 1) * w * 4,
                       pixels.begin() + static_cast<size_t>(h - 1 - y) * w * 4);
  }
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glDeleteRenderbuffers(1, &color);
  glDeleteFramebuffers(1, &fbo);
  *width = w;
  *height = h;
  return pixels;
}

// What the menus asked for this frame: CSV to the page at once, PNGs rendered at 2×.
void ServeExports() {
  for (const ExportRequest& request : TakeExportRequests()) {
    if (request.kind == ExportRequest::Kind::kCsv) {
      platform::ExportText(request.name + ".csv", request.text);
      continue;
    }
    int w = 0, h = 0;
    const std::vector<uint8_t> pixels = RenderRegion(request.rect, 2.0f, &w, &h);
    if (!pixels.empty()) platform::ExportImage(request.name + ".png", w, h, pixels);
  }
}

void DrawFrame() {
  if (g_context_lost) return;  // drawn again once the context is back
  if (g_trap_next_frame) __builtin_trap();  // a wasm trap inside the frame loop, for the page's tests
  const double start = emscripten_get_now();
  platform::NewFrame();
  App& app = TheApp();
  // "Save view as PNG": one frame as tall as the page, scrolled to the top, so nothing is clipped;
  // it is rendered only into the picture, and the next frame puts the page back as it was.
  const bool capture = g_capture_view;
  g_capture_view = false;
  if (capture) {
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize.y = std::max(io.DisplaySize.y, app.extent().content_height);
    app.SetCapturing(true);
  }
  ApplyUiScale(app.state().display.scale);
  ImGui_ImplOpenGL3_NewFrame();
  ImGui::NewFrame();
  app.ScrollBy(-platform::TakeTouchScroll());
  app.Frame();
  ImGui::Render();
  if (capture) {
    app.SetCapturing(false);
    RequestPng(std::string("attnlab-") + lessons::kViewNames[static_cast<int>(app.state().view)], app.view_rect());
    ServeExports();
    platform::MarkDirty();
    return;
  }
  glViewport(0, 0, platform::FramebufferWidth(), platform::FramebufferHeight());
  const ImVec4 bg = ImGui::GetStyleColorVec4(ImGuiCol_WindowBg);
  glClearColor(bg.x, bg.y, bg.z, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  ServeExports();
  float host_top = 0, host_height = 0;
  if (TakeHostScrollRequest(&host_top, &host_height)) platform::ScrollHostTo(host_top, host_height);
  for (int k = 0; k < static_cast<int>(TextBoxId::kCount); ++k) {
    const TextBoxId id = static_cast<TextBoxId>(k);
    const TextBoxPlace& box = TextBoxPlaceOf(id);
    platform::PlaceTextBox(k, box.shown, box.x, box.y, box.w, box.h, app.TextBoxText(id), TextBoxLabel(id));
  }
  const App::Extent& extent = app.extent();
  platform::AfterFrame(app.drawn_state(), app.summary(), extent.content_height, extent.scroll, extent.scroll_max);
  g_last_frame_ms = emscripten_get_now() - start;
  ++g_frames_drawn;
}

// preventDefault (returning true) is what lets the browser restore the context later.
EM_BOOL OnContextLost(int, const void*, void*) {
  g_context_lost = true;
  return EM_TRUE;
}

// The dead context's objects, forgotten in emscripten's GL tables: deleting them on the restored
// context (ImGui's, the heatmaps') made Chromium warn "object does not belong to this context" for
// each; with the entries gone those deletes find nothing and do nothing.
EM_JS(void, attnlab_forget_lost_gl_objects, (), {
  for (const table of [GL.textures, GL.buffers, GL.programs, GL.shaders, GL.vaos, GL.framebuffers, GL.renderbuffers])
    if (table) table.fill(null);
});

// Every program, buffer and texture died with the context: ImGui's device objects (font texture
// included), the heatmap program and every heatmap texture are made again, then the page redrawn.
EM_BOOL OnContextRestored(int, const void*, void*) {
  emscripten_webgl_make_context_current(g_gl);
  attnlab_forget_lost_gl_objects();
  ImGui_ImplOpenGL3_DestroyDeviceObjects();
  ImGui_ImplOpenGL3_CreateDeviceObjects();
  gfx::ForgetHeatmapTextures();
  gfx::Renderer().Shutdown();
  std::string error;  // the shaders built at the start: they build again (else heatmaps stay blank, as at a failed start)
  gfx::Renderer().Init(&error);
  g_context_lost = false;
  platform::MarkDirty();
  return EM_TRUE;
}

// A window ImGui is still laying out: a popup or tooltip in its first, hidden frame (measured, not
// drawn) or auto-fitting its size. It shows, where it will stay, only in a later frame.
bool WindowSettling() {
  for (const ImGuiWindow* w : GImGui->Windows)
    if (w->Active && (w->HiddenFramesCannotSkipItems > 0 || w->HiddenFramesCanSkipItems > 0 || w->AutoFitFramesX > 0 ||
                      w->AutoFitFramesY > 0))
      return true;
  return false;
}

void LoopIteration() {
  if (g_context_lost) return;  // the frame stays due (dirty) until the context is back
  if (!platform::TakeDirty()) return;
  DrawFrame();
  // ImGui trickles input (one key or click per frame); keep drawing until the queue is empty, and
  // until a window that just opened (a figure's menu) has its place: a click's menu is drawn without
  // waiting for the next mouse move.
  if (GImGui->InputEventsQueue.Size > 0 || TheApp().wants_another_frame() || WindowSettling()) platform::MarkDirty();
}

}  // namespace

std::string Start(const std::string& font_ttf, const std::string& canvas_selector) {
  if (g_started) return "already started";
  EmscriptenWebGLContextAttributes attrs;
  emscripten_webgl_init_context_attributes(&attrs);
  attrs.majorVersion = 2;
  attrs.minorVersion = 0;
  attrs.alpha = false;
  attrs.antialias = false;  // heatmap cells are axis-aligned; MSAA would only cost memory
  g_gl = emscripten_webgl_create_context(canvas_selector.c_str(), &attrs);
  if (g_gl <= 0) return "WebGL2 is not available in this browser";
  emscripten_webgl_make_context_current(g_gl);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;  // Tab and arrows move through the controls  // no file system; the URL will hold the state
  ApplyTheme(LightTheme());  // the theme the page asked for before the start
  ImGuiStyle& style = ImGui::GetStyle();
  style.WindowPadding = ImVec2(12, 12);
  style.FrameRounding = 3.0f;
  style.FramePadding = ImVec2(6, 5);  // every control at least 24 px tall: a finger can hit it
  g_base_style = style;
  g_font_ttf = font_ttf;
  g_ui_scale = 1.0f;
  SetupFont(font_ttf, g_ui_scale);
  platform::Init(canvas_selector.c_str());
  ImGui_ImplOpenGL3_Init("#version 300 es");

  std::string error;
  if (!TheApp().Init(&error)) return error;
  emscripten_set_webglcontextlost_callback(canvas_selector.c_str(), nullptr, EM_FALSE, OnContextLost);
  emscripten_set_webglcontextrestored_callback(canvas_selector.c_str(), nullptr, EM_FALSE, OnContextRestored);
  g_started = g_running = true;
  emscripten_set_main_loop(LoopIteration, 0, false);
  return "";
}

void SaveViewPng() {
  g_capture_view = true;
  platform::MarkDirty();
}

void SetRunning(bool running) {
  if (!g_started || running == g_running) return;
  g_running = running;
  if (running) {
    emscripten_resume_main_loop();
    platform::MarkDirty();  // what changed while paused is drawn now
  } else {
    emscripten_pause_main_loop();
  }
}

void Stop() {
  if (!g_started) return;
  emscripten_cancel_main_loop();
  ImGui_ImplOpenGL3_Shutdown();
  ImGui::DestroyContext();
  emscripten_webgl_destroy_context(g_gl);
  g_gl = 0;
  g_started = g_running = false;
}

double LastFrameMs() { return g_last_frame_ms; }

int FramesDrawn() { return g_frames_drawn; }

bool Idle() {
  return !g_started || (!platform::HasDirty() && GImGui->InputEventsQueue.Size == 0 && !offload::Busy() &&
                        !TheLmClient().busy());
}

bool GraphicsLost() { return g_context_lost; }

void CrashForTesting(const std::string& how) {
  if (how == "abort") abort();
  if (how == "trap") {
    g_trap_next_frame = true;
    platform::MarkDirty();
  }
}

void RenderNow() {
  if (g_started) DrawFrame();
}

std::vector<uint8_t> RenderAndReadPixels(float x, float y, float w, float h, int* width, int* height) {
  *width = *height = 0;
  if (!g_started || g_context_lost) return {};
  DrawFrame();
  const float dpr = static_cast<float>(emscripten_get_device_pixel_ratio());
  const int fb_w = platform::FramebufferWidth(), fb_h = platform::FramebufferHeight();
  // Device pixels of the rectangle, clipped to the framebuffer (GL's rows run bottom up).
  const int x0 = std::clamp(static_cast<int>(x * dpr), 0, fb_w), x1 = std::clamp(static_cast<int>((x + w) * dpr), 0, fb_w);
  const int y0 = std::clamp(static_cast<int>(y * dpr), 0, fb_h), y1 = std::clamp(static_cast<int>((y + h) * dpr), 0, fb_h);
  if (x1 <= x0 || y1 <= y0) return {};
  *width = x1 - x0;
  *height = y1 - y0;
  std::vector<uint8_t> rgba(static_cast<size_t>(*width) * *height * 4);
  glReadPixels(x0, fb_h - y1, *width, *height, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
  return rgba;
}

std::array<int, 4> RenderAndReadPixel(float x, float y) {
  std::array<int, 4> rgba = {-1, -1, -1, -1};
  if (!g_started || g_context_lost) return rgba;
  DrawFrame();
  const float dpr = static_cast<float>(emscripten_get_device_pixel_ratio());
  const int px = static_cast<int>(x * dpr), py = platform::FramebufferHeight() - 1 - static_cast<int>(y * dpr);
  unsigned char pixel[4] = {0, 0, 0, 0};
  glReadPixels(px, py, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, pixel);
  for (int i = 0; i < 4; ++i) rgba[i] = pixel[i];
  return rgba;
}

}  // namespace attnlab
