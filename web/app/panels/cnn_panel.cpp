// View 7. What the reader sees: a 1-D sequence; the receptive field of one output of L stacked
// kernel-K convolutions, beside the weights of self-attention and of windowed attention for the
// same output; then K heads rebuilding a Conv1d as α grows, with the largest difference against α.
#include "panels/cnn_panel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "lessons/layers.h"
#include "imgui.h"
#include "widgets/flow_layout.h"
#include "theme.h"
#include "widgets/field_widgets.h"
#include "widgets/matrix_view.h"
#include "widgets/plot.h"
#include "widgets/prose.h"

namespace attnlab {
namespace {

constexpr int kLength = lessons::CnnState::kLength;

// Diagonal hatching over the cells of row `row` of a heatmap drawn at `r` where mask(0, j) != 0.
void HatchMaskedCells(const LayoutRect& r, int rows, const attn::Matrix& mask, int row) {
  if (r.w <= 0 || mask.cols() == 0) return;
  ImDrawList* list = ImGui::GetWindowDrawList();
  const float cw = r.w / mask.cols(), ch = r.h / rows;
  for (int j = 0; j < mask.cols(); ++j) {
    if (mask(0, j) == 0) continue;
    const ImVec2 a(r.x + j * cw, r.y + row * ch), b(a.x + cw, a.y + ch);
    list->AddRectFilled(a, b, CurrentTheme().hatch_fill);
    list->PushClipRect(a, b, true);
    for (float t = -ch; t < cw; t += 5.0f) list->AddLine(ImVec2(a.x + t, b.y), ImVec2(a.x + t + ch, a.y), CurrentTheme().hatch_line);
    list->PopClipRect();
  }
}

}  // namespace

void CnnPanel::Draw(PanelContext& ctx) {
  DrawExplanation(ctx,
      "A 1-D convolution is attention with a fixed receptive field and fixed, position-based weights: "
      "each output mixes only the K inputs around it, and L stacked layers see 1 + L(K−1) inputs. "
      "Self-attention sees every input, weighted by content; windowed attention sees a CNN's field, "
      "still weighted by content. This view needs no sentence: it uses a seeded sequence of 24 steps "
      "with 3 channels.",
      "click a dot in the top row to choose an output, add layers or widen the kernel and watch its field "
      "grow; then raise α below until K attention heads compute exactly the convolution.");
  DrawControls(ctx);
  const lessons::CnnState& s = ctx.state.cnn;
  field_.Update(lessons::FieldsKey(s), [&](lessons::CnnFieldModel* m) { return lessons::ComputeCnnField(s, m); });
  conv_.Update(lessons::FieldsKey(s), [&](lessons::CnnConvModel* m) { return lessons::ComputeCnnConv(s, m); });
  DrawStatusLine(field_.error().empty() ? conv_.error() : field_.error());
  if (!field_.has_model() || !conv_.has_model()) return;
  if (ImGui::GetContentRegionAvail().x >= 900.0f && ImGui::BeginTable("cnn", 2)) {
    ImGui::TableNextColumn();
    DrawReceptiveField(ctx);
    ImGui::TableNextColumn();
    DrawConvolution(ctx);
    ImGui::EndTable();
  } else {
    DrawReceptiveField(ctx);
    DrawConvolution(ctx);
  }
}

void CnnPanel::DrawControls(PanelContext& ctx) {
  lessons::CnnState& s = ctx.state.cnn;
  const float w = std::min(260.0f, ImGui::GetContentRegionAvail().x * 0.5f - 90.0f);
  int K = 2 * s.radius + 1;
  ImGui::SetNextItemWidth(w);
  if (ImGui::SliderInt("kernel K", &K, 2 * s.kRadius.min + 1, 2 * s.kRadius.max + 1)) s.radius = s.kRadius.Clamp(K / 2);  // odd kernels only
  ImGui::SameLine();
  ImGui::SetNextItemWidth(w);
  SliderField(s.kLayers, &s.layers);
  ImGui::SetNextItemWidth(w);
  int shown_output = s.output + 1;  // readers count from 1
  if (ImGui::SliderInt(s.kOutput.label, &shown_output, s.kOutput.min + 1, s.kOutput.max + 1)) s.output = s.kOutput.Clamp(shown_output - 1);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(w);
  SliderField(s.kWindow, &s.window);
  const float button_w = ImGui::CalcTextSize("= CNN field").x + 2 * ImGui::GetStyle().FramePadding.x;
  const float line_end = ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + button_w;
  if (line_end <= ImGui::GetWindowContentRegionMax().x + ImGui::GetWindowPos().x) ImGui::SameLine();  // else wrap
  if (ImGui::Button("= CNN field")) s.window = s.kWindow.Clamp(s.layers * s.radius);  // same inputs, content weights
  ImGui::SetNextItemWidth(w);
  SliderField(s.kSeed, &s.seed);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(w);
  SliderField(s.kTemperature, &s.temperature);
}

void CnnPanel::DrawReceptiveField(PanelContext& ctx) {
  lessons::CnnState& s = ctx.state.cnn;
  const lessons::CnnFieldModel& f = field_.model();
  const int version = field_.version();
  const int K = f.kernel, L = static_cast<int>(f.field.rows()) - 1, left = lessons::Conv1dLeftPadding(K);
  ImGui::SeparatorText("The input sequence x (3 channels × 24 steps)");
  MatrixViewOptions o;
  o.symbol = "x";
  o.style = DivergingStyle(f.x_t);
  o.square = false;
  o.legend = false;
  DrawMatrix("cnn.x", f.x_t, version, o, ctx.published);

  ImGui::SeparatorText("Receptive field of one output");
  Prose("Output %d of %d layer%s of kernel %d depends on 1 + L(K−1) = %d inputs%s: the highlighted dots.", s.output + 1,
                     L, L == 1 ? "" : "s", K, f.field_size, f.inside < f.field_size ? " (clipped at the ends)" : "");
  ctx.published.Matrix("cnn.field", f.field);
  ctx.published.Scalar("cnn.field.size", f.field_size);
  // The pyramid: the output on top, the input at the bottom, lines from each node to its K inputs.
  const float line = ImGui::GetTextLineHeight();
  const float label_w = ImGui::CalcTextSize("layer 0 (x)").x + 8.0f;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float cell = std::min(22.0f, (ImGui::GetContentRegionAvail().x - label_w) / kLength);
  const float row_h = std::max(line * 1.3f, 18.0f);
  const ImVec2 p0(origin.x + label_w, origin.y);
  ImDrawList* list = ImGui::GetWindowDrawList();
  auto node = [&](int m, int j) { return ImVec2(p0.x + (j + 0.5f) * cell, p0.y + (m + 0.5f) * row_h); };
  const float radius = std::max(2.0f, std::min(cell * 0.32f, 6.0f));
  for (int m = 0; m < L; ++m)
    for (int j = 0; j < kLength; ++j) {
      if (f.field(m, j) == 0) continue;
      for (int t = 0; t < K; ++t) {
        const int q = j + t - left;
        if (q >= 0 && q < kLength) list->AddLine(node(m, j), node(m + 1, q), CurrentTheme().highlight_faint);
      }
    }
  char label[32];
  for (int m = 0; m <= L; ++m) {
    if (m == 0) std::snprintf(label, sizeof(label), "output");
    else std::snprintf(label, sizeof(label), m == L ? "layer 0 (x)" : "layer %d", L - m);
    list->AddText(ImVec2(origin.x, node(m, 0).y - line * 0.5f), ImGui::GetColorU32(ImGuiCol_TextDisabled), label);
    for (int j = 0; j < kLength; ++j) {
      if (f.field(m, j) != 0) list->AddCircleFilled(node(m, j), radius, CurrentTheme().highlight);
      else list->AddCircle(node(m, j), radius, CurrentTheme().inactive_node);
    }
  }
  const LayoutRect pyramid{p0.x, p0.y, cell * kLength, row_h * (L + 1)};
  ImGui::SetCursorScreenPos(p0);
  ImGui::InvisibleButton("cnn.pyramid", ImVec2(pyramid.w, pyramid.h));
  if (ImGui::IsItemClicked()) {  // any row: choose the output in that column
    s.output = std::clamp(static_cast<int>((ImGui::GetIO().MousePos.x - p0.x) / cell), 0, kLength - 1);
  }
  ctx.published.Rect("cnn.pyramid", pyramid);
  ImGui::SetCursorScreenPos(ImVec2(origin.x, p0.y + pyramid.h + 4));

  ImGui::SeparatorText("The same output under attention");
  Prose("Weights softmax(xᵢ·xⱼ / (√d τ)) of output %d. Self-attention weighs all 24 inputs by content; "
                     "windowed attention (radius %d) only the %d around it: hatched cells are masked (weight exactly 0).",
                     s.output + 1, s.window, 2 * s.window + 1);
  static const std::vector<std::string> kRowNames = {"self-attention", "window"};
  MatrixViewOptions r = TokenRowsOptions("w", WeightsStyle(f.rows), MatrixLabels{&kRowNames, nullptr});
  r.on_click = [&](int, int j) { s.output = j; };
  const LayoutRect rect = DrawMatrix("cnn.rows", f.rows, version, r, ctx.published);
  HatchMaskedCells(rect, 2, f.masked, 1);
  ctx.published.Matrix("cnn.masked", f.masked);

  ImGui::SeparatorText("Output of the L-layer stack (no activation)");
  MatrixViewOptions st;
  st.symbol = "y";
  st.style = DivergingStyle(f.stack_t);
  st.square = false;
  st.legend = false;
  DrawMatrix("cnn.stack", f.stack_t, version, st, ctx.published);
}

void CnnPanel::DrawConvolution(PanelContext& ctx) {
  lessons::CnnState& s = ctx.state.cnn;
  const int K = 2 * s.radius + 1;
  ImGui::SeparatorText("Self-attention contains convolution");
  Prose("%d heads, head h scoring keys only by position: −α(δ − Δₕ)², δ = j − i, Δₕ = h − %d. Head h "
                     "carries the convolution's tap for offset Δₕ as its value projection, and Wᵒ adds the heads. As α "
                     "grows each head looks at one offset only, and the layer becomes the convolution.", K, K / 2);
  ImGui::SetNextItemWidth(std::min(320.0f, ImGui::GetContentRegionAvail().x - 120.0f));
  SliderField(s.kAlpha, &s.alpha);
  // α may have moved just now: the model follows before anything is drawn from it.
  conv_.Update(lessons::FieldsKey(s), [&](lessons::CnnConvModel* m) { return lessons::ComputeCnnConv(s, m); });
  const lessons::CnnConvModel& c = conv_.model();
  const int version = conv_.version();
  Prose("largest |attention − convolution| = %.3g", c.difference);
  char summary[128];
  std::snprintf(summary, sizeof(summary), "CNN: at sharpness α = %.3g the largest |attention − convolution| is %.3g",
                static_cast<double>(s.alpha), static_cast<double>(c.difference));
  ctx.summary = summary;
  ctx.published.Scalar("cnn.diff", c.difference);
  ctx.published.Matrix("cnn.taps", c.taps);
  ctx.published.Matrix("cnn.bias", c.bias);

  std::vector<std::string> offsets;
  for (int h = 0; h < K; ++h) offsets.push_back("Δ=" + std::to_string(h - K / 2));
  MatrixViewOptions hw;
  hw.symbol = "w";
  hw.style = WeightsStyle(c.heads);
  hw.rows = MatrixLabels{&offsets, nullptr};
  hw.square = false;
  DrawNote("Each head's weights for output %d:", s.output + 1);
  DrawMatrix("cnn.heads", c.heads, version, hw, ctx.published);

  MatrixViewOptions co;
  co.symbol = "conv";
  co.style = DivergingStyle(c.conv_t);  // one scale: equal colours mean equal values
  co.square = false;
  DrawNote("Conv1d output (2 channels × 24 steps):");
  DrawMatrix("cnn.conv", c.conv_t, version, co, ctx.published);
  co.symbol = "attention";
  DrawNote("Multi-head attention output:");
  DrawMatrix("cnn.attn", c.attn_t, version, co, ctx.published);

  ImGui::SeparatorText("Largest difference against α");
  PlotOptions po;
  po.x = &c.curve_alpha;
  po.log_x = po.log_y = true;
  po.height = 170.0f;
  po.max_width = 560.0f;
  po.x_label = "sharpness α";
  po.y_label = "max |attention − conv|";
  po.markers = {{s.alpha}};
  po.describe = [&](int k) { ImGui::Text("α = %.3g: max difference %.3g", c.curve_alpha(k, 0), c.curve_diff(k, 0)); };
  const PlotResult plot = DrawPlot(
      "cnn.curve", {{"diff", "max |attention − conv|", &c.curve_diff, CurrentTheme().highlight, 2.0f}}, po, ctx.published);
  if (plot.clicked && plot.hovered >= 0) s.alpha = c.curve_alpha(plot.hovered, 0);
  ctx.published.Matrix("cnn.curve.alpha", c.curve_alpha);

  ImGui::SeparatorText("Why not always attention?");
  Prose("Attention is the larger function class: it can be this convolution, but it has to learn to be. A "
                     "CNN has locality built in, so with little data it often generalises better; with a lot of data, "
                     "attention's freedom to look anywhere pays off.");
  if (ImGui::Button("Measure it: view 8, Data size  →")) ctx.state.view = lessons::ViewId::kDataSize;
  ctx.published.Rect("cnn.why", LastItemRect());
}

}  // namespace attnlab
