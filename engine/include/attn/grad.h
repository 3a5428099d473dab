// Backward pass of the attention layer: given ∂L/∂output, the gradients with respect to the inputs,
// every parameter of AttentionParametersT and every head's scores. Checked against finite
// differences in the tests.
#pragma once

#include <vector>

#include "attn/attention.h"

namespace attn {

// Gradients have the shapes of what they differentiate; a gradient of a parameter the config does
// not use is empty.
template <typename T>
struct AttentionGradientsT {
  MatrixT<T> d_query;  // (n, d_model)    for self-attention also includes the key/value paths
  MatrixT<T> d_key;    // (m, d_kv_model) empty for self-attention (folded into d_query)
  MatrixT<T> d_value;  // (m, ·)          empty when value is taken from key or query
  MatrixT<T> d_wq, d_wk, d_wv, d_wo;  // shapes of the parameters; empty when unused
  MatrixT<T> d_bq, d_bk, d_bv, d_bo;
  // Score-function parameters, one entry per query head; empty lists for the other score functions.
  std::vector<MatrixT<T>> d_bilinear;         // kBilinear: h × (d_k, d_k)
  std::vector<MatrixT<T>> d_additive_wq;      // kAdditive: h × (d_k, d_a)
  std::vector<MatrixT<T>> d_additive_wk;      // kAdditive: h × (d_k, d_a)
  std::vector<MatrixT<T>> d_additive_concat;  // kAdditiveConcat: h × (2 d_k, d_a), rows for q then k
  std::vector<MatrixT<T>> d_additive_v;       // kAdditive, kAdditiveConcat: h × (1, d_a)
  // Positions.
  MatrixT<T> d_position_table;      // kLearned: (max_positions, d_model); rows no query or key took are 0
  MatrixT<T> d_relative_center;     // kQuadraticRelative: (1, h) ∂L/∂Δ_h
  MatrixT<T> d_relative_sharpness;  // kQuadraticRelative: (1, h) ∂L/∂α_h
  std::vector<MatrixT<T>> d_scores;   // h × (n, M)  ∂L/∂scores_h (the normaliser's input)
  std::vector<MatrixT<T>> d_weights;  // h × (n, M)  ∂L/∂weights_h
};
using AttentionGradients = AttentionGradientsT<float>;
using AttentionGradientsD = AttentionGradientsT<double>;

// Back-propagates d_output: (n, d_out) through `forward`, which must be Forward's result on the
// same arguments (a training loop that already ran Forward reuses it). The backward pass runs on
// the reference loops when config.kernel is kReference and on Eigen for every other kernel: the
// SIMD variants have no backward kernels (the backward pass is not a hot path); config.kernel must
// still be available here, as for Forward. Every option of Forward; masks, float-mask values and
// the cache are constants. `params` as given to Forward (the entries it left empty are seeded the
// same way again) or forward.parameters. Same checks as Forward, plus d_output's shape and
// forward's heads and shapes; on error `out` is untouched.
Status Backward(const AttentionConfig& config, const AttentionInputs& inputs,
                const AttentionParameters& params, const AttentionResult& forward, const Matrix& d_output,
                AttentionGradients* out);
// Forward (with config.kernel), then the overload above on its result.
Status Backward(const AttentionConfig& config, const AttentionInputs& inputs,
                const AttentionParameters& params, const Matrix& d_output,
                AttentionGradients* out);

}  // namespace attn
