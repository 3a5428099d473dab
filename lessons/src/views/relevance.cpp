#include "lessons/views/relevance.h"

#include <chrono>

#include "attn/attention.h"
#include "lessons/view_kernel.h"

namespace lessons {

Status ComputeRelevance(const Sentence& sentence, const RelevanceState& state, RelevanceModel* out) {
  attn::AttentionInputs inputs;
  inputs.query = sentence.x;
  auto run = [&](int score, int normalizer, Matrix* weights) {
    attn::AttentionConfig config = ViewConfig();
    config.score = static_cast<attn::ScoreFunction>(score);
    config.normalizer = static_cast<attn::Normalizer>(normalizer);
    config.temperature = state.temperature;
    config.seed = static_cast<uint32_t>(state.seed);
    attn::AttentionResult result;
    ATTN_RETURN_IF_ERROR(attn::Forward(config, inputs, &result));
    *weights = std::move(result.heads[0].weights);
    return Status::Ok();
  };
  RelevanceModel m;
  for (int k = 0; k < RelevanceState::kShownScores; ++k) ATTN_RETURN_IF_ERROR(run(k, state.normalizer, &m.by_score[k]));
  for (int k = 0; k < RelevanceState::kShownNormalizers; ++k)
    ATTN_RETURN_IF_ERROR(run(state.score, k, &m.by_normalizer[k]));
  *out = std::move(m);
  return Status::Ok();
}

void SaturationJob::Start() {
  if (started_) return;
  started_ = true;
  const Status status = StartSaturationCurves(SaturationModel::kTokens, SaturationModel::kMaxLog2Dk, &model_.curves);
  if (!status.ok()) error_ = status.ToString();
}

Status SaturationJob::Step(double budget_ms) {
  TimeSlice slice(budget_ms);
  while (running() && slice.Next()) {
    const auto start = std::chrono::steady_clock::now();
    const Status status = SaturationColumn(SaturationModel::kTokens, next_, SaturationModel::kSeed, &model_.curves);
    model_.ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (!status.ok()) {
      error_ = status.ToString();
      return status;
    }
    ++next_;
  }
  return Status::Ok();
}

}  // namespace lessons
