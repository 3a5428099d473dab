// The sentence every word view shares: its tokens and their vectors (GloVe, or hashed).
#pragma once

#include <string>
#include <vector>

#include "lessons/common.h"
#include "lessons/view_state.h"
#include "lessons/word_vectors.h"

namespace lessons {

struct Sentence {
  std::vector<std::string> tokens;
  std::vector<bool> known;  // false: not in the vocabulary (a stand-in vector)
  Matrix x;                 // (n, d) one row per token
  bool glove = false;       // x holds GloVe vectors
  std::string unknown_note; // "" or why the unknown tokens are unknown (UnknownWordsNote)
};

// Tokenises state.text and embeds it: with `vectors` when state.vectors is kGlove and the asset is
// loaded (non-null, non-empty), else with hashed vectors of width state.hash_dim.
// kEmptyInput when there is no word; kOutOfRange above SentenceState::kMaxTokens words.
Status ComputeSentence(const SentenceState& state, const WordVectors* vectors, Sentence* out);

}  // namespace lessons
