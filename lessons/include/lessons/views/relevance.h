// View 4: relevance functions and normalisers side by side on the same sentence, and the
// saturation curves that show why the dot product is divided by √d_k.
#pragma once

#include <array>

#include "lessons/saturation.h"
#include "lessons/views/sentence.h"

namespace lessons {

struct RelevanceModel {
  // (n, n) weights per relevance function (attn::ScoreFunction order), under state.normalizer.
  std::array<Matrix, RelevanceState::kShownScores> by_score;
  // (n, n) weights per normaliser (attn::Normalizer order), under state.score.
  std::array<Matrix, RelevanceState::kShownNormalizers> by_normalizer;
};

// q = k = v = the word vectors: the relevance function and the normaliser alone decide.
Status ComputeRelevance(const Sentence& sentence, const RelevanceState& state, RelevanceModel* out);

struct SaturationModel {
  static constexpr int kTokens = 32;  // per d_k: keeps the whole sweep well under 100 ms
  SaturationCurves curves;            // d_k = 2 … 1024
  double ms = 0;                      // how long the sweep took here
};

Status ComputeSaturation(SaturationModel* out);

}  // namespace lessons
