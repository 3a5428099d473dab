// View 13. What the reader sees: a real monthly price series with seeded noise; a moving average
// and attention re-weighting smoothing it; hovering a month shows whom it attends to.
#include "panels/prices_panel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "imgui.h"
#include "theme.h"
#include "widgets/field_widgets.h"
#include "widgets/matrix_view.h"
#include "widgets/plot.h"
#include "widgets/prose.h"

namespace attnlab {
void PricesPanel::SetFocus(int focus) {
  if (focus == focus_ && focus_version_ == memo_.version()) return;
  focus_ = focus;
  focus_version_ = memo_.version();
  const attn::Matrix& w = memo_.model().smoother.weights;
  if (focus >= 0 && focus < w.rows()) focus_weights_ = w.row(focus);
  else focus_weights_.resize(0, 0);
}

void PricesPanel::DrawControls(PanelContext& ctx) {
  lessons::PricesState& s = ctx.state.prices;
  const lessons::PricesInputs& in = *ctx.prices;
  // Two controls a line on a desktop, one on a phone (the values must stay readable).
  const float avail = ImGui::GetContentRegionAvail().x;
  const bool two = avail >= 600.0f;
  const float w = two ? std::min(240.0f, avail * 0.5f - 110.0f) : avail * 0.6f;
  auto next = [&] { if (two) ImGui::SameLine(); };
  const int count = static_cast<int>(in.table.series.size());
  s.stock = std::clamp(s.stock, 0, count - 1);
  ImGui::SetNextItemWidth(w);
  if (ImGui::BeginCombo(s.kStock.label, in.table.series[s.stock].symbol.c_str())) {
    for (int k = 0; k < count; ++k)
      if (ImGui::Selectable(in.table.series[k].symbol.c_str(), k == s.stock)) s.stock = k;
    ImGui::EndCombo();
  }
  next();
  ImGui::SetNextItemWidth(w);
  SliderField(s.kNoise, &s.noise);
  ImGui::SetNextItemWidth(w);
  SliderField(s.kNoiseSeed, &s.noise_seed);
  next();
  int width = 2 * s.window + 1;
  ImGui::SetNextItemWidth(w);
  if (ImGui::SliderInt("average (months)", &width, 2 * s.kWindow.min + 1, 2 * s.kWindow.max + 1))
    s.window = s.kWindow.Clamp(width / 2);
  ImGui::SetNextItemWidth(w);
  SliderField(s.kValueWeight, &s.value_weight);
  next();
  ImGui::SetNextItemWidth(w);
  SliderField(s.kTimeWeight, &s.time_weight);
  ImGui::SetNextItemWidth(w);
  SliderField(s.kTemperature, &s.temperature);
  next();
  CheckboxField(s.kSmoothQuery, &s.smooth_query);
}

void PricesPanel::Draw(PanelContext& ctx) {
  DrawExplanation(ctx,
      "Attention as a smoother: each smoothed price is a weighted average of all the noisy prices, "
      "yᵢ = Σⱼ wᵢⱼ xⱼ, with weights softmax(−|gᵢ − fⱼ|² / τ) from features of value and time, so a month "
      "takes from months that are near in time and similar in price. The query may compare the month's "
      "5-month average gᵢ instead of its own noisy price (the box below): which one is better depends on the "
      "series and the noise, and the numbers under the plot say which, as they say whether attention beats a "
      "moving average at all. A moving average is a convolution with a box kernel: it takes equally from a fixed "
      "window, whatever the prices. Monthly closes 2000–2010; this view needs no sentence.",
      "hover (or tap) a month to see whom it attends to; read the errors against the real price below; "
      "press \"Use the fitted τ\"; set the value weight to 0; then untick the query's 5-month average, change the "
      "noise or the stock, and see on which series attention wins and where it loses.");
  lessons::PricesState& s = ctx.state.prices;
  const lessons::PricesInputs& in = *ctx.prices;
  DrawStatusLine(in.error);  // a failed reload keeps the last good table
  if (in.version == 0) {
    if (in.error.empty()) DrawNote("Loading the prices...");
    return;
  }
  DrawControls(ctx);
  memo_.Update(lessons::FieldsKey(s) + "#" + std::to_string(in.version),
               [&](lessons::PricesModel* m) { return lessons::ComputePrices(in.table, s, m); });
  DrawStatusLine(memo_.error());
  if (!memo_.has_model()) return;
  const lessons::PricesModel& model = memo_.model();
  const int version = memo_.version();
  const lessons::PriceSeries* series = &in.table.series[model.stock];
  const attn::Matrix &clean = model.clean, &noisy = model.noisy, &average = model.average;
  const lessons::SmootherResult& smoother = model.smoother;
  const int n = static_cast<int>(clean.rows());
  s.focus = std::clamp(s.focus, -1, n - 1);

  ImGui::SeparatorText(("Monthly closing price of " + series->symbol).c_str());
  PlotOptions o;
  o.height = std::clamp(ImGui::GetContentRegionAvail().x * 0.45f, 200.0f, 340.0f);
  o.x_label = "month";
  o.x_step = ImGui::GetContentRegionAvail().x < 600.0f ? 36.0 : 12.0;  // a tick every year (3 on a phone)
  o.y_label = "price (USD)";
  o.x_tick = [&](double v) {
    const int i = std::clamp(static_cast<int>(std::lround(v)), 0, n - 1);
    return series->dates[i].substr(0, 4);
  };
  o.weights_for = [&](int hovered) {
    SetFocus(hovered >= 0 ? hovered : s.focus);
    return focus_weights_.size() ? &focus_weights_ : nullptr;
  };
  o.marked = focus_;
  char average_label[48];
  std::snprintf(average_label, sizeof(average_label), "moving average (%d months)", 2 * s.window + 1);
  const PlotResult plot = DrawPlot("prices.plot",
                                   {{"real", "real price", &clean, CurrentTheme().series[0], 1.5f},
                                    {"noisy", "noisy price", &noisy, CurrentTheme().series[1], 2.0f, true},
                                    {"average", average_label, &average, CurrentTheme().series[2], 2.0f},
                                    {"attention", "attention smoother", &smoother.smoothed, CurrentTheme().series[3], 2.0f}},
                                   o, ctx.published);
  if (plot.clicked) s.focus = plot.hovered;
  ctx.published.Scalar("prices.focus", focus_);
  if (focus_weights_.size()) ctx.published.Matrix("prices.focus.weights", focus_weights_);
  ctx.published.Matrix("prices.weights", smoother.weights);
  // The focused month's numbers below the plot, not in a tooltip that a finger would cover.
  // How far each series is from the real price: the claim of the view, in numbers.
  Prose("Error against the real price (RMSE):  noisy %.3g  ·  moving average %.3g  ·  attention %.3g",
                     model.rmse_noisy, model.rmse_average, model.rmse_attention);
  // What those numbers say, in every state: where attention wins and where it loses.
  const char* vs_average = model.rmse_attention < model.rmse_average ? "beats" : "loses to";
  const char* vs_noisy = model.rmse_attention < model.rmse_noisy ? "and is closer to the real price than the noisy input"
                                                                 : "and is further from the real price than the noisy input itself";
  Prose("On %s, attention %s this moving average %s. The best moving average (%d months) errs by %.3g; with %s as "
        "the query, attention would err by %.3g.",
        series->symbol.c_str(), vs_average, vs_noisy, 2 * model.best_window_radius + 1, model.rmse_best_average,
        s.smooth_query ? "the month's own noisy price" : "the 5-month average", model.rmse_attention_other_query);
  // The same contest with what a reader without the real price would fit (held-out months), and
  // what the value feature adds over time alone: where attention loses, and why, in numbers.
  const bool fitted_wins = model.rmse_attention_fitted < model.rmse_average_fitted;
  Prose("Fitted on held-out months (each month predicted from the others, the real price unused, as kernel regression "
        "picks its bandwidth): τ = %.2f gives attention an error of %.3g, the fitted moving average (%d months) %.3g: "
        "attention %s.",
        model.fitted_temperature, model.rmse_attention_fitted, 2 * model.fitted_window_radius + 1, model.rmse_average_fitted,
        fitted_wins ? "wins" : "loses");
  if (s.value_weight > 0.0f) {
    // Relative to time alone; under kSmallChange either way is the noise of one draw, not a lesson.
    constexpr double kSmallChange = 0.02;
    const double change = (model.rmse_time_only_fitted - model.rmse_attention_fitted) / model.rmse_time_only_fitted;
    const char* verdict = change >= kSmallChange    ? "the value feature helps here, by %.0f%%. Months of similar price "
                                                      "carry information on this series at this noise."
                          : change <= -kSmallChange ? "the value feature costs attention here, %.0f%% more error. It "
                                                      "compares noisy prices, so it also favours months whose noise agrees "
                                                      "with this month's, not only months whose real price does."
                                                    : "the value feature changes it by under 2%% (%.1f%%): time does the work.";
    char said[400];
    std::snprintf(said, sizeof(said), verdict, 100.0 * std::fabs(change));
    Prose("With time alone (value weight 0, a Gaussian moving average; fitted τ = %.2f) the error is %.3g: %s",
          model.time_only_temperature, model.rmse_time_only_fitted, said);
  }
  char use_fitted[48];
  std::snprintf(use_fitted, sizeof(use_fitted), "Use the fitted τ (%.2f)", model.fitted_temperature);
  if (std::fabs(s.temperature - model.fitted_temperature) > 1e-4f * model.fitted_temperature && ImGui::Button(use_fitted))
    s.temperature = model.fitted_temperature;
  ctx.published.Scalar("prices.fitted.temperature", model.fitted_temperature);
  ctx.published.Scalar("prices.fitted.rmse.attention", model.rmse_attention_fitted);
  ctx.published.Scalar("prices.fitted.window", 2 * model.fitted_window_radius + 1);
  ctx.published.Scalar("prices.fitted.rmse.average", model.rmse_average_fitted);
  ctx.published.Scalar("prices.fitted.time_only.temperature", model.time_only_temperature);
  ctx.published.Scalar("prices.fitted.rmse.time_only", model.rmse_time_only_fitted);
  ctx.published.Scalar("prices.rmse.other_query", model.rmse_attention_other_query);
  ctx.published.Scalar("prices.rmse.best_average", model.rmse_best_average);
  ctx.published.Scalar("prices.best_window", 2 * model.best_window_radius + 1);
  ctx.published.Scalar("prices.rmse.noisy", model.rmse_noisy);
  char summary[160];
  std::snprintf(summary, sizeof(summary), "Prices: error against the real price, noisy %.3g, moving average %.3g, attention %.3g",
                model.rmse_noisy, model.rmse_average, model.rmse_attention);
  ctx.summary = summary;
  ctx.published.Scalar("prices.rmse.average", model.rmse_average);
  ctx.published.Scalar("prices.rmse.attention", model.rmse_attention);
  if (focus_ >= 0) {
    ImGui::Text("%s: real %.2f, noisy %.2f", model.months[focus_].c_str(), clean(focus_, 0), noisy(focus_, 0));
    ImGui::Text("moving average %.2f, attention %.2f", average(focus_, 0), smoother.smoothed(focus_, 0));
    Prose("The highlighted bars are whom it attends to: months near it in time and similar in price "
                       "(click to keep it).");
  } else {
    DrawNote("Hover or tap a month to see whom it attends to; click to keep it.");
  }

  ImGui::SeparatorText("All the weights W (row i: whom month i attends to)");
  MatrixViewOptions m;
  m.symbol = "w";
  m.style = WeightsStyle(smoother.weights);
  m.style.gap = 0.0f;  // 100+ rows: grid lines would hide the cells
  m.max_width = 420.0f;
  m.rows = m.cols = MatrixLabels{&model.months, nullptr};
  m.on_click = [&](int i, int) { s.focus = i; };
  DrawMatrix("prices.W", smoother.weights, version, m, ctx.published);
  Prose("The moving average is this picture with a band of equal weights 1/%d along the diagonal: "
                     "a convolution. Attention chooses its band by similarity.", 2 * s.window + 1);
}

}  // namespace attnlab
