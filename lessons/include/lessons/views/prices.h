// View 13: smoothing a noisy price series. Attention re-weighting with features of value and time
// against a moving average (a convolution with a box kernel), both over the real prices.
#pragma once

#include <string>
#include <vector>

#include "lessons/prices.h"
#include "lessons/smoothing.h"
#include "lessons/view_state.h"

namespace lessons {

struct PricesModel {
  int stock = 0;            // the series shown, within the table
  Matrix clean;             // (n, 1) the real prices
  std::vector<std::string> months;  // n labels, "2000-01": the series' dates without the day
  Matrix noisy;             // (n, 1) with seeded noise
  Matrix average;           // (n, 1) moving average of noisy
  SmootherResult smoother;  // weights (n, n) and smoothed (n, 1)
  // Root-mean-square error against the real prices (float64): how far each series is from the truth.
  double rmse_noisy = 0, rmse_average = 0, rmse_attention = 0;
  // The same attention with the other query (its own noisy price if the state uses the 5-month
  // average, and the other way round): whether the average helps depends on the series and the noise.
  double rmse_attention_other_query = 0;
  // The moving average of the window (2r + 1 months, r = 0 … PricesState::kWindow.max) closest to
  // the real price, and its error: what attention must beat to be worth it.
  int best_window_radius = 0;
  double rmse_best_average = 0;
  // Fitted on held-out months (lessons/smoothing.h: leave-one-out against the noisy prices, the real
  // price unused), as a reader without the truth would fit them: τ for this state's features and
  // query, the moving average's window, and τ for time alone (value weight 0: a Gaussian moving
  // average). Each with its error against the real price, the smoothers run by the engine.
  float fitted_temperature = 0;
  double rmse_attention_fitted = 0;
  int fitted_window_radius = 0;
  double rmse_average_fitted = 0;
  float time_only_temperature = 0;
  double rmse_time_only_fitted = 0;
};

// τ candidates of the fits: the temperature slider's range, kTemperatureCandidates values spaced in log.
constexpr int kTemperatureCandidates = 41;

// Months in the moving average that the query's value is taken from (PricesState::smooth_query).
constexpr int kPricesQueryWindow = 5;

// state.stock is clamped to the table. kEmptyInput when the table holds no series.
Status ComputePrices(const PriceTable& table, const PricesState& state, PricesModel* out);

}  // namespace lessons
