// View 5: multi-head attention. h heads, each with its own Wq, Wk, Wv of width d_k = d/h; their
// outputs concatenated and multiplied by Wᵒ. Fewer key/value heads than query heads: grouped-query.
#pragma once

#include "attn/attention.h"
#include "lessons/views/sentence.h"

namespace lessons {

struct HeadsModel {
  attn::AttentionResult result;  // every head, the concatenation, Wᵒ and the output
  int kv_heads = 0;              // key/value heads; 0: one per query head
  bool grouped = false;          // fewer key/value heads than query heads
  int group = 1;                 // query heads per key/value head

  // The key/value head that query head h reads (the engine's rule: h / group).
  int KvHeadOf(int h) const { return h / group; }
};

Status ComputeHeads(const Sentence& sentence, const HeadsState& state, HeadsModel* out);

}  // namespace lessons
