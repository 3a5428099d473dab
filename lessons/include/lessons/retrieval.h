// Attention as retrieval (view 10): a key–value store of GloVe word pairs, a query scored against its
// keys by the engine, soft retrieval (the softmax-weighted sum of the values) against hard retrieval
// (the argmax), the vocabulary's nearest words to what came back, and how the soft answer moves with
// the query and the temperature (gradients through the engine's backward pass).
//
// Shapes: m pairs in the store, d the vectors' width (100 for GloVe), N words in the vocabulary.
#pragma once

#include <string>
#include <vector>

#include "attn/attention.h"
#include "lessons/common.h"
#include "lessons/word_vectors.h"

namespace lessons {

// One table of word pairs: keys and the values they map to, all words of the GloVe asset.
struct KeyValueTable {
  const char* name;   // "countries → capitals"
  const char* const* pairs;  // key, value, key, value, …
  int size;           // pairs
  // Queries that are not keys, to show a blend: "italy" is not in the capitals table.
  const char* const* outside_queries;
  int outside_count;
};
// The tables the view offers, in the order of RetrievalState's table choice.
const std::vector<KeyValueTable>& KeyValueTables();

// The store: one row of K and one of V per pair.
struct KeyValueStore {
  std::vector<std::string> keys, values;
  Matrix k;  // (m, d)
  Matrix v;  // (m, d)
};
// Looks every word of `table` up in `vectors`; kUnknownOption names a word the asset lacks.
Status BuildKeyValueStore(const WordVectors& vectors, const KeyValueTable& table, KeyValueStore* out);

// What one query retrieves. Scores through attn::Forward with query (1, d), key K, value V.
struct Retrieval {
  attn::AttentionResult forward;  // heads[0]: raw_scores, scores, weights (1, m); output (1, d)
  Matrix soft;                    // (1, d) Σⱼ wⱼ vⱼ, the soft answer (= forward.output)
  int hard = -1;                  // argmax of the weights (of the scores: the same key), the first on ties
  Matrix hard_value;              // (1, d) V's row `hard`, the hard answer
};
// config: score, temperature, kernel, seed (additive parameters); one head, no projections.
// kShapeMismatch when K and V differ in rows or the query in width; the engine's errors otherwise.
Status Retrieve(const attn::AttentionConfig& config, const Matrix& query, const KeyValueStore& store, Retrieval* out);

// How the soft answer r = Σⱼ wⱼ vⱼ moves: the Jacobian ∂r/∂q and ∂r/∂τ, from the engine's backward
// pass (attn::Backward on d_v copies of the query, copy a back-propagating component a of r; ∂r/∂τ
// from its ∂r/∂scores: the normaliser sees scores/τ, so ∂r/∂τ = −Σⱼ (∂r/∂sⱼ) sⱼ / τ). `retrieval`:
// Retrieve's result for this query (its parameters are reused: the additive score's seeded ones).
struct RetrievalGradients {
  Matrix d_query;        // (d_v, d_k) row a: ∂r_a/∂q
  Matrix d_temperature;  // (1, d_v)   ∂r/∂τ
};
Status SoftRetrievalGradients(const attn::AttentionConfig& config, const Matrix& query, const KeyValueStore& store,
                              const Retrieval& retrieval, RetrievalGradients* out);

// The vocabulary as unit rows, for nearest-word look-ups by cosine similarity.
class VocabularyIndex {
 public:
  VocabularyIndex() = default;
  explicit VocabularyIndex(const WordVectors& vectors);
  size_t size() const { return words_.size(); }
  const std::string& word(size_t i) const { return words_[i]; }
  struct Neighbour {
    int index;     // row in the vocabulary
    float cosine;  // cos(vector, word)
  };
  // The `count` words closest to each row of `vectors` (r, d) by cosine, best first: r lists.
  // kShapeMismatch on a width other than the vocabulary's; kEmptyInput on an empty vocabulary;
  // a zero row gets an empty list (it has no direction).
  Status Nearest(const Matrix& vectors, int count, std::vector<std::vector<Neighbour>>* out) const;

 private:
  std::vector<std::string> words_;
  Matrix unit_;  // (N, d)
};

// Every key of the store asked as a query: how often the vocabulary's nearest word to the soft
// answer is the key's own value (soft_right), and how often the argmax is the key's own row
// (hard_right). nearest_soft[i]: the nearest word to key i's soft answer.
struct StoreAccuracy {
  int size = 0, soft_right = 0, hard_right = 0;
  std::vector<std::string> nearest_soft;
};
Status MeasureStore(const attn::AttentionConfig& config, const KeyValueStore& store, const VocabularyIndex& index,
                    StoreAccuracy* out);

}  // namespace lessons
