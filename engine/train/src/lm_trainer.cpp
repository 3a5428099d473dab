#include "attn/train/lm_trainer.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "model_support.h"

namespace attn::train {
namespace {

Status CheckStream(const LmConfig& c, const std::vector<int>& tokens, const char* what) {
  for (size_t i = 0; i < tokens.size(); ++i)
    if (tokens[i] < 0 || tokens[i] >= c.vocab)
      return Status(StatusCode::kOutOfRange, std::string("lm: ") + what + "[" + std::to_string(i) +
                                                 "]: expected an id in [0, " + std::to_string(c.vocab) + "), got " +
                                                 std::to_string(tokens[i]));
  return Status::Ok();
}

// The windows starting at `starts` (each seq_len + 1 long, or `length` + 1 for the last), as one
// batch: inputs are a window's first tokens, targets the ones after them, all scored.
void FillBatch(const std::vector<int>& tokens, const std::vector<int64_t>& starts, int length, Batch* batch) {
  batch->size = static_cast<int>(starts.size());
  batch->seq_len = length;
  batch->ids.clear();
  batch->targets.clear();
  for (const int64_t s : starts)
    for (int t = 0; t < length; ++t) {
      batch->ids.push_back(tokens[static_cast<size_t>(s + t)]);
      batch->targets.push_back(tokens[static_cast<size_t>(s + t + 1)]);
    }
  batch->weights.assign(batch->ids.size(), 1.0f);
}

}  // namespace

float LmLearningRate(const LmTrainConfig& c, int step) {
  const float peak = c.optimizer.learning_rate;
  if (step < c.warmup_steps) return peak * static_cast<float>(step + 1) / static_cast<float>(c.warmup_steps);
  const int decay = std::max(1, c.steps - c.warmup_steps);
  const float s = std::min(1.0f, static_cast<float>(step - c.warmup_steps) / static_cast<float>(decay));
  const float f = c.final_lr_fraction;
  return peak * (f + (1 - f) * 0.5f * (1 + std::cos(3.14159265358979f * s)));
}

Status LmTrainer::Init(const LmTrainConfig& config, const std::vector<int>* tokens) {
  LmTrainConfig c = config;
  c.model.seed = c.seed;
  ATTN_RETURN_IF_ERROR(ValidateLmConfig(c.model));
  ATTN_RETURN_IF_ERROR(ValidateOptimizerConfig(c.optimizer));
  if (c.batch_size < 1 || c.batch_size > 1024) return OutOfRange("lm: batch_size", c.batch_size, "1–1024");
  if (c.steps < 1) return OutOfRange("lm: steps", c.steps, "≥ 1");
  if (c.warmup_steps < 0 || c.warmup_steps > c.steps)
    return OutOfRange("lm: warmup_steps", c.warmup_steps, ("0–" + std::to_string(c.steps) + " (steps)").c_str());
  if (!(c.final_lr_fraction >= 0 && c.final_lr_fraction <= 1))
    return Status(StatusCode::kOutOfRange, "lm: final_lr_fraction: expected in [0, 1], got " +
                                               std::to_string(c.final_lr_fraction));
  if (!tokens || tokens->size() <= static_cast<size_t>(c.model.seq_len) + 1)
    return Status(StatusCode::kInvalidArgument, "lm: tokens: expected more than seq_len + 1 = " +
                                                    std::to_string(c.model.seq_len + 1) + " ids, got " +
                                                    std::to_string(tokens ? tokens->size() : 0));
  ATTN_RETURN_IF_ERROR(CheckStream(c.model, *tokens, "tokens"));
  config_ = c;
  tokens_ = tokens;
  params_ = InitializeLm(c.model);
  optimizer_ = Optimizer(c.optimizer);
  rng_ = SeededRandom(c.seed, 1000);  // apart from the parameters' streams
  return Status::Ok();
}

Status LmTrainer::Step(LmStepStats* stats) {
  if (!tokens_) return Status(StatusCode::kInvalidArgument, "lm: Step before a successful Init");
  const int seq = config_.model.seq_len;
  const uint32_t choices = static_cast<uint32_t>(tokens_->size() - static_cast<size_t>(seq));  // starts 0 … size − T − 1
  std::vector<int64_t> starts(static_cast<size_t>(config_.batch_size));
  for (int64_t& s : starts) s = rng_.Below(choices);
  FillBatch(*tokens_, starts, seq, &batch_);
  ATTN_RETURN_IF_ERROR(LmForward(config_.model, params_, batch_, &acts_));
  ATTN_RETURN_IF_ERROR(LmBackward(config_.model, params_, batch_, acts_, &grads_));
  const float lr = LmLearningRate(config_, optimizer_.steps());
  optimizer_.set_learning_rate(lr);
  const float norm = optimizer_.Step(&params_, grads_);
  if (stats) *stats = {optimizer_.steps(), acts_.loss, norm, lr};
  return Status::Ok();
}

double LmScore::perplexity() const { return tokens > 0 ? std::exp(nll / static_cast<double>(tokens)) : 0.0; }

std::vector<int64_t> LmWindowStarts(int64_t length, int seq_len) {
  std::vector<int64_t> starts;
  for (int64_t s = 0; s + 1 < length; s += seq_len) starts.push_back(s);
  return starts;
}

Status LmEvaluate(const LmConfig& config, const ModelParameters& params, const std::vector<int>& tokens,
                  int batch_size, LmScore* out) {
  ATTN_RETURN_IF_ERROR(ValidateLmConfig(config));
  ATTN_RETURN_IF_ERROR(CheckStream(config, tokens, "tokens"));
  if (batch_size < 1 || batch_size > 1024) return OutOfRange("lm: batch_size", batch_size, "1–1024");
  const int64_t n = static_cast<int64_t>(tokens.size());
  const std::vector<int64_t> all = LmWindowStarts(n, config.seq_len);
  LmScore score;
  LmActivations acts;
  Batch batch;
  std::vector<int64_t> starts;
  for (size_t i = 0; i < all.size();) {
    // Full windows batch_size at a time; the stream's last, shorter window alone.
    const int length = static_cast<int>(std::min<int64_t>(config.seq_len, n - 1 - all[i]));
    starts.clear();
    while (i < all.size() && starts.size() < static_cast<size_t>(batch_size) &&
           std::min<int64_t>(config.seq_len, n - 1 - all[i]) == length)
      starts.push_back(all[i++]);
    FillBatch(tokens, starts, length, &batch);
    ATTN_RETURN_IF_ERROR(LmForward(config, params, batch, &acts));
    score.nll += static_cast<double>(acts.loss) * acts.scored;
    score.tokens += acts.scored;
  }
  *out = score;
  return Status::Ok();
}

}  // namespace attn::train
