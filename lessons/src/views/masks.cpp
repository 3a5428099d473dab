#include "lessons/views/masks.h"

#include <cmath>

#include "lessons/view_kernel.h"

namespace lessons {

bool IsPadded(const std::string& padding, int k) { return k < static_cast<int>(padding.size()) && padding[k] == '1'; }

void TogglePadding(std::string* padding, int k) {
  if (static_cast<int>(padding->size()) <= k) padding->resize(k + 1, '0');
  (*padding)[k] = (*padding)[k] == '1' ? '0' : '1';
  while (!padding->empty() && padding->back() != '1') padding->pop_back();
}

Status ComputeMasks(const Sentence& sentence, const MasksState& state, MasksModel* out) {
  const int n = static_cast<int>(sentence.tokens.size());
  attn::AttentionConfig config = ViewConfig();  // view 1 plus masks
  config.causal = state.causal;
  config.window_left = state.window_left;
  config.window_right = state.window_right;
  attn::AttentionInputs inputs;
  inputs.query = sentence.x;
  if (state.padding.find('1') != std::string::npos) {
    inputs.key_padding = attn::BoolMatrix::Constant(1, n, false);
    for (int k = 0; k < n; ++k) inputs.key_padding(0, k) = IsPadded(state.padding, k);
  }
  MasksModel m;
  ATTN_RETURN_IF_ERROR(attn::Forward(config, inputs, &m.result));
  const Matrix& scores = m.result.heads[0].scores;
  for (Eigen::Index i = 0; i < scores.rows(); ++i) m.blind_rows += (scores.row(i).array() == -INFINITY).all() ? 1 : 0;
  *out = std::move(m);
  return Status::Ok();
}

}  // namespace lessons
