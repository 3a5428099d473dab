// View 4: relevance functions and normalisers side by side on the same sentence, and the
// saturation curves that show why the dot product is divided by √d_k.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "lessons/job.h"
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
  static constexpr int kTokens = 32;     // per d_k: keeps the whole sweep well under 100 ms
  static constexpr int kMaxLog2Dk = 10;  // d_k = 2 … 1024
  static constexpr uint32_t kSeed = 1;
  SaturationCurves curves;               // NaN where not computed yet
  double ms = 0;                         // how long the sweep took here, its pieces added up
};

// The saturation sweep as a job (lessons/job.h): one d_k a piece (SaturationColumn), so no frame
// holds the whole sweep; the same numbers as SaturationSweep(kTokens, kMaxLog2Dk, kSeed).
class SaturationJob : public Job {
 public:
  void Start();  // once: the sweep depends on nothing the reader sets
  bool started() const { return started_; }
  bool done() const { return started_ && next_ > SaturationModel::kMaxLog2Dk; }
  bool running() const override { return started_ && !done() && error_.empty(); }
  Status Step(double budget_ms) override;
  float progress() const override { return started_ ? static_cast<float>(next_ - 1) / SaturationModel::kMaxLog2Dk : 0.0f; }
  const SaturationModel& model() const { return model_; }
  const std::string& error() const { return error_; }

 private:
  bool started_ = false;
  int next_ = 1;  // the next column's log2 d_k
  SaturationModel model_;
  std::string error_;
};

}  // namespace lessons
