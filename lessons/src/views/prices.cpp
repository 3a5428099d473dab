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
  *out = std::move(m);
  return Status::Ok();
}

}  // namespace lessons
