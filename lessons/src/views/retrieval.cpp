#include "lessons/views/retrieval.h"

#include <algorithm>

#include "attn/text.h"
#include "lessons/view_kernel.h"

namespace lessons {

namespace {

const KeyValueTable& StoreTable(const RetrievalState& state) {
  const std::vector<KeyValueTable>& tables = KeyValueTables();
  return tables[static_cast<size_t>(std::clamp(state.table, 0, static_cast<int>(tables.size()) - 1))];
}

}  // namespace

attn::AttentionConfig StoreConfig(const RetrievalState& state) {
  attn::AttentionConfig config = ViewConfig();
  const int score = std::clamp(state.score, 0, static_cast<int>(std::size(kRetrievalScores)) - 1);
  config.score = kRetrievalScores[score];
  config.temperature = RetrievalState::kTemperature.Clamp(state.temperature);
  config.seed = 1;  // the additive score's W_q, W_k, w: seeded, not trained (the panel says so)
  return config;
}

Status ComputeStoreAccuracy(const WordVectors& vectors, const VocabularyIndex& index, const RetrievalState& state,
                            StoreAccuracy* out) {
  KeyValueStore store;
  ATTN_RETURN_IF_ERROR(BuildKeyValueStore(vectors, StoreTable(state), &store));
  return MeasureStore(StoreConfig(state), store, index, out);
}

Status ComputeStore(const WordVectors& vectors, const VocabularyIndex& index, const RetrievalState& state, StoreModel* out) {
  StoreModel m;
  ATTN_RETURN_IF_ERROR(BuildKeyValueStore(vectors, StoreTable(state), &m.store));
  // One word: surrounding spaces go, case does not matter (the asset is lower case).
  const size_t first = state.query.find_first_not_of(" \t"), last = state.query.find_last_not_of(" \t");
  m.query = first == std::string::npos ? "" : attn::NormalizeToken(state.query.substr(first, last - first + 1));
  if (m.query.empty()) return Status(StatusCode::kEmptyInput, "query: type a word, or pick one of the keys");
  const long row = vectors.Find(m.query);
  if (row < 0)
    return Status(StatusCode::kUnknownOption, "query: \"" + m.query + "\" is not among the " + std::to_string(vectors.size()) +
                                                  " GloVe words here, so it has no vector to ask with");
  const auto key = std::find(m.store.keys.begin(), m.store.keys.end(), m.query);
  m.query_key = key == m.store.keys.end() ? -1 : static_cast<int>(key - m.store.keys.begin());

  m.config = StoreConfig(state);
  const Matrix query = vectors.Vector(static_cast<size_t>(row));
  ATTN_RETURN_IF_ERROR(Retrieve(m.config, query, m.store, &m.retrieval));
  ATTN_RETURN_IF_ERROR(SoftRetrievalGradients(m.config, query, m.store, m.retrieval, &m.gradients));
  m.d_query_norm = m.gradients.d_query.norm();
  m.d_temperature_norm = m.gradients.d_temperature.norm();
  m.top_weight = m.retrieval.forward.heads[0].weights.maxCoeff();

  m.answers.resize(2, query.cols());
  m.answers.row(0) = m.retrieval.soft;
  m.answers.row(1) = m.retrieval.hard_value;
  std::vector<std::vector<VocabularyIndex::Neighbour>> nearest;
  ATTN_RETURN_IF_ERROR(index.Nearest(m.answers, 3, &nearest));
  m.nearest_soft = nearest[0];
  m.nearest_hard = nearest[1];
  *out = std::move(m);
  return Status::Ok();
}

Status ComputeCross(const Sentence& a, const SentenceState& sentence_state, const WordVectors* vectors,
                    const RetrievalState& state, CrossModel* out) {
  CrossModel m;
  SentenceState b_state = sentence_state;  // B is embedded the way A is: the same vectors
  b_state.text = state.sentence_b;
  const Status b_status = ComputeSentence(b_state, vectors, &m.b);
  if (!b_status.ok()) return Status(b_status.code(), "Sentence B: " + b_status.message());
  m.queries = state.swap ? m.b : a;
  m.keys = state.swap ? a : m.b;
  attn::AttentionConfig config = ViewConfig();  // scaled dot product, softmax, no parameters: softmax(QKᵀ/(√d τ)) V
  config.temperature = RetrievalState::kCrossTemperature.Clamp(state.cross_temperature);
  attn::AttentionInputs in;
  in.query = m.queries.x;
  in.key = m.keys.x;
  in.value = m.keys.x;
  ATTN_RETURN_IF_ERROR(attn::Forward(config, in, &m.result));
  const Matrix& w = m.result.heads[0].weights;
  for (Eigen::Index i = 0; i < w.rows(); ++i) {
    Eigen::Index best = 0;
    w.row(i).maxCoeff(&best);
    m.best_key.push_back(static_cast<int>(best));
  }
  *out = std::move(m);
  return Status::Ok();
}

}  // namespace lessons
