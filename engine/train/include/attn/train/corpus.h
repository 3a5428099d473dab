// The Brown corpus as scripts/prepare-brown.mjs prepares it (.cache/brown/brown-upos.bin, layout
// ATTNPOS2 in that script's header): the page's tokens, lower-cased, with their universal tags, in
// a training split and a held-out split (every 10th document). Build-time and test tools read it
// (attnlab_train_brown, attnlab_train_lm, `attnlab lm-eval`); the page never does.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attn/status.h"

namespace attn::train {

struct Split {
  std::vector<uint32_t> offsets;  // (S + 1) where each sentence starts in words, then K
  std::vector<int> words, tags;   // (K) ids into Corpus::vocabulary and Corpus::tags
  int sentences() const { return static_cast<int>(offsets.size()) - 1; }
  int length(int s) const { return static_cast<int>(offsets[s + 1] - offsets[s]); }
};

struct Corpus {
  std::vector<std::string> tags;        // (12) the universal tags
  std::vector<std::string> vocabulary;  // the distinct lower-cased tokens of both splits, most frequent first
  Split train, held_out;
};

// A file's bytes; empty when it cannot be read.
std::vector<uint8_t> ReadFile(const std::string& path);

// Parses brown-upos.bin; kParseError naming the part and the byte offset on anything malformed.
Status ReadCorpus(const std::vector<uint8_t>& bytes, Corpus* corpus);

// The language model's view of the corpus: a vocabulary of the training split's `vocab` − 1 most
// frequent words (ties in code-unit order) and the unknown word last (kLmUnknownWord), and both splits as
// streams of its ids (sentences one after another, documents in corpus order).
struct LmStreams {
  std::vector<std::string> vocabulary;  // (vocab)
  std::vector<int> train, held_out;     // ids in [0, vocab); vocab − 1 for every other word
};
// kOutOfRange when vocab is outside 2 – (the training split's distinct words + 1).
Status MakeLmStreams(const Corpus& corpus, int vocab, LmStreams* out);

}  // namespace attn::train
