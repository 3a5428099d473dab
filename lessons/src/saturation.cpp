#include "lessons/saturation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "attn/attention.h"
#include "attn/grad.h"
#include "attn/seeded_random.h"
#include "lessons/view_kernel.h"

namespace lessons {

Matrix RandomNormalMatrix(int rows, int cols, uint32_t seed, uint32_t stream) {
  return attn::SeededRandom(seed, stream).NormalMatrix(rows, cols);
}

Matrix RowEntropy(const Matrix& weights) {
  Matrix h = Matrix::Zero(weights.rows(), 1);
  for (Eigen::Index i = 0; i < weights.rows(); ++i) {
    double sum = 0;
    for (Eigen::Index j = 0; j < weights.cols(); ++j) {
      const double w = weights(i, j);
      if (w > 0) sum -= w * std::log(w);
    }
    h(i, 0) = static_cast<float>(sum);
  }
  return h;
}

namespace {

// The median of a column of values (the mean of the middle two for an even count).
float Median(const Matrix& column) {
  std::vector<float> v(column.data(), column.data() + column.size());
  std::sort(v.begin(), v.end());
  const size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5f * (v[h - 1] + v[h]);
}

}  // namespace

Status StartSaturationCurves(int tokens, int max_log2_dk, SaturationCurves* out) {
  if (tokens < 2 || tokens > 1024)
    return Status(StatusCode::kOutOfRange, "tokens: expected 2..1024, got " + std::to_string(tokens));
  if (max_log2_dk < 1 || max_log2_dk > 12)
    return Status(StatusCode::kOutOfRange, "max_log2_dk: expected 1..12, got " + std::to_string(max_log2_dk));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  out->log2_dk = Matrix::Constant(1, max_log2_dk, nan);
  out->entropy = Matrix::Constant(2, max_log2_dk, nan);
  out->gradient_norm = Matrix::Constant(2, max_log2_dk, nan);
  return Status::Ok();
}

Status SaturationColumn(int tokens, int p, uint32_t seed, SaturationCurves* curves) {
  if (p < 1 || p > curves->log2_dk.cols())
    return Status(StatusCode::kOutOfRange, "log2_dk: expected 1.." + std::to_string(curves->log2_dk.cols()) + ", got " + std::to_string(p));
  // One-wide values and output gradient: ∂L/∂w_ij = g_i v_j, unit variance whatever d_k is.
  attn::AttentionInputs inputs;
  inputs.value = RandomNormalMatrix(tokens, 1, seed, 0);
  const Matrix d_output = RandomNormalMatrix(tokens, 1, seed, 1);
  const int d_k = 1 << p;
  inputs.query = RandomNormalMatrix(tokens, d_k, seed, 2 * p);
  inputs.key = RandomNormalMatrix(tokens, d_k, seed, 2 * p + 1);
  const attn::ScoreFunction variants[2] = {attn::ScoreFunction::kDot, attn::ScoreFunction::kScaledDot};
  for (int row = 0; row < 2; ++row) {
    attn::AttentionConfig config = ViewConfig();  // the backward pass runs on Eigen (attn/grad.h)
    config.score = variants[row];
    attn::AttentionResult result;
    ATTN_RETURN_IF_ERROR(attn::Forward(config, inputs, &result));
    attn::AttentionGradients grads;
    ATTN_RETURN_IF_ERROR(attn::Backward(config, inputs, attn::AttentionParameters{}, d_output, &grads));
    curves->entropy(row, p - 1) = RowEntropy(result.heads[0].weights).mean();
    // The median row: a few near-ties keep a large gradient, the typical row loses it.
    curves->gradient_norm(row, p - 1) = Median(grads.d_scores[0].rowwise().norm());
  }
  curves->log2_dk(0, p - 1) = static_cast<float>(p);
  return Status::Ok();
}

Status SaturationSweep(int tokens, int max_log2_dk, uint32_t seed, SaturationCurves* out) {
  SaturationCurves curves;
  ATTN_RETURN_IF_ERROR(StartSaturationCurves(tokens, max_log2_dk, &curves));
  for (int p = 1; p <= max_log2_dk; ++p) ATTN_RETURN_IF_ERROR(SaturationColumn(tokens, p, seed, &curves));
  *out = std::move(curves);
  return Status::Ok();
}

}  // namespace lessons
