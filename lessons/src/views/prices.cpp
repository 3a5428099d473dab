#include "lessons/views/prices.h"

#include <algorithm>

#include "lessons/signals.h"

namespace lessons {

Status ComputePrices(const PriceTable& table, const PricesState& state, PricesModel* out) {
  if (table.series.empty()) return Status(StatusCode::kEmptyInput, "prices: the table holds no series");
  PricesModel m;
  m.stock = std::clamp(state.stock, 0, static_cast<int>(table.series.size()) - 1);
  m.clean = table.series[m.stock].prices;
  for (const std::string& date : table.series[m.stock].dates) m.months.push_back(date.substr(0, 7));
  SmootherConfig config;
  config.value_weight = state.value_weight;
  config.time_weight = state.time_weight;
  config.steps_per_unit = 12.0f;  // months: time is measured in years
  config.temperature = state.temperature;
  config.query_window = state.smooth_query ? kPricesQueryWindow : 1;
  ATTN_RETURN_IF_ERROR(AddSeededRelativeNoise(m.clean, state.noise, static_cast<uint32_t>(state.noise_seed), &m.noisy));
  ATTN_RETURN_IF_ERROR(MovingAverage(m.noisy, 2 * state.window + 1, &m.average));
  ATTN_RETURN_IF_ERROR(AttentionSmoother(m.noisy, config, &m.smoother));
  ATTN_RETURN_IF_ERROR(RootMeanSquareError(m.noisy, m.clean, &m.rmse_noisy));
  ATTN_RETURN_IF_ERROR(RootMeanSquareError(m.average, m.clean, &m.rmse_average));
  ATTN_RETURN_IF_ERROR(RootMeanSquareError(m.smoother.smoothed, m.clean, &m.rmse_attention));
  SmootherConfig other = config;
  other.query_window = state.smooth_query ? 1 : kPricesQueryWindow;
  SmootherResult other_result;
  ATTN_RETURN_IF_ERROR(AttentionSmoother(m.noisy, other, &other_result));
  ATTN_RETURN_IF_ERROR(RootMeanSquareError(other_result.smoothed, m.clean, &m.rmse_attention_other_query));
  m.rmse_best_average = -1;
  for (int r = 0; r <= PricesState::kWindow.max; ++r) {
    Matrix average;
    double rmse = 0;
    ATTN_RETURN_IF_ERROR(MovingAverage(m.noisy, 2 * r + 1, &average));
    ATTN_RETURN_IF_ERROR(RootMeanSquareError(average, m.clean, &rmse));
    if (m.rmse_best_average < 0 || rmse < m.rmse_best_average) m.rmse_best_average = rmse, m.best_window_radius = r;
  }
  // Fitted on held-out months: what a reader who does not know the real price would choose.
  const float lo = PricesState::kTemperature.min, hi = PricesState::kTemperature.max;
  FittedTemperature fitted;
  ATTN_RETURN_IF_ERROR(FitSmootherTemperature(m.noisy, config, lo, hi, kTemperatureCandidates, &fitted));
  m.fitted_temperature = fitted.temperature;
  SmootherConfig at_fitted = config;
  at_fitted.temperature = fitted.temperature;
  SmootherResult fitted_result;
  ATTN_RETURN_IF_ERROR(AttentionSmoother(m.noisy, at_fitted, &fitted_result));
  ATTN_RETURN_IF_ERROR(RootMeanSquareError(fitted_result.smoothed, m.clean, &m.rmse_attention_fitted));
  SmootherConfig time_only = config;
  time_only.value_weight = 0.0f;
  ATTN_RETURN_IF_ERROR(FitSmootherTemperature(m.noisy, time_only, lo, hi, kTemperatureCandidates, &fitted));
  m.time_only_temperature = time_only.temperature = fitted.temperature;
  ATTN_RETURN_IF_ERROR(AttentionSmoother(m.noisy, time_only, &fitted_result));
  ATTN_RETURN_IF_ERROR(RootMeanSquareError(fitted_result.smoothed, m.clean, &m.rmse_time_only_fitted));
  FittedWindow window;
  ATTN_RETURN_IF_ERROR(FitMovingAverageWindow(m.noisy, PricesState::kWindow.max, &window));
  m.fitted_window_radius = window.radius;
  Matrix fitted_average;
  ATTN_RETURN_IF_ERROR(MovingAverage(m.noisy, 2 * window.radius + 1, &fitted_average));
  ATTN_RETURN_IF_ERROR(RootMeanSquareError(fitted_average, m.clean, &m.rmse_average_fitted));
  *out = std::move(m);
  return Status::Ok();
}

}  // namespace lessons
