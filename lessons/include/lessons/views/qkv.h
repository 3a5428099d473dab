// View 3: query, key, value. Q = XWq, K = XWk, V = XWv; Y = softmax(QKᵀ/√d_k) V; one (query, key)
// pair followed from qᵢ and kⱼ to its weight and its share of the output.
#pragma once

#include "attn/attention.h"
#include "lessons/views/sentence.h"

namespace lessons {

struct QkvModel {
  attn::AttentionResult result;  // one head with projections (result.parameters: Wq, Wk, Wv)
  int query = 0, key = 0;        // the followed pair (i, j), within the sentence
  Matrix pair_q, pair_k;         // (1, d_k) qᵢ and kⱼ
  Matrix pair_product;           // (1, d_k) qᵢ∘kⱼ
  Matrix pair_terms;             // (n, d_v) wᵢⱼ vⱼ for every j
  Matrix pair_output;            // (1, d_v) yᵢ
  float dot = 0, scaled = 0, weight = 0;  // qᵢ·kⱼ, qᵢ·kⱼ/√d_k, wᵢⱼ
  float uniform_weight = 0;               // 1/n: the weight of every key under uniform attention
};

// state.query and state.key are clamped to the sentence.
Status ComputeQkv(const Sentence& sentence, const QkvState& state, QkvModel* out);

}  // namespace lessons
