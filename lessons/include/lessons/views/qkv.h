// View 3: query, key, value. Q = XWq, K = XWk, V = XWv; Y = softmax(QKᵀ/√d_k) V; one (query, key)
// pair followed from qᵢ and kⱼ to its weight and its share of the output.
#pragma once

#include <string>

#include "attn/attention.h"
#include "lessons/trained_heads.h"
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
  bool trained = false;                   // one head of the layer trained on the Brown corpus
  int trained_head = 0;                   // which one (0-based), when trained
  std::string untrained_reason;           // state.trained but seeded projections drawn: why
  std::string role;                       // the trained head's role on this sentence, measured
};

// state.query and state.key are clamped to the sentence. With state.trained and the asset at hand
// (`trained`, or `trained_error`: see ComputeHeads), head state.trained_head of the trained layer
// (d_k = d_v = 16, RoPE, biases; d_k, d_v, scale, seed and identity do not apply).
Status ComputeQkv(const Sentence& sentence, const QkvState& state, const TrainedHeads* trained,
                  const std::string& trained_error, QkvModel* out);

}  // namespace lessons
