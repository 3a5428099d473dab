// Small computations the query/key/value view shows beside the layer, so the page computes none.
#pragma once

#include "attn/attention.h"
#include "lessons/common.h"

namespace lessons {

// Wq, Wk, Wv for one head of `config` (project_inputs, head_dim, value_head_dim, seed): the seeded
// weights times `scale`, or, with `identity`, the d_model × d_model identity for all three (then
// q = k = v = x and the layer is the parameter-free one; head_dim and value_head_dim must be 0 or
// d_model). kOutOfRange if scale is not finite > 0.
Status ScaledProjections(const attn::AttentionConfig& config, int d_model, float scale, bool identity,
                         attn::AttentionParameters* params);

// (1, d_k): q_i ∘ k_j element by element; its sum is the dot product q_i · k_j.
Status PairProduct(const Matrix& q, const Matrix& k, int i, int j, Matrix* out);

}  // namespace lessons
