#include "lessons/views/qkv.h"

#include <algorithm>

#include "lessons/explain.h"
#include "lessons/qkv_explain.h"

namespace lessons {

Status ComputeQkv(const Sentence& sentence, const QkvState& state, QkvModel* out) {
  const int d_model = static_cast<int>(sentence.x.cols());
  attn::AttentionConfig config;  // one head, scaled dot product, softmax, projected inputs
  config.project_inputs = true;
  config.seed = static_cast<uint32_t>(state.seed);
  config.head_dim = state.identity ? d_model : state.d_k;
  config.value_head_dim = state.identity ? d_model : state.d_v;
  attn::AttentionParameters params;
  ATTN_RETURN_IF_ERROR(ScaledProjections(config, d_model, state.scale, state.identity, &params));
  attn::AttentionInputs inputs;
  inputs.query = sentence.x;
  QkvModel m;
  ATTN_RETURN_IF_ERROR(attn::Forward(config, inputs, params, &m.result));
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
