// View 6: masks and windows. Causal (no peeking ahead), a window of keys around each query, and
// padding keys that nobody attends to. Blocked scores are −inf, their weights 0.
#pragma once

#include <string>

#include "attn/attention.h"
#include "lessons/views/sentence.h"

namespace lessons {

struct MasksModel {
  attn::AttentionResult result;  // Q = K = V = X, scaled dot product, softmax, the masks
  int blind_rows = 0;            // queries whose every key is blocked (weights and output 0)
};

Status ComputeMasks(const Sentence& sentence, const MasksState& state, MasksModel* out);

// Whether key k is padding in MasksState::padding ('1' at k).
bool IsPadded(const std::string& padding, int k);
// Flips key k's padding flag; trailing zeros are dropped to keep the state string short.
void TogglePadding(std::string* padding, int k);

}  // namespace lessons
