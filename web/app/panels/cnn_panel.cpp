// View 7. What the reader sees: a 1-D sequence; the receptive field of one output of L stacked
// kernel-K convolutions, beside the weights of self-attention and of windowed attention for the
// same output; then K heads rebuilding a Conv1d as α grows, with the largest difference against α.
#include "panels/cnn_panel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "lessons/explain.h"
#include "lessons/layers.h"
#include "lessons/signals.h"
#include "imgui.h"
#include "widgets/matrix_view.h"
#include "widgets/series_plot.h"

namespace attnlab {
namespace {

constexpr int kLength = 24;    // tokens in the sequence
constexpr int kChannels = 3;   // features per token
constexpr int kConvOut = 2;    // output channels of the convolution attention rebuilds
constexpr int kCurvePoints = 33;

bool SameFields(const lessons::CnnState& a, const lessons::CnnState& b) {
  return a.seed == b.seed && a.radius == b.radius && a.layers == b.layers && a.output == b.output && a.window == b.window &&
         a.temperature == b.temperature;
}
bool SameConv(const lessons::CnnState& a, const lessons::CnnState& b) {
  return a.seed == b.seed && a.radius == b.radius && a.alpha == b.alpha && a.output == b.output;
}

// Diagonal hatching over the cells of row `row` of a heatmap drawn at `r` where mask(0, j) != 0.
void HatchMaskedCells(const LayoutRect& r, int rows, const attn::Matrix& mask, int row) {
  if (r.w <= 0 || mask.cols() == 0) return;
  ImDrawList* list = ImGui::GetWindowDrawList();
  const float cw = r.w / mask.cols(), ch = r.h / rows;
  for (int j = 0; j < mask.cols(); ++j) {
    if (mask(0, j) == 0) continue;
    const ImVec2 a(r.x + j * cw, r.y + row * ch), b(a.x + cw, a.y + ch);
    list->AddRectFilled(a, b, IM_COL32(40, 40, 46, 255));
    list->PushClipRect(a, b, true);
    for (float t = -ch; t < cw; t += 5.0f) list->AddLine(ImVec2(a.x + t, b.y), ImVec2(a.x + t + ch, a.y), IM_COL32(150, 150, 160, 200));
    list->PopClipRect();
  }
}

}  // namespace

void CnnPanel::RecomputeFields(PanelContext& ctx) {
  lessons::CnnState& s = ctx.state.cnn;
  if (computed_fields_ && SameFields(s, fields_for_)) return;
  computed_fields_ = true;
  fields_for_ = s;
  const int K = 2 * s.radius + 1, L = s.layers, i = s.output;
  ++*ctx.engine_runs;
  x_ = lessons::SeededSequence(kLength, kChannels, static_cast<uint32_t>(s.seed));
  std::vector<lessons::Conv1dParams> layers;
  for (int l = 0; l < L; ++l) layers.push_back(lessons::SeededConv1d(K, kChannels, kChannels, s.seed * 101u + l));
  std::vector<attn::Matrix> outputs;
  ++*ctx.engine_runs;
  attn::Status status = lessons::Conv1dStack(layers, x_, &outputs);
  attn::Matrix field = attn::Matrix::Zero(L + 1, kLength);
  for (int m = 0; m <= L && status.ok(); ++m) {
    lessons::IndexRange range;
    ++*ctx.engine_runs;
    status = lessons::ReceptiveField(m, K, kLength, i, &range);
    if (status.ok() && range.size() > 0) field.row(m).segment(range.first, range.size()).setOnes();
  }
  attn::AttentionConfig config;  // Q = K = V = x: weights by content alone
  config.temperature = s.temperature;
  attn::AttentionResult all, window;
  ++*ctx.engine_runs;
  if (status.ok()) status = attn::SelfAttention(config, x_, &all);
  config.window_left = config.window_right = s.window;
  ++*ctx.engine_runs;
  if (status.ok()) status = attn::SelfAttention(config, x_, &window);
  if (!KeepStatus(status, &error_)) return;
  x_t_ = x_.transpose();
  stack_t_ = outputs.back().transpose();
  field_ = std::move(field);
  rows_.resize(2, kLength);
  rows_.row(0) = all.heads[0].weights.row(i);
  rows_.row(1) = window.heads[0].weights.row(i);
  masked_ = window.heads[0].scores.row(i).unaryExpr([](float v) { return std::isinf(v) ? 1.0f : 0.0f; });
  fields_changed_ = true;
}

void CnnPanel::RecomputeConv(PanelContext& ctx) {
  const lessons::CnnState& s = ctx.state.cnn;
  if ((computed_conv_ && SameConv(s, conv_for_)) || x_.size() == 0) return;
  computed_conv_ = true;
  conv_for_ = s;
  const int K = 2 * s.radius + 1;
  const lessons::Conv1dParams conv = lessons::SeededConv1d(K, kChannels, kConvOut, s.seed * 7u + 3u);
  attn::Matrix conv_out;
  lessons::ConvAsAttentionResult as_attention;
  ++*ctx.engine_runs;
  attn::Status status = lessons::Conv1d(conv, x_, &conv_out);
  ++*ctx.engine_runs;
  if (status.ok()) status = lessons::ConvAsAttention(conv, x_, s.alpha, &as_attention);
  float diff = 0;
  if (status.ok()) status = lessons::MaxAbsDifference(as_attention.output, conv_out, &diff);
  // The curve depends on the convolution only, not on α: one sweep per kernel.
  const bool new_curve = !curve_for_set_ || curve_seed_ != s.seed || curve_radius_ != s.radius;
  attn::Matrix alphas(kCurvePoints, 1), diffs(kCurvePoints, 1);
  for (int k = 0; k < kCurvePoints && status.ok() && new_curve; ++k) {
    alphas(k, 0) = std::pow(10.0f, -2.0f + 4.0f * k / (kCurvePoints - 1));  // 0.01 … 100
    lessons::ConvAsAttentionResult r;
    ++*ctx.engine_runs;
    status = lessons::ConvAsAttention(conv, x_, alphas(k, 0), &r);
    if (status.ok()) status = lessons::MaxAbsDifference(r.output, conv_out, &diffs(k, 0));
  }
  if (!status.ok()) {
    error_ = status.ToString();
    return;
  }
  if (new_curve) {
    curve_alpha_ = std::move(alphas);
    curve_diff_ = std::move(diffs);
    curve_for_set_ = true;
    curve_seed_ = s.seed;
    curve_radius_ = s.radius;
  }
  taps_.resize(K * kChannels, kConvOut);
  for (int t = 0; t < K; ++t) taps_.middleRows(t * kChannels, kChannels) = conv.taps[t];
  bias_ = conv.bias;
  conv_t_ = conv_out.transpose();
  attn_t_ = as_attention.output.transpose();
  heads_.resize(K, kLength);
  for (int h = 0; h < K; ++h) heads_.row(h) = as_attention.weights[h].row(s.output);
  diff_ = diff;
  conv_changed_ = true;
}

void CnnPanel::Draw(PanelContext& ctx) {
  DrawExplanation(
      "A 1-D convolution is attention with a fixed receptive field and fixed, position-based weights: "
      "each output mixes only the K inputs around it, and L stacked layers see 1 + L(K−1) inputs. "
      "Self-attention sees every input, weighted by content; windowed attention sees a CNN's field, "
      "still weighted by content. This view needs no sentence: it uses a seeded sequence of 24 steps "
      "with 3 channels.",
      "click a dot in the top row to choose an output, add layers or widen the kernel and watch its field "
      "grow; then raise α below until K attention heads compute exactly the convolution.");
  lessons::CnnState& s = ctx.state.cnn;
  const float w = std::min(260.0f, ImGui::GetContentRegionAvail().x * 0.5f - 90.0f);
  int K = 2 * s.radius + 1;
  ImGui::SetNextItemWidth(w);
  if (ImGui::SliderInt("kernel K", &K, 3, 9)) s.radius = std::clamp(K / 2, 1, 4);  // odd kernels only
  ImGui::SameLine();
  ImGui::SetNextItemWidth(w);
  ImGui::SliderInt("layers L", &s.layers, 1, 6);
  ImGui::SetNextItemWidth(w);
  ImGui::SliderInt("output i", &s.output, 0, kLength - 1);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(w);
  ImGui::SliderInt("window r", &s.window, 0, kLength - 1);
  const float button_w = ImGui::CalcTextSize("= CNN field").x + 2 * ImGui::GetStyle().FramePadding.x;
  const float line_end = ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + button_w;
  if (line_end <= ImGui::GetWindowContentRegionMax().x + ImGui::GetWindowPos().x) ImGui::SameLine();  // else wrap
  if (ImGui::SmallButton("= CNN field")) s.window = s.layers * s.radius;  // same inputs, content weights
  ImGui::SetNextItemWidth(w);
  ImGui::SliderInt("seed", &s.seed, 1, 999);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(w);
  ImGui::SliderFloat("attention τ", &s.temperature, 0.05f, 5.0f, "%.2f", ImGuiSliderFlags_Logarithmic);
  s.temperature = std::clamp(s.temperature, 0.05f, 5.0f);
  s.radius = std::clamp(s.radius, 1, 4);
  s.layers = std::clamp(s.layers, 1, 6);
  s.output = std::clamp(s.output, 0, kLength - 1);
  s.window = std::clamp(s.window, 0, kLength - 1);
  s.seed = std::clamp(s.seed, 1, 999);

  fields_changed_ = conv_changed_ = false;  // set by the recomputes; textures upload when set
  RecomputeFields(ctx);
  RecomputeConv(ctx);
  DrawStatusLine(error_);
  if (field_.size() == 0 || conv_t_.size() == 0) return;
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

void CnnPanel::DrawReceptiveField(PanelContext& ctx) {
  lessons::CnnState& s = ctx.state.cnn;
  const int K = 2 * s.radius + 1, L = s.layers, left = lessons::Conv1dLeftPadding(K);
  ImGui::SeparatorText("The input sequence x (3 channels × 24 steps)");
  MatrixViewOptions o;
  o.symbol = "x";
  o.style = DivergingStyle(x_t_);
  o.square = false;
  o.legend = false;
  DrawMatrix("cnn.x", x_map_, x_t_, fields_changed_, o, ctx.published);

  ImGui::SeparatorText("Receptive field of one output");
  const int inside = static_cast<int>(field_.row(L).sum());
  ImGui::TextWrapped("Output %d of %d layer%s of kernel %d depends on 1 + L(K−1) = %d inputs%s: the yellow dots.", s.output,
                     L, L == 1 ? "" : "s", K, lessons::ReceptiveFieldSize(L, K), inside < lessons::ReceptiveFieldSize(L, K) ? " (clipped at the ends)" : "");
  ctx.published.Matrix("cnn.field", field_);
  ctx.published.Scalar("cnn.field.size", lessons::ReceptiveFieldSize(L, K));
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
      if (field_(m, j) == 0) continue;
      for (int t = 0; t < K; ++t) {
        const int q = j + t - left;
        if (q >= 0 && q < kLength) list->AddLine(node(m, j), node(m + 1, q), IM_COL32(255, 196, 61, 90));
      }
    }
  char label[32];
  for (int m = 0; m <= L; ++m) {
    if (m == 0) std::snprintf(label, sizeof(label), "output");
    else std::snprintf(label, sizeof(label), m == L ? "layer 0 (x)" : "layer %d", L - m);
    list->AddText(ImVec2(origin.x, node(m, 0).y - line * 0.5f), ImGui::GetColorU32(ImGuiCol_TextDisabled), label);
    for (int j = 0; j < kLength; ++j) {
      if (field_(m, j) != 0) list->AddCircleFilled(node(m, j), radius, IM_COL32(255, 196, 61, 255));
      else list->AddCircle(node(m, j), radius, IM_COL32(120, 125, 140, 255));
    }
  }
  const LayoutRect pyramid{p0.x, p0.y, cell * kLength, row_h * (L + 1)};
  ImGui::SetCursorScreenPos(p0);
  ImGui::InvisibleButton("cnn.pyramid", ImVec2(pyramid.w, pyramid.h));
  if (ImGui::IsItemActive()) ctx.published.MarkPassiveActive();
  if (ImGui::IsItemClicked()) {  // any row: choose the output in that column
    s.output = std::clamp(static_cast<int>((ImGui::GetIO().MousePos.x - p0.x) / cell), 0, kLength - 1);
  }
  ctx.published.Rect("cnn.pyramid", pyramid);
  ImGui::SetCursorScreenPos(ImVec2(origin.x, p0.y + pyramid.h + 4));

  ImGui::SeparatorText("The same output under attention");
  ImGui::TextWrapped("Weights softmax(xᵢ·xⱼ / (√d τ)) of output %d. Self-attention weighs all 24 inputs by content; "
                     "windowed attention (radius %d) only the %d around it: hatched cells are masked (weight exactly 0).",
                     s.output, s.window, 2 * s.window + 1);
  static const std::vector<std::string> kRowNames = {"self-attention", "window"};
  MatrixViewOptions r;
  r.symbol = "w";
  r.style = SequentialStyle(rows_);
  r.rows = MatrixLabels{&kRowNames, nullptr};
  r.square = false;
  r.on_click = [&](int, int j) { s.output = j; };
  const LayoutRect rect = DrawMatrix("cnn.rows", rows_map_, rows_, fields_changed_, r, ctx.published);
  HatchMaskedCells(rect, 2, masked_, 1);
  ctx.published.Matrix("cnn.masked", masked_);

  ImGui::SeparatorText("Output of the L-layer stack (no activation)");
  MatrixViewOptions st;
  st.symbol = "y";
  st.style = DivergingStyle(stack_t_);
  st.square = false;
  st.legend = false;
  DrawMatrix("cnn.stack", stack_map_, stack_t_, fields_changed_, st, ctx.published);
}

void CnnPanel::DrawConvolution(PanelContext& ctx) {
  lessons::CnnState& s = ctx.state.cnn;
  const int K = 2 * s.radius + 1;
  ImGui::SeparatorText("Self-attention contains convolution");
  ImGui::TextWrapped("%d heads, head h scoring keys only by position: −α(δ − Δₕ)², δ = j − i, Δₕ = h − %d. Head h "
                     "carries the convolution's tap for offset Δₕ as its value projection, and Wᵒ adds the heads. As α "
                     "grows each head looks at one offset only, and the layer becomes the convolution.", K, K / 2);
  ImGui::SetNextItemWidth(std::min(320.0f, ImGui::GetContentRegionAvail().x - 120.0f));
  ImGui::SliderFloat("sharpness α", &s.alpha, 0.01f, 100.0f, "%.3g", ImGuiSliderFlags_Logarithmic);
  s.alpha = std::clamp(s.alpha, 0.01f, 100.0f);
  RecomputeConv(ctx);  // α may have moved just now
  ImGui::Text("largest |attention − convolution| = %.3g", diff_);
  ctx.published.Scalar("cnn.diff", diff_);
  ctx.published.Matrix("cnn.taps", taps_);
  ctx.published.Matrix("cnn.bias", bias_);

  std::vector<std::string> offsets;
  for (int h = 0; h < K; ++h) offsets.push_back("Δ=" + std::to_string(h - K / 2));
  MatrixViewOptions hw;
  hw.symbol = "w";
  hw.style = SequentialStyle(heads_);
  hw.style.vmax = 1.0f;
  hw.rows = MatrixLabels{&offsets, nullptr};
  hw.square = false;
  ImGui::TextDisabled("Each head's weights for output %d:", s.output);
  DrawMatrix("cnn.heads", heads_map_, heads_, conv_changed_, hw, ctx.published);

  const gfx::HeatmapStyle shared = DivergingStyle(conv_t_);  // one scale: equal colours mean equal values
  MatrixViewOptions c;
  c.symbol = "conv";
  c.style = shared;
  c.square = false;
  ImGui::TextDisabled("Conv1d output (2 channels × 24 steps):");
  DrawMatrix("cnn.conv", conv_map_, conv_t_, conv_changed_, c, ctx.published);
  c.symbol = "attention";
  ImGui::TextDisabled("Multi-head attention output:");
  DrawMatrix("cnn.attn", attn_map_, attn_t_, conv_changed_, c, ctx.published);

  ImGui::SeparatorText("Largest difference against α");
  SeriesPlotOptions po;
  po.x = &curve_alpha_;
  po.log_x = po.log_y = true;
  po.height = 170.0f;
  po.max_width = 560.0f;
  po.x_label = "sharpness α";
  po.y_label = "max |attention − conv|";
  po.marker_x = s.alpha;
  po.draw_marker_x = true;
  po.describe = [&](int k) { ImGui::Text("α = %.3g: max difference %.3g", curve_alpha_(k, 0), curve_diff_(k, 0)); };
  const SeriesPlotResult plot = DrawSeriesPlot(
      "cnn.curve", {{"diff", "max |attention − conv|", &curve_diff_, IM_COL32(255, 196, 61, 255), 2.0f}}, po, ctx.published);
  if (plot.clicked && plot.hovered >= 0) s.alpha = curve_alpha_(plot.hovered, 0);
  ctx.published.Matrix("cnn.curve.alpha", curve_alpha_);

  ImGui::SeparatorText("Why not always attention?");
  ImGui::TextWrapped("Attention is the larger function class: it can be this convolution, but it has to learn to be. A "
                     "CNN has locality built in, so with little data it often generalises better; with a lot of data, "
                     "attention's freedom to look anywhere pays off.");
}

}  // namespace attnlab
