// The baselines a language model must beat, fitted on the training stream and scored on the same
// predictions as the model (LmWindowStarts: every token of a stream but its first, each from the
// word before it): a unigram model and an interpolated Kneser–Ney bigram model. The unknown word is
// an ordinary id for both, as for the model (its probability is that of the whole class).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "attn/status.h"
#include "attn/train/lm_trainer.h"

namespace attn::train {

class NgramBaselines {
 public:
  // Counts `tokens` (ids in [0, vocab), at least two). Fails on an id out of range or a vocab < 2.
  Status Fit(const std::vector<int>& tokens, int vocab);

  // p(w) = c(w) / N, the training frequency (every id of a vocabulary drawn from the training
  // stream has c(w) ≥ 1; an id it never saw gets 0.5 / N, so nothing scores −log 0).
  double Unigram(int w) const;

  // Interpolated Kneser–Ney (Chen & Goodman 1998, one discount D = n₁ / (n₁ + 2 n₂) from the
  // bigram count-of-counts):
  //   p(w | v) = max(c(v w) − D, 0) / c(v ·) + D · N₁₊(v ·) / c(v ·) · p_cont(w)
  //   p_cont(w) = max(N₁₊(· w) − D, 0) / N₁₊(· ·) + D · |{w : N₁₊(· w) > 0}| / N₁₊(· ·) / V
  // (the continuation count: how many distinct words precede w, interpolated with the uniform
  // distribution so every id has a probability); a context never seen as a predecessor gives p_cont.
  double Bigram(int v, int w) const;

  // Both baselines' scores on `tokens` (every token but the first, from the one before it).
  Status Score(const std::vector<int>& tokens, LmScore* unigram, LmScore* bigram) const;

  double discount() const { return discount_; }

 private:
  int vocab_ = 0;
  int64_t total_ = 0;                               // N
  std::vector<int64_t> unigram_;                    // (V) c(w)
  std::vector<int64_t> context_;                    // (V) c(v ·)
  std::vector<int64_t> followers_;                  // (V) N₁₊(v ·)
  std::vector<int64_t> predecessors_;               // (V) N₁₊(· w)
  int64_t bigram_types_ = 0;                        // N₁₊(· ·)
  int64_t continued_words_ = 0;                     // |{w : N₁₊(· w) > 0}|
  std::unordered_map<int64_t, int64_t> bigram_;     // v·V + w -> c(v w)
  double discount_ = 0.75;
};

}  // namespace attn::train
