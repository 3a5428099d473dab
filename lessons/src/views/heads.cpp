#include "lessons/views/heads.h"

#include <algorithm>
#include <cstdio>

#include "lessons/view_kernel.h"

namespace lessons {

std::string WhyUntrained(const Sentence& sentence, const TrainedHeads* trained, const std::string& trained_error) {
  if (!trained_error.empty()) return "The trained heads could not be loaded (" + trained_error + "): seeded heads shown.";
  if (!trained) return "The trained heads are loading: seeded heads shown meanwhile.";
  if (!sentence.glove || sentence.x.cols() != trained->config.d_model)
    return "The trained heads read GloVe vectors, the ones they were trained on: with hashed vectors, seeded heads are "
           "shown.";
  return "";
}

std::string DescribeHeldOut(const TrainedHeads& trained) {
  const HeldOutScores& h = trained.held_out;
  char text[200];
  std::snprintf(text, sizeof(text),
                "tags %.1f%% of %u,%03u held-out words right (each word's most frequent tag: %.1f%%; the commonest tag "
                "for every word: %.1f%%)",
                100.0 * h.accuracy, h.tokens / 1000, h.tokens % 1000, 100.0 * h.baseline_word, 100.0 * h.baseline_majority);
  return text;
}

Status ComputeHeads(const Sentence& sentence, const HeadsState& state, const TrainedHeads* trained,
                    const std::string& trained_error, HeadsModel* out, SeededHeads* seeded) {
  HeadsModel m;
  attn::AttentionConfig config;
  attn::AttentionParameters params;
  const attn::AttentionParameters* use = &params;  // empty: Forward seeds them from config.seed
  m.untrained_reason = state.trained ? WhyUntrained(sentence, trained, trained_error) : "";
  m.trained = state.trained && m.untrained_reason.empty();
  if (m.trained) {
    TrainedLayer(*trained, &config, &params);
  } else {
    const int d = static_cast<int>(sentence.x.cols());
    config.num_heads = state.heads;
    config.num_kv_heads = state.kv_heads;
    config.head_dim = config.value_head_dim = std::max(1, d / std::max(1, state.heads));  // d_k = d/h, rounded down
    config.project_inputs = true;
    config.project_output = true;
    config.seed = static_cast<uint32_t>(state.seed);
    if (seeded) {
      const std::string key = std::to_string(d) + "," + std::to_string(config.num_heads) + "," +
                              std::to_string(config.num_kv_heads) + "," + std::to_string(config.seed);
      if (seeded->key != key) {
        seeded->key.clear();
        seeded->params = attn::AttentionParameters();
        // A config InitializeParameters refuses goes to Forward unseeded, which reports it as always.
        if (attn::InitializeParameters(config, d, d, d, &seeded->params).ok()) seeded->key = key;
      }
      if (seeded->key == key) use = &seeded->params;
    }
  }
  config.kernel = ViewKernel();  // seeded or as trained, drawn on the views' kernel
  config.temperature = state.temperature;
  attn::AttentionInputs inputs;
  inputs.query = sentence.x;
  ATTN_RETURN_IF_ERROR(attn::Forward(config, inputs, *use, &m.result));
  if (m.trained) {
    // The tags and the roles come from the model as trained (τ = 1), whatever τ the view draws at.
    TaggedSentence tagged;
    ATTN_RETURN_IF_ERROR(TagSentence(*trained, sentence.x, &tagged));
    for (int t : tagged.tags) m.tags.push_back(trained->tags[t]);
    std::vector<TaggedHeadRole> roles;
    ATTN_RETURN_IF_ERROR(MeasureHeadRoles(tagged.weights, tagged.tags, trained->tags, &roles));
    for (const TaggedHeadRole& r : roles) m.roles.push_back(r.text);
    for (const TaggedHeadRole& r : trained->corpus_roles) m.corpus_roles.push_back(r.text);
    m.held_out = DescribeHeldOut(*trained);
  } else {
    m.kv_heads = state.kv_heads;
    m.grouped = state.kv_heads > 0 && state.kv_heads < state.heads;
    m.group = m.grouped ? state.heads / state.kv_heads : 1;
  }
  *out = std::move(m);
  return Status::Ok();
}

}  // namespace lessons
