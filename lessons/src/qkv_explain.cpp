#include "lessons/qkv_explain.h"

#include <cmath>
#include <string>

namespace lessons {

Status ScaledProjections(const attn::AttentionConfig& config, int d_model, float scale, bool identity,
                         attn::AttentionParameters* params) {
  if (!std::isfinite(scale) || scale <= 0.0f)
    return Status(StatusCode::kOutOfRange, "scale: expected a finite value > 0, got " + std::to_string(scale));
  if (d_model < 1) return Status(StatusCode::kOutOfRange, "d_model: expected >= 1, got " + std::to_string(d_model));
  attn::AttentionParameters p;
  if (identity) {
    const bool widths_fit = (config.head_dim == 0 || config.head_dim == d_model) &&
                            (config.value_head_dim == 0 || config.value_head_dim == d_model) && config.num_heads == 1;
    if (!widths_fit)
      return Status(StatusCode::kShapeMismatch, "identity projections need one head with d_k = d_v = d_model = " +
                                                    std::to_string(d_model));
    p.wq = Matrix::Identity(d_model, d_model);
    p.wk = p.wq;
    p.wv = p.wq;
  } else {
    attn::AttentionConfig seeded = config;
    seeded.project_inputs = true;
    const Status status = attn::InitializeParameters(seeded, d_model, d_model, d_model, &p);
    if (!status.ok()) return status;
    p.wq *= scale;
    p.wk *= scale;
    p.wv *= scale;
  }
  *params = std::move(p);
  return Status::Ok();
}

Status PairProduct(const Matrix& q, const Matrix& k, int i, int j, Matrix* out) {
  if (q.cols() != k.cols())
    return Status(StatusCode::kShapeMismatch, "k: expected " + std::to_string(q.cols()) + " columns (d_k), got " +
                                                  std::to_string(k.cols()));
  if (i < 0 || i >= q.rows())
    return Status(StatusCode::kOutOfRange, "i: expected 0.." + std::to_string(q.rows() - 1) + ", got " + std::to_string(i));
  if (j < 0 || j >= k.rows())
    return Status(StatusCode::kOutOfRange, "j: expected 0.." + std::to_string(k.rows() - 1) + ", got " + std::to_string(j));
  *out = q.row(i).cwiseProduct(k.row(j));
  return Status::Ok();
}

}  // namespace lessons
