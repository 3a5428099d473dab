// Training the language model on a stream of word ids, and scoring it: random windows of the
// training stream, Adam with a linear warm-up then a cosine decay, held-out perplexity over
// consecutive windows. One thread, every draw seeded: the same config and stream give the same
// bytes on the same machine.
#pragma once

#include <cstdint>
#include <vector>

#include "attn/seeded_random.h"
#include "attn/status.h"
#include "attn/train/lm_model.h"
#include "attn/train/optimizer.h"

namespace attn::train {

struct LmTrainConfig {
  LmConfig model;             // model.seed is replaced by seed
  OptimizerConfig optimizer;  // Adam; its learning_rate is the peak of the schedule
  int batch_size = 16;        // windows of seq_len + 1 tokens per step (1–1024)
  int steps = 1000;           // the schedule's length (≥ 1)
  int warmup_steps = 100;     // linear warm-up from 0 to the peak (0 – steps)
  float final_lr_fraction = 0.1f;  // the cosine ends at this fraction of the peak, in [0, 1]
  uint32_t seed = 1;          // the parameters and the windows
};

// The rate at `step` (0-based) of the schedule: peak·(step+1)/warmup during the warm-up, then
// peak·(f + (1−f)·½(1 + cos(π·s))) with s the fraction of the decay done.
float LmLearningRate(const LmTrainConfig& config, int step);

struct LmStepStats {
  int step = 0;         // steps taken, this one included
  float loss = 0;       // mean cross-entropy of the batch before the update (nats)
  float grad_norm = 0;  // global gradient norm before clipping
  float learning_rate = 0;
};

class LmTrainer {
 public:
  // Checks the config and that every id of `tokens` is in [0, vocab) and that it holds more than
  // seq_len + 1 tokens; seeds the model. `tokens` must outlive the trainer. On error nothing changes.
  Status Init(const LmTrainConfig& config, const std::vector<int>* tokens);

  // One update on batch_size windows drawn uniformly from the stream.
  Status Step(LmStepStats* stats);

  const LmTrainConfig& config() const { return config_; }
  const ModelParameters& parameters() const { return params_; }
  int steps() const { return optimizer_.steps(); }

 private:
  LmTrainConfig config_;
  const std::vector<int>* tokens_ = nullptr;
  ModelParameters params_;
  Optimizer optimizer_{OptimizerConfig()};
  SeededRandom rng_{1};
  LmActivations acts_;
  ModelParameters grads_;
  Batch batch_;
};

struct LmScore {
  int64_t tokens = 0;   // predictions scored
  double nll = 0;       // their summed −log p (nats)
  double perplexity() const;  // exp(nll / tokens); 0 when nothing was scored
};

// How a stream is scored, the same for the model and the baselines: windows of seq_len + 1
// consecutive tokens overlapping by one (tokens[k·T … k·T + T]), the model reading the first T and
// predicting the last T; every token but the stream's first is predicted exactly once, the first
// of a window from that one word.   -> the windows' first index, ascending
std::vector<int64_t> LmWindowStarts(int64_t stream_length, int seq_len);

// The model's perplexity on `tokens` (ids in [0, vocab)) over LmWindowStarts, batch_size windows per
// forward pass.
Status LmEvaluate(const LmConfig& config, const ModelParameters& params, const std::vector<int>& tokens,
                  int batch_size, LmScore* out);

}  // namespace attn::train
