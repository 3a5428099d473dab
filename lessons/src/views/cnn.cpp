#include "lessons/views/cnn.h"

#include <cmath>
#include <vector>

#include "attn/attention.h"
#include "lessons/conv_attention.h"
#include "lessons/explain.h"
#include "lessons/layers.h"
#include "lessons/signals.h"
#include "lessons/view_kernel.h"

namespace lessons {
namespace {

Matrix Sequence(const CnnState& state) {
  return SeededSequence(CnnState::kLength, CnnFieldModel::kChannels, static_cast<uint32_t>(state.seed));
}

}  // namespace

Status ComputeCnnField(const CnnState& state, CnnFieldModel* out) {
  constexpr int n = CnnState::kLength, c = CnnFieldModel::kChannels;
  CnnFieldModel m;
  m.kernel = 2 * state.radius + 1;
  const int K = m.kernel, L = state.layers, i = state.output;
  const Matrix x = Sequence(state);
  std::vector<Conv1dParams> layers;
  for (int l = 0; l < L; ++l) layers.push_back(SeededConv1d(K, c, c, state.seed * 101u + l));
  std::vector<Matrix> outputs;
  ATTN_RETURN_IF_ERROR(Conv1dStack(layers, x, &outputs));
  m.field = Matrix::Zero(L + 1, n);
  for (int level = 0; level <= L; ++level) {
    IndexRange range;
    ATTN_RETURN_IF_ERROR(ReceptiveField(level, K, n, i, &range));
    if (range.size() > 0) m.field.row(level).segment(range.first, range.size()).setOnes();
  }
  m.field_size = ReceptiveFieldSize(L, K);
  m.inside = static_cast<int>(m.field.row(L).sum());
  attn::AttentionConfig config = ViewConfig();  // Q = K = V = x: weights by content alone
  config.temperature = state.temperature;
  attn::AttentionResult all, window;
  ATTN_RETURN_IF_ERROR(attn::SelfAttention(config, x, &all));
  config.window_left = config.window_right = state.window;
  ATTN_RETURN_IF_ERROR(attn::SelfAttention(config, x, &window));
  m.x_t = x.transpose();
  m.stack_t = outputs.back().transpose();
  m.rows.resize(2, n);
  m.rows.row(0) = all.heads[0].weights.row(i);
  m.rows.row(1) = window.heads[0].weights.row(i);
  m.masked = window.heads[0].scores.row(i).unaryExpr([](float v) { return std::isinf(v) ? 1.0f : 0.0f; });
  *out = std::move(m);
  return Status::Ok();
}

Status ComputeCnnConv(const CnnState& state, CnnConvModel* out) {
  constexpr int c = CnnFieldModel::kChannels, points = CnnConvModel::kCurvePoints;
  const int K = 2 * state.radius + 1;
  const Matrix x = Sequence(state);
  const Conv1dParams conv = SeededConv1d(K, c, CnnConvModel::kConvOut, state.seed * 7u + 3u);
  CnnConvModel m;
  Matrix conv_out;
  ConvAsAttentionResult as_attention;
  ATTN_RETURN_IF_ERROR(Conv1d(conv, x, &conv_out));
  ATTN_RETURN_IF_ERROR(ConvAsAttention(conv, x, state.alpha, &as_attention));
  ATTN_RETURN_IF_ERROR(MaxAbsDifference(as_attention.output, conv_out, &m.difference));
  m.curve_alpha.resize(points, 1);
  m.curve_diff.resize(points, 1);
  for (int k = 0; k < points; ++k) {
    m.curve_alpha(k, 0) = std::pow(10.0f, -2.0f + 4.0f * k / (points - 1));
    ConvAsAttentionResult r;
    ATTN_RETURN_IF_ERROR(ConvAsAttention(conv, x, m.curve_alpha(k, 0), &r));
    ATTN_RETURN_IF_ERROR(MaxAbsDifference(r.output, conv_out, &m.curve_diff(k, 0)));
  }
  m.taps.resize(K * c, CnnConvModel::kConvOut);
  for (int t = 0; t < K; ++t) m.taps.middleRows(t * c, c) = conv.taps[t];
  m.bias = conv.bias;
  m.conv_t = conv_out.transpose();
  m.attn_t = as_attention.output.transpose();
  m.heads.resize(K, CnnState::kLength);
  for (int h = 0; h < K; ++h) m.heads.row(h) = as_attention.weights[h].row(state.output);
  *out = std::move(m);
  return Status::Ok();
}

}  // namespace lessons
