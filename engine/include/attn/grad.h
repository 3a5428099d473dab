// Backward pass of the attention layer: given ∂L/∂output, the gradients with respect to the inputs,
// every parameter of AttentionParametersT and every head's scores. Checked against finite
// differences in the tests.
#pragma once

#include <string>
#include <type_traits>
#include <utility>
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

// f(name, a_m, b_m) for every gradient of `a` ("d_query", "d_wq", "d_bilinear[1]", "d_scores[0]", …)
// with the matching matrix of `b` (another precision: its lists are resized to a's), in one order.
template <typename A, typename B, typename F>
void ForEachGradientPair(A& a, B& b, F&& f) {
  const std::pair<const char*, std::pair<decltype(&a.d_query), decltype(&b.d_query)>> single[] = {
      {"d_query", {&a.d_query, &b.d_query}}, {"d_key", {&a.d_key, &b.d_key}}, {"d_value", {&a.d_value, &b.d_value}},
      {"d_wq", {&a.d_wq, &b.d_wq}},          {"d_wk", {&a.d_wk, &b.d_wk}},    {"d_wv", {&a.d_wv, &b.d_wv}},
      {"d_wo", {&a.d_wo, &b.d_wo}},          {"d_bq", {&a.d_bq, &b.d_bq}},    {"d_bk", {&a.d_bk, &b.d_bk}},
      {"d_bv", {&a.d_bv, &b.d_bv}},          {"d_bo", {&a.d_bo, &b.d_bo}},
      {"d_position_table", {&a.d_position_table, &b.d_position_table}},
      {"d_relative_center", {&a.d_relative_center, &b.d_relative_center}},
      {"d_relative_sharpness", {&a.d_relative_sharpness, &b.d_relative_sharpness}}};
  for (const auto& [name, m] : single) f(std::string(name), *m.first, *m.second);
  const std::pair<const char*, std::pair<decltype(&a.d_scores), decltype(&b.d_scores)>> lists[] = {
      {"d_bilinear", {&a.d_bilinear, &b.d_bilinear}},
      {"d_additive_wq", {&a.d_additive_wq, &b.d_additive_wq}},
      {"d_additive_wk", {&a.d_additive_wk, &b.d_additive_wk}},
      {"d_additive_concat", {&a.d_additive_concat, &b.d_additive_concat}},
      {"d_additive_v", {&a.d_additive_v, &b.d_additive_v}},
      {"d_scores", {&a.d_scores, &b.d_scores}},
      {"d_weights", {&a.d_weights, &b.d_weights}}};
  for (const auto& [name, list] : lists) {
    if constexpr (!std::is_const_v<B>) list.second->resize(list.first->size());
    for (size_t i = 0; i < list.first->size(); ++i)
      f(std::string(name) + "[" + std::to_string(i) + "]", (*list.first)[i], (*list.second)[i]);
  }
}

// f(name, m) for every gradient `g` holds, in ForEachGradientPair's order.
template <typename G, typename F>
void ForEachGradient(G& g, F&& f) {
  ForEachGradientPair(g, g, [&](const std::string& name, auto& m, auto&) { f(name, m); });
}

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
