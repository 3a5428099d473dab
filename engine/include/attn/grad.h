// Backward pass of the attention layer: given ∂L/∂output, the gradients with respect to the inputs,
// the projection weights and every head's scores. Checked against finite differences in the tests.
#pragma once

#include <vector>

#include "attn/attention.h"

namespace attn {

template <typename T>
struct AttentionGradientsT {
  MatrixT<T> d_query;  // (n, d_model)    for self-attention also includes the key/value paths
  MatrixT<T> d_key;    // (m, d_kv_model) empty for self-attention (folded into d_query)
  MatrixT<T> d_value;  // (m, ·)          empty when value is taken from key or query
  MatrixT<T> d_wq, d_wk, d_wv, d_wo;  // shapes of the parameters; empty when unused
  MatrixT<T> d_bq, d_bk, d_bv, d_bo;
  std::vector<MatrixT<T>> d_scores;   // h × (n, M)  ∂L/∂scores_h (the normaliser's input)
  std::vector<MatrixT<T>> d_weights;  // h × (n, M)  ∂L/∂weights_h
};
using AttentionGradients = AttentionGradientsT<float>;
using AttentionGradientsD = AttentionGradientsT<double>;

// Recomputes the forward pass, then back-propagates d_output: (n, d_out). Both run on the reference
// loops when config.kernel is kReference and on Eigen for every other kernel: the SIMD variants
// have no backward kernels (the backward pass is not a hot path); config.kernel must still be
// available here, as for Forward. Every option of Forward. Not computed: gradients of the score functions' own parameters
// (bilinear, additive) and of the learned position table; the cache is a constant.
Status Backward(const AttentionConfig& config, const AttentionInputs& inputs,
                const AttentionParameters& params, const Matrix& d_output,
                AttentionGradients* out);

}  // namespace attn
