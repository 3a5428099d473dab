// Learning curves over the size of the training set: one task learned by a transformer and by a
// CNN from N fixed sequences, for each N of a list, scored on held-out sequences, several seeds per
// N. Both models get the same steps, batches and optimizer at every N and similar parameter counts,
// so what changes along the curve is only how much data there is. On plusminus (tasks.h) the
// curves cross: the CNN's locality (one filter shared by every position) wins with little data,
// attention (free to look anywhere, so it has more to learn) wins with a lot.
//
// The page runs it a slice at a time (Next(steps) per frame, progress() for its bar) and hands whole
// runs to its Web Workers (Claim, RunAlone there, Accept); the CLI (attnlab datasize) runs it all.
// Runs go seed by seed — seed 1 at every N, both models, then seed 2, … — so both rough curves are
// there after the first seed and the later seeds refine them.
//
// Measured at the defaults (seeds 1–3; held-out accuracy, mean [min, max]; 7,998 and 8,358
// parameters; 13–16 s natively, 31 s in WebAssembly under node; a step ≈ 1.3 ms natively):
//        N   transformer            cnn
//       16   0.214 [0.201, 0.232]   0.495 [0.462, 0.521]
//       64   0.481 [0.393, 0.537]   0.666 [0.663, 0.669]
//      256   0.999 [0.998, 0.999]   0.691 [0.689, 0.695]
//     1024   1.000 [0.999, 1.000]   0.683 [0.682, 0.684]
//     4096   1.000 [1.000, 1.000]   0.680 [0.672, 0.687]
// With 2000 steps and 5 seeds the crossing moves to between 64 and 128 and the CNN levels off at
// 0.738, the most it can reach (tasks.h: 3 of the 14 scored positions see the sign, at best 2/3 of
// the others are right).
#pragma once

#include <cstdint>
#include <vector>

#include "attn/status.h"
#include "attn/train/model.h"
#include "attn/train/optimizer.h"
#include "attn/train/tasks.h"
#include "attn/train/trainer.h"

namespace attn::train {

// The models of the comparison (vocab, classes, seq_len and seed are set per run):
//   transformer: 1 block, 2 heads, d = 24, learned absolute positions (the weakest bias about
//                where to look), LayerNorm, ReLU MLP
//   cnn:         2 causal Conv1d layers of 3 taps, 36 channels, ReLU, no pooling (a window of 5
//                positions: t − 4 … t)
ModelConfig DataSizeModel(ModelKind kind);

struct DataSizeConfig {
  TaskKind task = TaskKind::kPlusMinus;
  std::vector<int> sizes = {16, 64, 256, 1024, 4096};  // N, ascending, each 1–1048576
  int seeds = 3;             // runs per (model, N), seeds 1…seeds: 1–64
  int steps = 600;           // updates per run, the same for both models and every N: 1–10000000
  int batch_size = 16;       // sequences per update (drawn from the N with replacement): 1–1024
  int eval_sequences = 512;  // held-out sequences scoring a run (the same ones for both models at a seed): 1–65536
  ModelConfig transformer = DataSizeModel(ModelKind::kTransformer);  // kind must be kTransformer
  ModelConfig cnn = DataSizeModel(ModelKind::kCnn);                  // kind must be kCnn
  OptimizerConfig optimizer;  // both models: Adam at 3e-3, clipping at 1
};

// One point of one curve.
struct DataSizePoint {
  ModelKind model = ModelKind::kTransformer;
  int size = 0;                 // N
  std::vector<float> accuracy;  // held-out accuracy of each finished seed, in seed order
  std::vector<int> seeds;       // the seed of each entry of `accuracy`, ascending
  // Over `accuracy`, summed in seed order (0 while it is empty): the same bits whatever order the
  // runs finished in.
  float mean = 0, min = 0, max = 0;
};

// The run Next works on.
struct DataSizeRun {
  ModelKind model = ModelKind::kTransformer;
  int size = 0;        // N
  int size_index = 0;  // of N in config.sizes
  int seed = 1;        // 1…seeds
  int step = 0;        // updates made, 0…steps
};

class DataSizeRunner {
 public:
  // Checks every field (each model as Trainer::Init would, at the largest N) and starts before the
  // first run. On error nothing changes.
  Status Init(const DataSizeConfig& config);

