#include "lessons/smoothing.h"

#include <algorithm>
#include <cmath>
#include <limits>
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

namespace {

Status CheckFitSeries(const Matrix& series) {
  if (series.cols() != 1 || series.rows() < 3)
    return Status(StatusCode::kShapeMismatch, "series: expected (n >= 3, 1), got (" + std::to_string(series.rows()) + ", " +
                                                  std::to_string(series.cols()) + ")");
  return attn::validate::AllFinite("series", series);
}

}  // namespace

Status FitSmootherTemperature(const Matrix& series, const SmootherConfig& config, float lo, float hi, int candidates,
                              FittedTemperature* out) {
  ATTN_RETURN_IF_ERROR(CheckFitSeries(series));
  if (!(lo > 0.0f) || !(hi > lo) || !std::isfinite(hi) || candidates < 2)
    return Status(StatusCode::kOutOfRange, "candidates: expected 0 < lo < hi and at least 2, got lo " + std::to_string(lo) +
                                               ", hi " + std::to_string(hi) + ", " + std::to_string(candidates));
  if (!(config.steps_per_unit > 0.0f) || config.query_window < 1 || config.query_window % 2 == 0)
    return Status(StatusCode::kOutOfRange, "config: expected steps_per_unit > 0 and an odd query_window");
  const Eigen::Index n = series.rows();
  const Eigen::VectorXd x = series.col(0).cast<double>();
  const double mean = x.mean();
  const double var = (x.array() - mean).square().mean();
  const double sd = var > 0 ? std::sqrt(var) : 1.0;
  // Features as AttentionSmoother makes them; the held-out point's query value without its own value.
  const int half = std::max(1, config.query_window / 2);
  Eigen::VectorXd key_value(n), query_value(n), time(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    double sum = 0;
    int count = 0;
    for (Eigen::Index j = std::max<Eigen::Index>(0, i - half); j <= std::min<Eigen::Index>(n - 1, i + half); ++j)
      if (j != i) sum += x(j), ++count;
    key_value(i) = config.value_weight * (x(i) - mean) / sd;
    query_value(i) = config.value_weight * (sum / count - mean) / sd;
    time(i) = config.time_weight * (static_cast<double>(i) - 0.5 * (n - 1)) / config.steps_per_unit;
  }
  // Squared feature distances of each held-out query to every other key, once for every τ.
  Eigen::MatrixXd d2(n, n);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j) d2(i, j) = std::pow(query_value(i) - key_value(j), 2) + std::pow(time(i) - time(j), 2);
  FittedTemperature best;
  best.loo_rmse = -1;
  for (int c = 0; c < candidates; ++c) {
    const double tau = lo * std::pow(static_cast<double>(hi) / lo, static_cast<double>(c) / (candidates - 1));
    double sq = 0;
    for (Eigen::Index i = 0; i < n; ++i) {
      double nearest = std::numeric_limits<double>::infinity();
      for (Eigen::Index j = 0; j < n; ++j)
        if (j != i) nearest = std::min(nearest, d2(i, j));
      double weighted = 0, total = 0;  // softmax over j ≠ i, shifted by the nearest so nothing underflows to 0/0
      for (Eigen::Index j = 0; j < n; ++j) {
        if (j == i) continue;
        const double w = std::exp(-(d2(i, j) - nearest) / tau);
        weighted += w * x(j), total += w;
      }
      sq += std::pow(weighted / total - x(i), 2);
    }
    const double rmse = std::sqrt(sq / n);
    if (best.loo_rmse < 0 || rmse < best.loo_rmse) best = {static_cast<float>(tau), rmse};
  }
  *out = best;
  return Status::Ok();
}

Status FitMovingAverageWindow(const Matrix& series, int max_radius, FittedWindow* out) {
  ATTN_RETURN_IF_ERROR(CheckFitSeries(series));
  if (max_radius < 1) return Status(StatusCode::kOutOfRange, "max_radius: expected >= 1, got " + std::to_string(max_radius));
  const Eigen::Index n = series.rows();
  FittedWindow best;
  best.loo_rmse = -1;
  for (int r = 1; r <= max_radius; ++r) {
    double sq = 0;
    for (Eigen::Index i = 0; i < n; ++i) {
      double sum = 0;
      int count = 0;
      for (Eigen::Index j = std::max<Eigen::Index>(0, i - r); j <= std::min<Eigen::Index>(n - 1, i + r); ++j)
        if (j != i) sum += series(j, 0), ++count;
      sq += std::pow(sum / count - series(i, 0), 2);
    }
    const double rmse = std::sqrt(sq / n);
    if (best.loo_rmse < 0 || rmse < best.loo_rmse) best = {r, rmse};
  }
  *out = best;
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
