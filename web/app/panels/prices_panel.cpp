// View 8. What the reader sees: a real monthly price series with seeded noise; a moving average
// and attention re-weighting smoothing it; hovering a month shows whom it attends to.
#include "panels/prices_panel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "lessons/signals.h"
#include "imgui.h"
#include "widgets/matrix_view.h"
#include "widgets/series_plot.h"

namespace attnlab {
namespace {

bool SameInputs(const lessons::PricesState& a, const lessons::PricesState& b) {
  return a.stock == b.stock && a.noise == b.noise && a.noise_seed == b.noise_seed && a.window == b.window &&
         a.value_weight == b.value_weight && a.time_weight == b.time_weight && a.temperature == b.temperature;
}

}  // namespace

void PricesPanel::Recompute(PanelContext& ctx) {
  lessons::PricesState& s = ctx.state.prices;
  changed_ = false;
  const lessons::PricesInputs& in = *ctx.prices;
  if (in.version == 0 || in.table.series.empty()) return;
  s.stock = std::clamp(s.stock, 0, static_cast<int>(in.table.series.size()) - 1);
  if (in.version == computed_version_ && SameInputs(s, computed_for_)) return;
  computed_version_ = in.version;
  computed_for_ = s;
  const lessons::PriceSeries& series = in.table.series[s.stock];
  attn::Matrix noisy, average;
  lessons::SmootherResult smoother;
  lessons::SmootherConfig config;
  config.value_weight = s.value_weight;
  config.time_weight = s.time_weight;
  config.steps_per_unit = 12.0f;  // months: time is measured in years
  config.temperature = s.temperature;
  ++*ctx.engine_runs;
  attn::Status status = lessons::AddSeededRelativeNoise(series.prices, s.noise, static_cast<uint32_t>(s.noise_seed), &noisy);
  ++*ctx.engine_runs;
  if (status.ok()) status = lessons::MovingAverage(noisy, 2 * s.window + 1, &average);
  ++*ctx.engine_runs;
  if (status.ok()) status = lessons::AttentionSmoother(noisy, config, &smoother);
  if (!KeepStatus(status, &error_)) return;
  series_ = &series;
  clean_ = series.prices;
  noisy_ = std::move(noisy);
  average_ = std::move(average);
  smoother_ = std::move(smoother);
  focus_ = -2;
  changed_ = true;
}

void PricesPanel::SetFocus(int focus) {
  if (focus == focus_) return;
  focus_ = focus;
  if (focus >= 0 && focus < smoother_.weights.rows()) focus_weights_ = smoother_.weights.row(focus);
  else focus_weights_.resize(0, 0);
}

void PricesPanel::Draw(PanelContext& ctx) {
  DrawExplanation(
      "Attention as a smoother: each smoothed price is a weighted average of all the noisy prices, "
      "yᵢ = Σⱼ wᵢⱼ xⱼ, with weights softmax(−|fᵢ − fⱼ|² / τ) from features of value and time, so a month "
      "takes from months that are near in time and similar in price. A moving average is a convolution "
      "with a box kernel: it takes equally from a fixed window, whatever the prices. Monthly closes "
      "2000–2010; this view needs no sentence.",
      "add noise, then hover (or tap) a month to see whom it attends to; raise the value weight and "
      "watch the smoother keep the crash of 2008 sharp where the moving average blurs it.");
  lessons::PricesState& s = ctx.state.prices;
  const lessons::PricesInputs& in = *ctx.prices;
  DrawStatusLine(in.error);  // a failed reload keeps the last good table
  if (in.version == 0) {
    if (in.error.empty()) ImGui::TextDisabled("Loading the prices...");
    return;
  }
  // Two controls a line on a desktop, one on a phone (the values must stay readable).
  const float avail = ImGui::GetContentRegionAvail().x;
  const bool two = avail >= 600.0f;
  const float w = two ? std::min(240.0f, avail * 0.5f - 110.0f) : avail * 0.6f;
  auto next = [&] { if (two) ImGui::SameLine(); };
  const int count = static_cast<int>(in.table.series.size());
  s.stock = std::clamp(s.stock, 0, count - 1);
  ImGui::SetNextItemWidth(w);
  if (ImGui::BeginCombo("stock", in.table.series[s.stock].symbol.c_str())) {
    for (int k = 0; k < count; ++k)
      if (ImGui::Selectable(in.table.series[k].symbol.c_str(), k == s.stock)) s.stock = k;
    ImGui::EndCombo();
  }
  next();
  ImGui::SetNextItemWidth(w);
  ImGui::SliderFloat("noise × price", &s.noise, 0.0f, 0.5f, "%.2f");
  ImGui::SetNextItemWidth(w);
  ImGui::SliderInt("noise seed", &s.noise_seed, 1, 999);
  next();
  int width = 2 * s.window + 1;
  ImGui::SetNextItemWidth(w);
  if (ImGui::SliderInt("average (months)", &width, 1, 25)) s.window = std::clamp(width / 2, 0, 12);
  ImGui::SetNextItemWidth(w);
  ImGui::SliderFloat("value weight", &s.value_weight, 0.0f, 4.0f, "%.2f");
  next();
  ImGui::SetNextItemWidth(w);
  ImGui::SliderFloat("time weight", &s.time_weight, 0.0f, 8.0f, "%.2f");
  ImGui::SetNextItemWidth(w);
  ImGui::SliderFloat("temperature τ", &s.temperature, 0.02f, 10.0f, "%.2f", ImGuiSliderFlags_Logarithmic);
  s.noise = std::clamp(s.noise, 0.0f, 0.5f);
  s.noise_seed = std::clamp(s.noise_seed, 1, 999);
  s.window = std::clamp(s.window, 0, 12);
  s.value_weight = std::clamp(s.value_weight, 0.0f, 4.0f);
  s.time_weight = std::clamp(s.time_weight, 0.0f, 8.0f);
  s.temperature = std::clamp(s.temperature, 0.02f, 10.0f);

  Recompute(ctx);
  DrawStatusLine(error_);
  if (!series_) return;
  const int n = static_cast<int>(clean_.rows());
  s.focus = std::clamp(s.focus, -1, n - 1);

  ImGui::SeparatorText(("Monthly closing price of " + series_->symbol).c_str());
  SeriesPlotOptions o;
  o.height = std::clamp(ImGui::GetContentRegionAvail().x * 0.45f, 200.0f, 340.0f);
  o.x_label = "month";
  o.x_step = ImGui::GetContentRegionAvail().x < 600.0f ? 36.0 : 12.0;  // a tick every year (3 on a phone)
  o.y_label = "price (USD)";
  o.x_tick = [&](double v) {
    const int i = std::clamp(static_cast<int>(std::lround(v)), 0, n - 1);
    return series_->dates[i].substr(0, 4);
  };
  o.weights_for = [&](int hovered) {
    SetFocus(hovered >= 0 ? hovered : s.focus);
    return focus_weights_.size() ? &focus_weights_ : nullptr;
  };
  o.marked = focus_;
  char average_label[48];
  std::snprintf(average_label, sizeof(average_label), "moving average (%d months)", 2 * s.window + 1);
  const SeriesPlotResult plot = DrawSeriesPlot("prices.plot",
                                               {{"real", "real price", &clean_, IM_COL32(170, 175, 190, 255), 1.5f},
                                                {"noisy", "noisy price", &noisy_, IM_COL32(120, 150, 230, 255), 2.0f, true},
                                                {"average", average_label, &average_, IM_COL32(94, 201, 98, 255), 2.0f},
                                                {"attention", "attention smoother", &smoother_.smoothed, IM_COL32(255, 140, 60, 255), 2.0f}},
                                               o, ctx.published);
  if (plot.clicked) s.focus = plot.hovered;
  ctx.published.Scalar("prices.focus", focus_);
  if (focus_weights_.size()) ctx.published.Matrix("prices.focus.weights", focus_weights_);
  ctx.published.Matrix("prices.weights", smoother_.weights);
  // The focused month's numbers below the plot, not in a tooltip that a finger would cover.
  if (focus_ >= 0) {
    ImGui::Text("%s: real %.2f, noisy %.2f", series_->dates[focus_].substr(0, 7).c_str(), clean_(focus_, 0), noisy_(focus_, 0));
    ImGui::Text("moving average %.2f, attention %.2f", average_(focus_, 0), smoother_.smoothed(focus_, 0));
    ImGui::TextWrapped("The amber bars are whom it attends to: months near it in time and similar in price "
                       "(click to keep it).");
  }
  else
    ImGui::TextDisabled("Hover or tap a month to see whom it attends to; click to keep it.");

  ImGui::SeparatorText("All the weights W (row i: whom month i attends to)");
  MatrixViewOptions m;
  m.symbol = "w";
  m.style = SequentialStyle(smoother_.weights);
  m.style.gap = 0.0f;  // 100+ rows: grid lines would hide the cells
  m.max_width = 420.0f;
  m.rows = m.cols = MatrixLabels{&series_->dates, nullptr};
  m.on_click = [&](int i, int) { s.focus = i; };
  DrawMatrix("prices.W", weights_map_, smoother_.weights, changed_, m, ctx.published);
  ImGui::TextWrapped("The moving average is this picture with a band of equal weights 1/%d along the diagonal: "
                     "a convolution. Attention chooses its band by similarity.", 2 * s.window + 1);
}

}  // namespace attnlab
