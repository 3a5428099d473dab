// View 5: multi-head attention. h heads, each with its own Wq, Wk, Wv of width d_k = d/h; their
// outputs concatenated and multiplied by Wᵒ. Fewer key/value heads than query heads: grouped-query.
#pragma once

#include <string>
#include <vector>

#include "attn/attention.h"
#include "lessons/trained_heads.h"
#include "lessons/views/sentence.h"

namespace lessons {

struct HeadsModel {
  attn::AttentionResult result;  // every head, the concatenation, Wᵒ and the output
  int kv_heads = 0;              // key/value heads; 0: one per query head
  bool grouped = false;          // fewer key/value heads than query heads
  int group = 1;                 // query heads per key/value head

  // The key/value head that query head h reads (the engine's rule: h / group).
  int KvHeadOf(int h) const { return h / group; }

  // With state.trained and the asset at hand: the trained layer's heads on this sentence.
  bool trained = false;
  std::string untrained_reason;       // state.trained but seeded heads drawn: why ("" otherwise)
  std::vector<std::string> tags;      // (n) the tagger's tag of each word ("NOUN"), when trained
  std::vector<std::string> roles;     // one line per head, measured on this sentence (predicted tags)
  std::vector<std::string> corpus_roles;  // one line per head, measured on the held-out Brown text
  // What the tagger scores on held-out Brown text: "tags 96.3% of 119,231 held-out words right
  // (each word's most frequent tag: 93.7%; NOUN for every word: 24.3%)".
  std::string held_out;
};

// The seeded Wq, Wk, Wv, Wᵒ of view 5, kept between recomputes by whoever recomputes (the panel):
// they depend only on d_model, the head counts and the seed, so typing or moving τ reuses them.
// Seeding them from mt19937 costs about as much as the forward pass itself at 32 words.
struct SeededHeads {
  std::string key;                   // what `params` were seeded for ("" while empty)
  attn::AttentionParameters params;  // as attn::InitializeParameters fills them
};

// The line above, from the asset's numbers.
std::string DescribeHeldOut(const TrainedHeads& trained);

// `trained`: the parsed asset, or null while it is loading or when it failed (`trained_error`
// says why, "" while loading). With state.trained and the GloVe vectors, the trained layer at
// temperature state.temperature (heads, kv_heads and seed do not apply); otherwise the seeded heads,
// taken from `seeded` when it holds them and kept there for the next call (null: seeded anew).
// Computes on lessons::ViewKernel().
Status ComputeHeads(const Sentence& sentence, const HeadsState& state, const TrainedHeads* trained,
                    const std::string& trained_error, HeadsModel* out, SeededHeads* seeded = nullptr);

// Why trained heads cannot be drawn for this sentence ("" when they can): loading, failed, or not
// the GloVe vectors they were trained on.
std::string WhyUntrained(const Sentence& sentence, const TrainedHeads* trained, const std::string& trained_error);

}  // namespace lessons
