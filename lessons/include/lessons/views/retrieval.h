// View 10: attention as retrieval. A key–value store of GloVe word pairs asked by a query word
// (soft and hard retrieval, the nearest words to the answer, its gradients), and cross-attention:
// queries from sentence A, keys and values from sentence B.
#pragma once

#include <string>
#include <vector>

#include "attn/attention.h"
#include "lessons/common.h"
#include "lessons/retrieval.h"
#include "lessons/view_state.h"
#include "lessons/views/sentence.h"

namespace lessons {

// The store and one query. Needs the GloVe vectors (the pairs are GloVe words).
struct StoreModel {
  KeyValueStore store;
  std::string query;          // normalised (lower case, trimmed)
  int query_key = -1;         // the query's row among the keys, or -1 (a word outside the table)
  attn::AttentionConfig config;  // what scored the store (score, τ, kernel, seed of the additive parameters)
  Retrieval retrieval;        // weights (1, m), soft and hard answers
  RetrievalGradients gradients;
  float d_query_norm = 0;        // ‖∂r/∂q‖ (Frobenius)
  float d_temperature_norm = 0;  // ‖∂r/∂τ‖
  float top_weight = 0;          // the largest weight
  // The vocabulary's 3 nearest words to the soft answer and to the hard one (by cosine).
  std::vector<VocabularyIndex::Neighbour> nearest_soft, nearest_hard;
  Matrix answers;                // (2, d) the soft answer r and the hard one, the best key's value
};
// kUnknownOption when the query is not a word of the asset (it has no vector to ask with); the
// store's, the engine's and the index's errors otherwise.
Status ComputeStore(const WordVectors& vectors, const VocabularyIndex& index, const RetrievalState& state, StoreModel* out);
// Every key of the table asked at the state's score and τ (MeasureStore): it does not depend on the
// query, so a view re-runs it only when the table, the score or τ changed.
Status ComputeStoreAccuracy(const WordVectors& vectors, const VocabularyIndex& index, const RetrievalState& state,
                            StoreAccuracy* out);
// What scores the store at `state`: its score function and τ, the fastest kernel, seed 1 for the
// additive score's parameters.
attn::AttentionConfig StoreConfig(const RetrievalState& state);

// Cross-attention: Y = softmax(Q Kᵀ / (√d τ)) V with Q from one sentence and K = V the other's vectors,
// no parameters. Unswapped Q = X_A, K = V = X_B.
struct CrossModel {
  Sentence b;                  // sentence B, embedded like A (same vector source)
  Sentence queries, keys;      // A and B, or B and A when swapped
  attn::AttentionResult result;  // heads[0].weights (n_q, n_k); output (n_q, d)
  std::vector<int> best_key;     // per query word: the key word it weighs most (the first on ties)
};
// `a`: the shared sentence; `sentence_state`: its state (B uses its vector source and width). B's
// errors name sentence B.
Status ComputeCross(const Sentence& a, const SentenceState& sentence_state, const WordVectors* vectors,
                    const RetrievalState& state, CrossModel* out);

}  // namespace lessons
