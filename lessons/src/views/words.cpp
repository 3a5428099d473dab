#include "lessons/views/words.h"

#include "lessons/explain.h"

namespace lessons {

Status ComputeWords(const Sentence& sentence, const WordsState& state, WordsModel* out) {
  WordsModel m;
  attn::AttentionConfig config;
  config.temperature = state.temperature;
  ATTN_RETURN_IF_ERROR(attn::SelfAttention(config, sentence.x, &m.result));
  const int i = state.spotlight;
  if (i >= 0 && i < m.result.output.rows()) {
    const attn::HeadIntermediates& h = m.result.heads[0];
    ATTN_RETURN_IF_ERROR(WeightedTerms(h.weights, h.v, i, &m.terms));
    m.output_row = m.result.output.row(i);
  }
  *out = std::move(m);
  return Status::Ok();
}

}  // namespace lessons
