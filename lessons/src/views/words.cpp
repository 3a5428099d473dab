#include "lessons/views/words.h"

#include <cctype>
#include <string>

#include "lessons/explain.h"
#include "lessons/view_kernel.h"

namespace lessons {

Status ComputeWords(const Sentence& sentence, const WordsState& state, WordsModel* out) {
  WordsModel m;
  attn::AttentionConfig config = ViewConfig();
  config.temperature = state.temperature;
  ATTN_RETURN_IF_ERROR(attn::SelfAttention(config, sentence.x, &m.result));
  const attn::HeadIntermediates& h = m.result.heads[0];
  const int n = static_cast<int>(h.weights.rows());
  for (int r = 0; r < n; ++r) {
    Eigen::Index top = 0;
    h.weights.row(r).maxCoeff(&top);
    m.rows_led_by_self += top == r ? 1 : 0;
  }
  const auto first = [&](const char* word) {
    for (int j = 0; j < n; ++j) {
      std::string t = sentence.tokens[j];
      for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (t == word) return j;
    }
    return -1;
  };
  m.it_index = first("it");
  m.animal_index = first("animal");
  if (m.it_index >= 0) {
    Eigen::Index best = 0;
    h.weights.row(m.it_index).maxCoeff(&best);
    m.it_best = static_cast<int>(best);
    m.it_to_itself = h.weights(m.it_index, m.it_index);
    if (m.animal_index >= 0) m.it_to_animal = h.weights(m.it_index, m.animal_index);
  }
  const int i = state.spotlight;
  if (i >= 0 && i < n) {
    ATTN_RETURN_IF_ERROR(WeightedTerms(h.weights, h.v, i, &m.terms));
    m.output_row = m.result.output.row(i);
    m.self_weight = h.weights(i, i);
    for (int j = 0; j < n; ++j)
      if (j != i && (m.best_other < 0 || h.weights(i, j) > m.best_other_weight)) {
        m.best_other = j;
        m.best_other_weight = h.weights(i, j);
      }
  }
  *out = std::move(m);
  return Status::Ok();
}

}  // namespace lessons