  // At most `max_steps` (≥ 1) updates of the current run, never going on into the next one: the
  // run that reaches config.steps is scored on held-out sequences, its accuracy joins its point,
  // and the next call starts the next run. When done(), Ok and nothing happens. A failed step
  // (training diverged) returns its status, prefixed with the run.
  // Next works on the lowest-numbered run nobody has claimed.
  Status Next(int max_steps);

  // Spreading the runs (the page's Web Workers). Every run is trained from its own seed and scored
  // alone, so it can run anywhere: Claim hands out the lowest-numbered run not started (false when
  // none is left), which Next then leaves alone; RunAlone, on a runner Init'ed with the same config,
  // computes it; Accept records its accuracy; Release gives a claimed run back (its worker died).
  // The points are the same bits however the runs were sliced, spread or ordered.
  bool Claim(int* run);
  // Trains run `run` (0 ≤ run < runs()) from its seed and scores it, as Next would: *accuracy is the
  // held-out accuracy. Touches nothing of this runner's progress.
  Status RunAlone(int run, float* accuracy) const;
  // A claimed run's accuracy (from RunAlone); a run not claimed, or already recorded, is an error.
  Status Accept(int run, float accuracy);
  void Release(int run);

  bool done() const { return runs_done_ == total_runs(); }
  int runs() const { return total_runs(); }
  int runs_done() const { return runs_done_; }
  int runs_claimed() const;  // claimed and not yet accepted or released
  // Whether Next has anything to do: a run begun here, or one nobody has claimed.
  bool work_here() const;
  // Run i: seed i / (2·sizes), then size, then model (transformer first). 0 ≤ i < runs() (unchecked).
  DataSizeRun RunAt(int i) const;
  // Updates made / all updates (2 models × sizes × seeds × steps), in [0, 1].
  float progress() const;
  const DataSizeRun& current() const { return current_; }
  const DataSizeConfig& config() const { return config_; }
  // 2 × sizes points: the transformer's curve, then the CNN's, each in size order. A point has as
  // many accuracies as its seeds have finished.
  const std::vector<DataSizePoint>& points() const { return points_; }
  // The point of `model` at config.sizes[size_index], 0 ≤ size_index < sizes (unchecked).
  const DataSizePoint& point(ModelKind model, int size_index) const;
  // Trained numbers of each model on the task (ParameterCount).
  int64_t parameters(ModelKind model) const;

 private:
  enum class RunState : char { kOpen, kHere, kClaimed, kDone };
  int total_runs() const { return 2 * static_cast<int>(config_.sizes.size()) * config_.seeds; }
  // At most max_steps updates of `run` on `trainer` (Init'ed for it); at config.steps it is scored:
  // *finished and *accuracy. Errors are prefixed with the run. Next and RunAlone both go through it.
  Status Advance(Trainer& trainer, DataSizeRun& run, int max_steps, bool* finished, float* accuracy) const;
  Status StartRun(Trainer& trainer, const DataSizeRun& run) const;
  void Record(int run, float accuracy);  // a finished run: its point remade
  Status CheckRun(int run) const;        // Init was called and 0 ≤ run < runs()
  int FirstOpen() const;                 // the lowest run nobody has begun, or −1
  void NameNextRun();                    // not started here: current_ is the run Next would take

  DataSizeConfig config_;
  std::vector<DataSizePoint> points_;
  int64_t parameters_[2] = {0, 0};
  int runs_done_ = 0;
  std::vector<RunState> run_state_;  // per run
  std::vector<float> run_accuracy_;  // per run, once kDone
  int current_index_ = 0;  // of current_ in RunAt's order
  DataSizeRun current_;
  Trainer trainer_;
  bool started_ = false;  // trainer_ holds the current run
};

// The smallest N from which the transformer's mean accuracy is above the CNN's at every N up to
// the largest; 0 when the CNN's is the higher or equal at the largest N (or a point has no seed yet).
int Crossover(const std::vector<DataSizePoint>& points);

}  // namespace attn::train
