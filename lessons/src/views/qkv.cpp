#include "lessons/views/qkv.h"

#include <algorithm>

#include "lessons/explain.h"
#include "lessons/qkv_explain.h"
#include "lessons/view_kernel.h"
#include "lessons/views/heads.h"

namespace lessons {

Status ComputeQkv(const Sentence& sentence, const QkvState& state, const TrainedHeads* trained,
                  const std::string& trained_error, QkvModel* out) {
  const int d_model = static_cast<int>(sentence.x.cols());
  QkvModel m;
  m.untrained_reason = state.trained ? WhyUntrained(sentence, trained, trained_error) : "";
  m.trained = state.trained && m.untrained_reason.empty();
  attn::AttentionConfig config = ViewConfig();  // one head, scaled dot product, softmax, projected inputs
  attn::AttentionParameters params;
  if (m.trained) {
    m.trained_head = std::clamp(state.trained_head, 0, trained->config.heads - 1);
    ATTN_RETURN_IF_ERROR(TrainedHead(*trained, m.trained_head, &config, &params));
    config.kernel = ViewKernel();  // the layer as trained, drawn on the views' kernel
  } else {
    config.project_inputs = true;
    config.seed = static_cast<uint32_t>(state.seed);
    config.head_dim = state.identity ? d_model : state.d_k;
    config.value_head_dim = state.identity ? d_model : state.d_v;
    ATTN_RETURN_IF_ERROR(ScaledProjections(config, d_model, state.scale, state.identity, &params));
  }
  attn::AttentionInputs inputs;
  inputs.query = sentence.x;
  ATTN_RETURN_IF_ERROR(attn::Forward(config, inputs, params, &m.result));
  if (m.trained) {  // the head's role on this sentence, from the tagger's own tags
    TaggedSentence tagged;
    ATTN_RETURN_IF_ERROR(TagSentence(*trained, sentence.x, &tagged));
    std::vector<TaggedHeadRole> roles;
    ATTN_RETURN_IF_ERROR(MeasureHeadRoles(tagged.weights, tagged.tags, trained->tags, &roles));
    m.role = roles[m.trained_head].text;
  }
  const attn::HeadIntermediates& h = m.result.heads[0];
  const int n = static_cast<int>(h.q.rows());
  m.query = std::clamp(state.query, 0, n - 1);
  m.key = std::clamp(state.key, 0, n - 1);
  ATTN_RETURN_IF_ERROR(PairProduct(h.q, h.k, m.query, m.key, &m.pair_product));
  ATTN_RETURN_IF_ERROR(WeightedTerms(h.weights, h.v, m.query, &m.pair_terms));
  m.pair_q = h.q.row(m.query);
  m.pair_k = h.k.row(m.key);
  m.pair_output = m.result.output.row(m.query);
  m.dot = h.raw_scores(m.query, m.key);
  m.scaled = h.scaled_scores(m.query, m.key);
  m.weight = h.weights(m.query, m.key);
  m.uniform_weight = 1.0f / static_cast<float>(n);
  *out = std::move(m);
  return Status::Ok();
}

}  // namespace lessons
