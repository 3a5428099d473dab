#include "lessons/conv_attention.h"

#include <cmath>
#include <string>

#include "attn/attention.h"
#include "lessons/view_kernel.h"

namespace lessons {

Status ConvAsAttention(const Conv1dParams& conv, const Matrix& x, float alpha, ConvAsAttentionResult* out) {
  const int K = static_cast<int>(conv.taps.size());
  if (K < 1 || K % 2 == 0)
    return Status(StatusCode::kOutOfRange, "kernel size: expected odd, got " + std::to_string(K));
  if (!std::isfinite(alpha) || alpha <= 0.0f)
    return Status(StatusCode::kOutOfRange, "alpha: expected finite and > 0, got " + std::to_string(alpha));
  const Eigen::Index n = x.rows(), c_in = x.cols(), c_out = conv.bias.cols();
  for (const Matrix& tap : conv.taps) {
    if (tap.rows() != c_in || tap.cols() != c_out)
      return Status(StatusCode::kShapeMismatch, "taps: expected (" + std::to_string(c_in) + ", " +
                                                    std::to_string(c_out) + ") each");
  }
  const int pad = K / 2;

  attn::AttentionConfig config = ViewConfig();
  config.num_heads = K;
  config.head_dim = 1;  // the content scores are zero (q = 0): any width would do
  config.value_head_dim = static_cast<int>(c_out);
  config.project_inputs = true;
  config.project_output = true;
  config.use_bias = true;
  config.output_dim = static_cast<int>(c_out);
  config.position = attn::PositionEncoding::kQuadraticRelative;

  attn::AttentionParameters p;
  p.wq = Matrix::Zero(c_in, K);
  p.wk = Matrix::Zero(c_in, K);
  p.bq = Matrix::Zero(1, K);
  p.bk = Matrix::Zero(1, K);
  p.wv.resize(c_in, K * c_out);
  p.bv = Matrix::Zero(1, K * c_out);
  p.wo.resize(K * c_out, c_out);
  p.relative_center.resize(1, K);
  p.relative_sharpness = Matrix::Constant(1, K, alpha);
  for (int h = 0; h < K; ++h) {
    p.relative_center(0, h) = static_cast<float>(h - pad);               // Δ_h
    p.wv.middleCols(h * c_out, c_out) = conv.taps[h];                    // the tap at offset Δ_h
    p.wo.middleRows(h * c_out, c_out) = Matrix::Identity(c_out, c_out);  // the heads add up
  }
  p.bo = conv.bias;

  attn::AttentionInputs in;
  in.query = Matrix::Zero(n + 2 * pad, c_in);
  in.query.middleRows(pad, n) = x;
  attn::AttentionResult r;
  if (Status s = attn::Forward(config, in, p, &r); !s.ok()) return s;
  out->output = r.output.middleRows(pad, n);
  out->weights.clear();
  for (const auto& head : r.heads) out->weights.push_back(head.weights.block(pad, pad, n, n));
  return Status::Ok();
}

}  // namespace lessons
