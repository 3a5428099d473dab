#include "lessons/smoothing.h"

#include <cmath>
#include <string>

#include "attn/attention.h"
#include "lessons/layers.h"
#include "lessons/view_kernel.h"
#include "attn/validate.h"

namespace lessons {

Status MovingAverage(const Matrix& series, int width, Matrix* out) {
  if (width < 1 || width % 2 == 0)
    return Status(StatusCode::kOutOfRange, "width: expected odd and >= 1, got " + std::to_string(width));
  if (series.size() == 0) return Status(StatusCode::kEmptyInput, "series: no values");
  ATTN_RETURN_IF_ERROR(attn::validate::AllFinite("series", series));
  const Eigen::Index c = series.cols();
  Conv1dParams box;  // every tap (1/width)·I: each channel averaged on its own
  box.taps.assign(width, Matrix::Identity(c, c) / static_cast<float>(width));
  box.bias = Matrix::Zero(1, c);
  Matrix sums;
  ATTN_RETURN_IF_ERROR(Conv1d(box, series, &sums));
  Conv1dParams count;  // the share of each window inside the series
  count.taps.assign(width, Matrix::Constant(1, 1, 1.0f / static_cast<float>(width)));
  count.bias = Matrix::Zero(1, 1);
  Matrix inside;
  ATTN_RETURN_IF_ERROR(Conv1d(count, Matrix::Ones(series.rows(), 1), &inside));
  *out = sums.array().colwise() / inside.col(0).array();
  return Status::Ok();
}

Status AttentionSmoother(const Matrix& series, const SmootherConfig& config, SmootherResult* out) {
  if (series.rows() == 0) return Status(StatusCode::kEmptyInput, "series: no values");
  if (series.cols() != 1)
    return Status(StatusCode::kShapeMismatch, "series: expected 1 column, got " + std::to_string(series.cols()));
  ATTN_RETURN_IF_ERROR(attn::validate::AllFinite("series", series));
  const float weights[] = {config.value_weight, config.time_weight, config.steps_per_unit};
  for (float w : weights)
    if (!std::isfinite(w) || w < 0.0f)
      return Status(StatusCode::kOutOfRange, "smoother weights: expected finite and >= 0");
  if (!(config.steps_per_unit > 0.0f))
    return Status(StatusCode::kOutOfRange, "steps_per_unit: expected > 0");
  Matrix query_values = series;
  if (config.query_window != 1) ATTN_RETURN_IF_ERROR(MovingAverage(series, config.query_window, &query_values));
  const Eigen::Index n = series.rows();
  const float mean = series.mean();
  const float var = (series.array() - mean).square().mean();
  const float sd = var > 0.0f ? std::sqrt(var) : 1.0f;  // a flat series: value features all 0
  SmootherResult r;
  r.features.resize(n, 2);
  r.query_features.resize(n, 2);
  for (Eigen::Index i = 0; i < n; ++i) {
    r.features(i, 0) = config.value_weight * (series(i, 0) - mean) / sd;
    r.query_features(i, 0) = config.value_weight * (query_values(i, 0) - mean) / sd;
    // Centred time keeps |f|² small, so the dropped |g_i|² term costs no float precision.
    r.features(i, 1) = r.query_features(i, 1) =
        config.time_weight * (static_cast<float>(i) - 0.5f * (n - 1)) / config.steps_per_unit;
  }
  r.query.resize(n, 3);
  r.key.resize(n, 3);
  r.query.leftCols(2) = 2.0f * r.query_features;
  r.query.col(2).setOnes();
  r.key.leftCols(2) = r.features;
  r.key.col(2) = -r.features.rowwise().squaredNorm();

  attn::AttentionConfig ac = ViewConfig();
  ac.score = attn::ScoreFunction::kDot;  // scale 1
  ac.temperature = config.temperature;
  attn::AttentionInputs in;
  in.query = r.query;
  in.key = r.key;
  in.value = series;
  attn::AttentionResult result;
  ATTN_RETURN_IF_ERROR(attn::Forward(ac, in, &result));
  r.weights = std::move(result.heads[0].weights);
  r.smoothed = std::move(result.output);
  *out = std::move(r);
  return Status::Ok();
}

Status RootMeanSquareError(const Matrix& a, const Matrix& b, double* out) {
  ATTN_RETURN_IF_ERROR(attn::validate::HasShape("b", b.rows(), b.cols(), a.rows(), a.cols(), "a's shape"));
  if (a.size() == 0) return Status(StatusCode::kEmptyInput, "a: no values");
  const double sum = (a.cast<double>() - b.cast<double>()).array().square().sum();
  *out = std::sqrt(sum / static_cast<double>(a.size()));
  return Status::Ok();
}

}  // namespace lessons
