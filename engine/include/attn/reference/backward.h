// The attention backward pass, written once for every kernel like forward.h: given the forward
// result and ∂L/∂output, the gradients with respect to the inputs, parameters and scores.
// Score functions kDot and kScaledDot only (attn::Backward rejects the others).
#pragma once

#include "attn/grad.h"
#include "attn/positions.h"
#include "attn/reference/dims.h"
#include "attn/reference/forward.h"
#include "attn/reference/normalizers.h"

namespace attn::reference {

// Backward of y = x W + b (or y = x without projection): ∂L/∂x, ∂L/∂W, ∂L/∂b from ∂L/∂y.
// x: (r, d_in), w: (d_in, d_y), d_y: (r, d_y) -> d_x: (r, d_in), d_w: (d_in, d_y), d_b: (1, d_y)
template <typename T, typename Ops>
void ProjectBackward(bool project, bool use_bias, const MatrixT<T>& x, const MatrixT<T>& w,
                     const MatrixT<T>& d_y, MatrixT<T>* d_x, MatrixT<T>* d_w, MatrixT<T>* d_b) {
  if (!project) {
    *d_x = d_y;
    return;
  }
  Ops::ProductTransposedB(d_y, w, d_x);
  Ops::TransposedProduct(x, d_y, d_w);
  if (use_bias) *d_b = d_y.colwise().sum();
}

template <typename T, typename Ops>
void BackwardPipeline(const AttentionConfig& config, const AttentionInputsT<T>& in,
                      const AttentionParametersT<T>& params, const AttentionResultT<T>& fwd,
                      const MatrixT<T>& d_output, AttentionGradientsT<T>* grad) {
  const AttentionDims d = ResolveDims(config, in);
  const bool rope = config.position == PositionEncoding::kRope;
  const T base = static_cast<T>(config.position_base), cap = static_cast<T>(config.softcap);
  const T temperature = static_cast<T>(config.temperature), scale = static_cast<T>(d.scale);

  MatrixT<T> d_concat;  // (n, h d_v)
  ProjectBackward<T, Ops>(config.project_output, config.use_bias, fwd.concat, params.wo, d_output, &d_concat,
                          &grad->d_wo, &grad->d_bo);

  MatrixT<T> d_q_all = MatrixT<T>::Zero(d.n, d.heads * d.d_k);     // (n, h d_k)
  MatrixT<T> d_k_new = MatrixT<T>::Zero(d.m, d.kv_heads * d.d_k);  // (m, h_kv d_k)
  MatrixT<T> d_v_new = MatrixT<T>::Zero(d.m, d.kv_heads * d.d_v);  // (m, h_kv d_v)
  grad->d_scores.resize(d.heads);
  grad->d_weights.resize(d.heads);
  for (int head = 0; head < d.heads; ++head) {
    const HeadIntermediatesT<T>& h = fwd.heads[head];
    const int g = head / d.group;
    const MatrixT<T> d_out_h = d_concat.middleCols(head * d.d_v, d.d_v);  // (n, d_v)
    Ops::ProductTransposedB(d_out_h, h.v, &grad->d_weights[head]);         // (n, M)
    MatrixT<T> d_v;                                                       // (M, d_v)
    Ops::TransposedProduct(h.weights, d_out_h, &d_v);
    d_v_new.middleCols(g * d.d_v, d.d_v) += d_v.bottomRows(d.m);

    NormalizeBackward(config.normalizer, h.scores, h.weights, temperature, grad->d_weights[head],
                      &grad->d_scores[head]);
    // Masks and biases are constants; softcap c·tanh(u/c) has derivative 1 − (capped/c)².
    MatrixT<T> d_raw = grad->d_scores[head] * scale;  // (n, M)
    if (cap > 0) d_raw.array() *= 1 - (h.capped_scores.array() / cap).square();

    MatrixT<T> d_q, d_k;  // (n, d_k), (M, d_k)
    Ops::Product(d_raw, h.k, &d_q);
    Ops::TransposedProduct(d_raw, h.q, &d_k);
    MatrixT<T> d_k_fresh = d_k.bottomRows(d.m);
    if (rope) {  // the rotation is orthogonal: its backward is the inverse rotation
      ApplyRope(&d_q, d.query_offset, base, -1);
      ApplyRope(&d_k_fresh, d.past, base, -1);
    }
    d_q_all.middleCols(head * d.d_k, d.d_k) += d_q;
    d_k_new.middleCols(g * d.d_k, d.d_k) += d_k_fresh;
  }

  MatrixT<T> d_query_in, d_key_in, d_value_in;
  const bool project = config.project_inputs, bias = config.use_bias;
  ProjectBackward<T, Ops>(project, bias, fwd.query_in, params.wq, d_q_all, &d_query_in, &grad->d_wq, &grad->d_bq);
  ProjectBackward<T, Ops>(project, bias, fwd.key_in, params.wk, d_k_new, &d_key_in, &grad->d_wk, &grad->d_bk);
  ProjectBackward<T, Ops>(project, bias, fwd.value_in, params.wv, d_v_new, &d_value_in, &grad->d_wv, &grad->d_bv);
  // Additive position encodings do not depend on the inputs: gradients pass straight through.
  if (in.value.size() == 0) {
    d_key_in += d_value_in;  // value was the key input
  } else {
    grad->d_value = d_value_in;
  }
  if (in.key.size() == 0) {
    grad->d_query = d_query_in + d_key_in;  // key was the query input
  } else {
    grad->d_query = d_query_in;
    grad->d_key = d_key_in;
  }
}

// The readable reference backward pass in any precision; `fwd` from reference::Forward.
template <typename T>
void Backward(const AttentionConfig& config, const AttentionInputsT<T>& in, const AttentionParametersT<T>& params,
              const AttentionResultT<T>& fwd, const MatrixT<T>& d_output, AttentionGradientsT<T>* grad) {
  BackwardPipeline<T, ReferenceOps<T>>(config, in, params, fwd, d_output, grad);
}

}  // namespace attn::reference
