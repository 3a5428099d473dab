#include "lessons/views/heads.h"

#include <algorithm>

namespace lessons {

Status ComputeHeads(const Sentence& sentence, const HeadsState& state, HeadsModel* out) {
  const int d = static_cast<int>(sentence.x.cols());
  attn::AttentionConfig config;
  config.num_heads = state.heads;
  config.num_kv_heads = state.kv_heads;
  config.head_dim = config.value_head_dim = std::max(1, d / std::max(1, state.heads));  // d_k = d/h, rounded down
  config.project_inputs = true;
  config.project_output = true;
  config.seed = static_cast<uint32_t>(state.seed);
  config.temperature = state.temperature;
  attn::AttentionInputs inputs;
  inputs.query = sentence.x;
  HeadsModel m;
  ATTN_RETURN_IF_ERROR(attn::Forward(config, inputs, &m.result));
  m.kv_heads = state.kv_heads;
  m.grouped = state.kv_heads > 0 && state.kv_heads < state.heads;
  m.group = m.grouped ? state.heads / state.kv_heads : 1;
  *out = std::move(m);
  return Status::Ok();
}

}  // namespace lessons
