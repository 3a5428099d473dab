// Two smoothers of a series (docs/concepts.md §1, §11): a moving average, which is a convolution with a
// box kernel, and attention re-weighting, whose window is chosen by similarity of value and time.
#pragma once

#include "lessons/common.h"

namespace lessons {

// Mean over a centred window of `width` (odd) steps: Conv1d with the box kernel 1/width, divided
// by the same convolution of ones so that windows clipped at the ends average only what they see.
// series: (n, c) -> (n, c)
Status MovingAverage(const Matrix& series, int width, Matrix* out);

struct SmootherConfig {
  float value_weight = 1.0f;  // feature a·(x_i − mean)/std: how much similar prices attract
  float time_weight = 1.0f;   // feature b·(i − centre)/steps_per_unit: how much nearby times attract
  float steps_per_unit = 12.0f;
  float temperature = 1.0f;   // τ: weights = softmax(−|f_i − f_j|² / τ)
  // The query's value feature is taken from a centred moving average of this many steps (odd; 1:
  // the point's own value). With 1, a noisy point is most similar to itself and keeps its noise.
  int query_window = 1;
};

struct SmootherResult {
  Matrix features;  // (n, 2): [value feature, time feature] of the keys
  Matrix query_features;  // (n, 2): the same for the queries (value from the averaged series)
  Matrix query;     // (n, 3): [2 g_i, 1]
  Matrix key;       // (n, 3): [f_j, −|f_j|²]
  Matrix weights;   // (n, n): row i = whom point i attends to
  Matrix smoothed;  // (n, 1): weights · series
};

// Attention re-weighting of series: (n, 1) through attn::Forward (dot product, scale 1, softmax with
// temperature τ). With query features g_i (f_i, its value feature from the averaged series) and key
// features f_j, q_i·k_j = −|g_i − f_j|² + |g_i|², and the |g_i|² term is the same along a row, so the
// weights are softmax_j(−|g_i − f_j|² / τ): a Gaussian kernel in (value, time).
Status AttentionSmoother(const Matrix& series, const SmootherConfig& config, SmootherResult* out);

// Bandwidths fitted on held-out months, as kernel regression (Nadaraya–Watson) picks its bandwidth:
// each point is predicted from the others (leave-one-out) and compared with its own noisy value; the
// real series is never used. Computed in float64 from the smoother's formula (a reference, not the
// engine: the view then runs the engine with the chosen value).
struct FittedTemperature {
  float temperature = 0;  // the candidate with the smallest leave-one-out error
  double loo_rmse = 0;    // that error, against the noisy series
};
// τ on `candidates` (≥ 2) values spaced evenly in log between lo and hi (0 < lo < hi), the rest of
// `config` as given. The held-out point is left out of its own query too: its query value is the
// mean of the other points of its query window (of its two neighbours when the window is 1), since a
// query that saw the point's own noise would be rewarded for matching it. series: (n ≥ 3, 1).
Status FitSmootherTemperature(const Matrix& series, const SmootherConfig& config, float lo, float hi, int candidates,
                              FittedTemperature* out);

struct FittedWindow {
  int radius = 0;       // the moving average over 2·radius + 1 points with the smallest error
  double loo_rmse = 0;  // the error of the mean of the 2·radius neighbours, against the noisy series
};
// The window radius 1 … max_radius (≥ 1). series: (n ≥ 3, 1).
Status FitMovingAverageWindow(const Matrix& series, int max_radius, FittedWindow* out);

// sqrt(mean((a − b)²)) in float64. a, b: (n, c) of one shape.
Status RootMeanSquareError(const Matrix& a, const Matrix& b, double* out);

}  // namespace lessons
