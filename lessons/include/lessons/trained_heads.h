// Attention heads trained on real English: a part-of-speech tagger trained on the Brown corpus
// over the page's own word vectors (web/assets/heads-trained-brown.bin, made by
// lessons/tools/train_brown.cpp; format in web/assets/README.md), what it predicts for a sentence,
// and what each head does, measured from its weights.
//
// The model is an attn::train transformer whose token table is the page's word vectors: a
// sentence's rows x (lessons::EmbedTokens) go straight into layer 1's attention (no LayerNorm, no
// added positions: RoPE inside the attention), so the heads drawn by the views are
//   attn::Forward(attn::train::LayerAttentionConfig(config), {query = x}, params.blocks[0].attention)
// exactly, and TagSentence gives those same weights beside its tags.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "attn/train/model.h"
#include "lessons/common.h"

namespace lessons {

// [SECTION] What a head does
// Measured from layer-1 weights with part-of-speech tags (attn::train::HeadRole is the key-kind role
// of the Learn view's models), over the queries of one sentence or of many (the asset stores the
// held-out corpus's, with the gold tags; the page measures a typed sentence with the predicted tags).
struct TaggedHeadRole {
  float previous = 0;       // mean weight a query puts on the word just before it (queries 2..n)
  float next = 0;           // mean weight on the word just after it (queries 1..n−1)
  float itself = 0;         // mean weight on itself (every query)
  float position_even = 0;  // mean 1/n over the queries: what each of those would get if spread evenly
  // The strongest tag relation A → B: among queries tagged A, the mean total weight on the other
  // words tagged B (tag_weight), against the mean share of the other words that are tagged B
  // (tag_even: the weight B would get if spread evenly over the sentence). The pair chosen has
  // the largest excess tag_weight − tag_even, among tags A with at least `min_queries` queries.
  int tag_from = -1, tag_to = -1;  // class ids; −1: no pair qualified
  float tag_weight = 0, tag_even = 0;
  std::string text;  // one line generated from the numbers above (DescribeHeadRole)
};

// Sums over sentences, then the roles. One counter per layer (the views show layer 1).
class HeadRoleCounter {
 public:
  HeadRoleCounter(int heads, int tags);

  // weights: `heads` matrices (n, n), row = query; tags: n class ids in [0, tags).
  // kShapeMismatch / kOutOfRange name the argument, the expected and the given; nothing is added then.
  Status Add(const std::vector<Matrix>& weights, const std::vector<int>& tags);

  int sentences() const { return sentences_; }

  // One role per head, with its text ("head 2 ..."). tag_names: `tags` entries; min_queries ≥ 1.
  Status Roles(const std::vector<std::string>& tag_names, int min_queries, std::vector<TaggedHeadRole>* roles) const;

 private:
  int heads_, tags_, sentences_ = 0;
  // Per head: sums of the shares. Per tag A (and head, key tag B): how many queries, their summed
  // weights on B and summed even shares of B.
  std::vector<double> previous_, next_, itself_;       // (heads)
  double position_even_ = 0;
  long previous_queries_ = 0, next_queries_ = 0, queries_ = 0;
  std::vector<long> tag_queries_;                      // (tags)
  std::vector<double> tag_weight_;                     // (heads, tags A, tags B) row-major
  std::vector<double> tag_even_;                       // (tags A, tags B)
};

// Roles on one sentence: weights heads × (n, n), tags n ids; min_queries 1. The page, live:
//   MeasureHeadRoles(tagged.weights, tagged.tags, heads.tags, &roles)   (the predicted tags)
Status MeasureHeadRoles(const std::vector<Matrix>& weights, const std::vector<int>& tags,
                        const std::vector<std::string>& tag_names, std::vector<TaggedHeadRole>* roles);

// One line from a role's numbers, nothing written per head. The head's best position (previous
// word, next word or itself) and its tag relation are each compared with their even share; the one
// that exceeds it by more leads:
//   "head 2 puts 0.61 of its weight on the previous word; strongest tag link: determiners → nouns (0.58)"
//   "head 4: determiners → nouns (0.58 of their weight, 0.21 if spread evenly); 0.30 on itself"
// and when neither exceeds it by 0.1: "head 3 spreads its weight (at most 0.12 on the next word)".
// `head` is 1-based. The 12 universal tags are written as plural words ("DET" → "determiners",
// "ADP" → "prepositions", "." → "punctuation"), other tag names as given.
std::string DescribeHeadRole(int head, const TaggedHeadRole& role, const std::vector<std::string>& tag_names);

// A universal tag as those plural words ("DET" → "determiners", "." → "punctuation"); another name as given.
std::string TagPlural(const std::string& tag);

// [SECTION] The trained tagger and its asset
struct HeldOutScores {
  uint32_t tokens = 0;            // held-out tokens scored
  float loss = 0;                 // mean cross-entropy of the stored (float16) model
  float accuracy = 0;             // of the stored model, in [0, 1]
  float baseline_word = 0;        // each word id's (lower-cased page token's) most frequent training tag
  float baseline_row = 0;         // each word-list row's, words the list lacks sharing one
  float baseline_majority = 0;    // the most frequent training tag for every token
};

struct TrainedHeads {
  attn::train::ModelConfig config;      // transformer, train_embedding false; vocab = the training vocabulary's size
  attn::train::ModelParameters params;  // every parameter but wte (empty): the page's vectors are the table
  std::vector<std::string> tags;        // config.classes names; a class id is its position ("NOUN", ..., "X")
  HeldOutScores held_out;
  std::vector<TaggedHeadRole> corpus_roles;   // config.heads entries: layer 1 on the held-out split, gold tags
};

// Parses heads-trained-brown.bin. kParseError names what is wrong (truncation, magic, a size or
// shape, a value that is not finite); bad bytes never crash and leave `out` untouched.
Status ParseTrainedHeads(const uint8_t* data, size_t size, TrainedHeads* out);

// The asset's bytes (parameters as float16, rounded to nearest even): ParseTrainedHeads gives the
// model back with its parameters rounded, and serialising that again gives the same bytes.
// kOutOfRange when a parameter does not fit float16 or a field its type.
Status SerializeTrainedHeads(const TrainedHeads& heads, std::vector<uint8_t>* bytes);

// [SECTION] Tagging a sentence
struct TaggedSentence {
  std::vector<int> tags;         // (n) the predicted class of each token
  Matrix probabilities;          // (n, classes) softmax of the read-out
  std::vector<Matrix> weights;   // heads × (n, n): layer 1's attention weights, row = query
};

// Runs the model with token table x and ids 0..n−1 (ModelForward, the engine's attention).
// x: (n, d_model), the page's vectors of the sentence (EmbedTokens), 1 ≤ n ≤ 256.
Status TagSentence(const TrainedHeads& heads, const Matrix& x, TaggedSentence* out);

// [SECTION] The trained layer as the views draw it
// Layer 1's engine configuration (heads, widths, RoPE, biases) and parameters: every head (view 5),
// or one head's slice of Wq, Wk, Wv and their biases, with no output projection (view 3). The
// engine's attn::Forward on the sentence's x with these gives the trained heads' weights exactly.
void TrainedLayer(const TrainedHeads& heads, attn::AttentionConfig* config, attn::AttentionParameters* params);
// head in [0, heads); kOutOfRange otherwise.
Status TrainedHead(const TrainedHeads& heads, int head, attn::AttentionConfig* config, attn::AttentionParameters* params);

}  // namespace lessons
