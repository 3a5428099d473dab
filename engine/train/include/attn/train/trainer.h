// The training loop: a task, a model and an optimizer, stepped one batch at a time (the page runs
// a few steps per frame; the CLI runs them all), with held-out evaluation and the attention maps
// of any sequence.
#pragma once

#include <cstdint>
#include <vector>

#include "attn/seeded_random.h"
#include "attn/status.h"
#include "attn/train/model.h"
#include "attn/train/optimizer.h"
#include "attn/train/tasks.h"

namespace attn::train {

struct TrainConfig {
  TaskKind task = TaskKind::kRecall;
  ModelConfig model;  // vocab, classes and seq_len are the task's; model.seed is replaced by seed
  OptimizerConfig optimizer;
  int batch_size = 32;     // sequences per step, 1–1024
  int train_set_size = 0;  // 0: fresh sequences every step; N > 0: N fixed sequences, drawn with replacement
  uint32_t seed = 1;       // the parameters, the training data and the held-out data
  // The training and held-out data's seed when not 0 (then `seed` seeds the parameters alone): two
  // runs from different initialisations on the same sequences.
  uint32_t data_seed = 0;
};

// The seed the data of `config` is drawn from: data_seed, or seed when it is 0.
inline uint32_t DataSeed(const TrainConfig& config) { return config.data_seed ? config.data_seed : config.seed; }

// The config Trainer::Init would train: model fields the task's, model.seed = seed; fails on an
// unknown task, a bad model or optimizer, a batch size outside 1–1024 or a training-set size outside
// 0–1048576 (the message names the field, the range and the value), and with kResourceExhausted
// when TrainingBytes passes attn::Limits::max_call_bytes (1 GiB natively, 512 MiB in WebAssembly;
// the message names d_model, heads, layers, batch_size and train_set_size). Nothing is sampled.
Status ResolveTrainConfig(const TrainConfig& config, TrainConfig* resolved);

// An upper bound of the bytes a Trainer of `config` (as ResolveTrainConfig resolved it) holds at
// once: the parameters, their gradients and the optimizer's moments, a fixed training set, one
// batch's activations through a step (or an evaluation chunk, or Attend on up to
// kMaxAttendSequences), the engine's per-sequence backward pass. From the sizes alone, nothing
// allocated; checked against counted allocations (tests/train/train_alloc_test.cpp, train_fuzz).
int64_t TrainingBytes(const TrainConfig& config);

// Evaluate scores its held-out sequences this many at a time (the same sequences, in order), so
// its memory does not grow with their number.
constexpr int kEvaluationChunk = 256;
// The most sequences TrainingBytes counts for Attend (MeasureHeadRoles asks for 64).
constexpr int kMaxAttendSequences = 64;

// The held-out sequences Evaluate scores, all at once: the first `sequences` of their own stream of
// (config.seed, config.task), none of them in training. For a model exported and run elsewhere
// (tests/train/learn_probe.cpp) to be scored on exactly these.
Batch HeldOutBatch(const TrainConfig& config, int sequences);

// The default model of the Learn view and the CLI: 2 layers, 2 heads, d = 32, learned positions,
// LayerNorm, no MLP (attention only); Adam at 3e-3, clipping at 1, batches of 32.
TrainConfig DefaultTrainConfig(TaskKind task);

struct StepStats {
  int step = 0;          // steps taken, this one included
  float loss = 0;        // mean cross-entropy of the batch (before the update)
  float accuracy = 0;    // fraction of the batch's scored positions predicted right
  float grad_norm = 0;   // global gradient norm before clipping
};

struct Evaluation {
  float loss = 0;
  float accuracy = 0;
  int scored = 0;  // positions scored
  // (T) the mean loss at each position of the sequence over the sequences scored there, and how
  // many were (0: the task never scores that position; its loss is then 0): where an induction
  // head shows, as the late positions' loss falling below the early ones'.
  std::vector<float> position_loss;
  std::vector<int> position_scored;
};

class Trainer {
 public:
  // Checks the config (model, optimizer, batch size) and seeds the model. On error nothing changes.
  Status Init(const TrainConfig& config);

  // One update on one batch.
  Status Step(StepStats* stats);

  // Loss and accuracy on `sequences` held-out sequences (their own seeded stream: the same
  // sequences on every call, none of them in a fixed training set).
  Status Evaluate(int sequences, Evaluation* out) const;

  // Every head's weights on each sequence of `batch`: sequences × layers × heads × (T, T), and the
  // model's prediction at each position (B·T); optionally each layer's attention input
  // (sequences × layers × (T, d), after LayerNorm: what attn::Forward saw). One forward pass.
  Status Attend(const Batch& batch, std::vector<std::vector<std::vector<Matrix>>>* weights,
                std::vector<int>* predictions, std::vector<std::vector<Matrix>>* layer_inputs = nullptr) const;

  const TrainConfig& config() const { return config_; }
  const ModelConfig& model() const { return config_.model; }
  const ModelParameters& parameters() const { return params_; }
  int steps() const { return optimizer_.steps(); }

 private:
  Batch NextBatch();

  TrainConfig config_;
  ModelParameters params_;
  Optimizer optimizer_{OptimizerConfig()};
  SeededRandom data_rng_{1};
  Batch train_set_;  // when config_.train_set_size > 0
};

}  // namespace attn::train
