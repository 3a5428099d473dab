#include "lessons/retrieval.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "attn/grad.h"

namespace lessons {
namespace {

// Countries and their capitals (single-word names as the GloVe asset holds them; Britain for the
// United Kingdom, Korea for South Korea). Capitals as in the CIA World Factbook's "Government:
// capital" entries. Italy and Mexico are left out on purpose: they are the queries outside the table.
constexpr const char* kCapitals[] = {
    "france", "paris",     "germany",  "berlin",  "japan",    "tokyo",     "spain",    "madrid",
    "russia", "moscow",    "china",    "beijing", "egypt",    "cairo",     "greece",   "athens",
    "britain", "london",   "canada",   "ottawa",  "australia", "canberra", "turkey",   "ankara",
    "iran",   "tehran",    "kenya",    "nairobi", "thailand", "bangkok",   "poland",   "warsaw",
    "austria", "vienna",   "sweden",   "stockholm", "norway", "oslo",      "portugal", "lisbon",
    "ireland", "dublin",   "cuba",     "havana",  "peru",     "lima",      "korea",    "seoul",
};
constexpr const char* kCapitalsOutside[] = {"italy", "mexico", "japanese"};

// Singular nouns and their plurals, regular and irregular.
constexpr const char* kPlurals[] = {
    "cat",  "cats",  "dog",   "dogs",   "child", "children", "man",     "men",       "woman", "women",
    "mouse", "mice", "foot",  "feet",   "tooth", "teeth",    "city",    "cities",    "country", "countries",
    "box",  "boxes", "house", "houses", "car",   "cars",     "tree",    "trees",     "book",  "books",
    "day",  "days",  "life",  "lives",  "wife",  "wives",    "knife",   "knives",    "person", "people",
};
constexpr const char* kPluralsOutside[] = {"girl", "bird", "goose"};

template <size_t N, size_t M>
KeyValueTable MakeTable(const char* name, const char* const (&pairs)[N], const char* const (&outside)[M]) {
  static_assert(N % 2 == 0, "pairs: key, value, …");
  return KeyValueTable{name, pairs, static_cast<int>(N / 2), outside, static_cast<int>(M)};
}

}  // namespace

const std::vector<KeyValueTable>& KeyValueTables() {
  static const std::vector<KeyValueTable> tables = {
      MakeTable("countries → capitals", kCapitals, kCapitalsOutside),
      MakeTable("singular → plural", kPlurals, kPluralsOutside),
  };
  return tables;
}

Status BuildKeyValueStore(const WordVectors& vectors, const KeyValueTable& table, KeyValueStore* out) {
  if (vectors.size() == 0) return Status(StatusCode::kEmptyInput, "vectors: the word vectors are not loaded");
  KeyValueStore s;
  s.k.resize(table.size, vectors.dim());
  s.v.resize(table.size, vectors.dim());
  for (int i = 0; i < table.size; ++i) {
    const char* key = table.pairs[2 * i];
    const char* value = table.pairs[2 * i + 1];
    const long key_row = vectors.Find(key), value_row = vectors.Find(value);
    for (const auto& [word, found] : {std::pair{key, key_row}, std::pair{value, value_row}})
      if (found < 0)
        return Status(StatusCode::kUnknownOption, std::string("table ") + table.name + ": \"" + word + "\" is not in the word vectors");
    s.k.row(i) = vectors.Vector(static_cast<size_t>(key_row));
    s.v.row(i) = vectors.Vector(static_cast<size_t>(value_row));
    s.keys.emplace_back(key);
    s.values.emplace_back(value);
  }
  *out = std::move(s);
  return Status::Ok();
}

namespace {

Status CheckStore(const Matrix& query, const KeyValueStore& store) {
  if (store.k.rows() != store.v.rows())
    return Status(StatusCode::kShapeMismatch, "store: expected as many values as keys, got " + std::to_string(store.k.rows()) +
                                                  " keys and " + std::to_string(store.v.rows()) + " values");
  if (query.cols() != store.k.cols())
    return Status(StatusCode::kShapeMismatch, "query: expected width " + std::to_string(store.k.cols()) + " (the keys'), got " +
                                                  std::to_string(query.cols()));
  return Status::Ok();
}

Status CheckOneQuery(const Matrix& query, const KeyValueStore& store) {
  ATTN_RETURN_IF_ERROR(CheckStore(query, store));
  if (query.rows() != 1) return Status(StatusCode::kShapeMismatch, "query: expected 1 row, got " + std::to_string(query.rows()));
  return Status::Ok();
}

// The first largest score of row i: softmax is monotone, so it is the largest weight's key too, also
// where weights underflow to 0 or round to 1 at a tiny τ.
Eigen::Index FirstLargest(const Matrix& scores, Eigen::Index i) {
  Eigen::Index best = 0;
  for (Eigen::Index j = 1; j < scores.cols(); ++j)
    if (scores(i, j) > scores(i, best)) best = j;
  return best;
}

attn::AttentionInputs StoreInputs(const Matrix& query, const KeyValueStore& store) {
  attn::AttentionInputs in;
  in.query = query;
  in.key = store.k;
  in.value = store.v;
  return in;
}

}  // namespace

Status Retrieve(const attn::AttentionConfig& config, const Matrix& query, const KeyValueStore& store, Retrieval* out) {
  ATTN_RETURN_IF_ERROR(CheckOneQuery(query, store));
  Retrieval r;
  ATTN_RETURN_IF_ERROR(attn::Forward(config, StoreInputs(query, store), &r.forward));
  r.soft = r.forward.output;
  const Eigen::Index best = FirstLargest(r.forward.heads[0].scores, 0);
  r.hard = static_cast<int>(best);
  r.hard_value = store.v.row(best);
  *out = std::move(r);
  return Status::Ok();
}

Status SoftRetrievalGradients(const attn::AttentionConfig& config, const Matrix& query, const KeyValueStore& store,
                              const Retrieval& retrieval, RetrievalGradients* out) {
  ATTN_RETURN_IF_ERROR(CheckOneQuery(query, store));
  const int d_v = static_cast<int>(retrieval.forward.output.cols());
  // Query rows do not interact, so d_v copies of the query asked at once, each back-propagating one
  // component of r (∂L/∂output = I), give the Jacobian's d_v rows in one forward and one backward pass.
  const Matrix copies = query.replicate(d_v, 1);
  const attn::AttentionInputs in = StoreInputs(copies, store);
  attn::AttentionResult forward;
  ATTN_RETURN_IF_ERROR(attn::Forward(config, in, retrieval.forward.parameters, &forward));
  attn::AttentionGradients grads;
  ATTN_RETURN_IF_ERROR(attn::Backward(config, in, forward.parameters, forward, Matrix::Identity(d_v, d_v), &grads));
  RetrievalGradients g;
  g.d_query = std::move(grads.d_query);
  const Matrix& scores = forward.heads[0].scores;  // the normaliser's input, before ÷ τ
  g.d_temperature = (-(grads.d_scores[0].array() * scores.array()).rowwise().sum() / config.temperature).transpose().matrix();
  *out = std::move(g);
  return Status::Ok();
}

VocabularyIndex::VocabularyIndex(const WordVectors& vectors) {
  unit_.resize(static_cast<Eigen::Index>(vectors.size()), vectors.dim());
  words_.reserve(vectors.size());
  for (size_t i = 0; i < vectors.size(); ++i) {
    const Matrix v = vectors.Vector(i);
    const float norm = v.norm();
    unit_.row(static_cast<Eigen::Index>(i)) = norm > 0 ? Matrix(v / norm) : v;  // a zero vector stays 0: cosine 0
    words_.push_back(vectors.word(i));
  }
}

Status VocabularyIndex::Nearest(const Matrix& vectors, int count, std::vector<std::vector<Neighbour>>* out) const {
  if (words_.empty()) return Status(StatusCode::kEmptyInput, "vocabulary: no words (the word vectors are not loaded)");
  if (vectors.cols() != unit_.cols())
    return Status(StatusCode::kShapeMismatch, "vectors: expected width " + std::to_string(unit_.cols()) + " (the vocabulary's), got " +
                                                  std::to_string(vectors.cols()));
  count = std::clamp(count, 0, static_cast<int>(words_.size()));
  const Matrix cosines = unit_ * vectors.transpose();  // (N, r) before dividing by each row's norm
  std::vector<std::vector<Neighbour>> lists(static_cast<size_t>(vectors.rows()));
  std::vector<int> order(words_.size());
  for (Eigen::Index r = 0; r < vectors.rows(); ++r) {
    const float norm = vectors.row(r).norm();
    if (!(norm > 0) || !std::isfinite(norm)) continue;  // no direction: no neighbours
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
    std::partial_sort(order.begin(), order.begin() + count, order.end(), [&](int a, int b) {
      return cosines(a, r) > cosines(b, r) || (cosines(a, r) == cosines(b, r) && a < b);
    });
    for (int k = 0; k < count; ++k) lists[static_cast<size_t>(r)].push_back({order[k], cosines(order[k], r) / norm});
  }
  *out = std::move(lists);
  return Status::Ok();
}

Status MeasureStore(const attn::AttentionConfig& config, const KeyValueStore& store, const VocabularyIndex& index,
                    StoreAccuracy* out) {
  ATTN_RETURN_IF_ERROR(CheckStore(store.k, store));
  attn::AttentionResult all;  // every key as a query at once: (m, m) weights
  ATTN_RETURN_IF_ERROR(attn::Forward(config, StoreInputs(store.k, store), &all));
  std::vector<std::vector<VocabularyIndex::Neighbour>> nearest;
  ATTN_RETURN_IF_ERROR(index.Nearest(all.output, 1, &nearest));
  StoreAccuracy a;
  a.size = static_cast<int>(store.k.rows());
  const Matrix& s = all.heads[0].scores;
  for (int i = 0; i < a.size; ++i) {
    const std::string word = nearest[static_cast<size_t>(i)].empty() ? "" : index.word(static_cast<size_t>(nearest[static_cast<size_t>(i)][0].index));
    a.soft_right += word == store.values[static_cast<size_t>(i)] ? 1 : 0;
    a.nearest_soft.push_back(word);
    a.hard_right += FirstLargest(s, i) == i ? 1 : 0;
  }
  *out = std::move(a);
  return Status::Ok();
}

}  // namespace lessons
