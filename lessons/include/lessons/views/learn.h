// View 11: a small transformer trained in the page on a toy task (attn::train), in time slices so
// the page keeps drawing. Keeps what the view draws: loss and accuracy per step, held-out accuracy,
// every head's weights on one probe sequence at snapshots from initialisation on, and each head's
// measured role.
#pragma once

#include <string>
#include <vector>

#include "attn/train/head_roles.h"
#include "attn/train/trainer.h"
#include "lessons/common.h"
#include "lessons/job.h"
#include "lessons/view_state.h"

namespace lessons {

// The trainer's settings for the view's state (d = 32, LayerNorm, batches of 32).
attn::train::TrainConfig LearnTrainConfig(const LearnState& state);

// What to look for while the task trains, in one or two plain sentences.
const char* LearnWhatToWatch(attn::train::TaskKind task);

struct LearnSnapshot {
  int step = 0;                              // steps taken when it was taken
  std::vector<std::vector<Matrix>> weights;  // layers × heads × (T, T) on the probe sequence
  std::vector<Matrix> inputs;                // layers × (T, d): what each attention layer saw
  std::vector<attn::AttentionParameters> attention;  // layers: Wq Wk Wv Wo and biases then
  std::vector<int> predictions;              // (T) the model's answer at each position
  std::vector<attn::train::HeadRole> roles;  // layers·heads, measured on held-out sequences
  float held_out_accuracy = 0;
};

class LearnLab {
 public:
  // Steps between snapshots double from 25 up to this, so the early changes are all kept.
  static constexpr int kMaxSnapshotGap = 100;
  static constexpr int kMaxSnapshots = 64;  // then every other old one is dropped
  // Held-out sequences per snapshot, and for the head roles: one forward each, a few steps' time.
  static constexpr int kHeldOut = 128;
  static constexpr int kRoleSequences = 16;

  // Starts over from the state's settings: seeded model, empty curves, the first snapshot.
  Status Reset(const LearnState& state);
  // Trains for about budget_ms (at least one step; no step begun that the last one's time says
  // would end past it), not past step `until`; a snapshot when one falls due ends the slice.
  // Returns the error of a failed step (the lab keeps what it had).
  Status Train(double budget_ms, int until);

  int steps() const { return trainer_.steps(); }
  attn::train::TaskKind task() const { return trainer_.config().task; }
  const attn::train::Trainer& trainer() const { return trainer_; }
  // The curves to draw: steps in at most `bins` equal runs, each its last step, mean batch loss
  // and mean batch accuracy (columns: step, loss, accuracy).   -> (min(steps, bins), 3)
  Matrix Curves(int bins) const;
  float last_loss() const { return losses_.empty() ? 0.0f : losses_.back(); }
  const std::vector<LearnSnapshot>& snapshots() const { return snapshots_; }
  const std::vector<int>& probe() const { return probe_; }      // (T) token ids
  const std::vector<int>& probe_targets() const { return probe_targets_; }
  const std::vector<float>& probe_scored() const { return probe_scored_; }
  const std::vector<std::string>& probe_text() const { return probe_text_; }
  // Steps per second over the training so far (time inside Train only).
  double steps_per_second() const { return train_seconds_ > 0 ? trained_steps_ / train_seconds_ : 0; }

 private:
  Status Snapshot();
  bool SnapshotDue() const;

  attn::train::Trainer trainer_;
  std::vector<float> losses_, accuracies_;  // per step (step i + 1 at index i)
  std::vector<LearnSnapshot> snapshots_;
  std::vector<int> probe_, probe_targets_;
  std::vector<float> probe_scored_;
  std::vector<std::string> probe_text_;
  double train_seconds_ = 0;
  int trained_steps_ = 0;
};

// View 11's training as a job: toward the state's step (a link being replayed, Step), or on and on
// while Train is pressed, the state's step following it (WriteState). The app steps it whichever view
// is shown, so training goes on while the reader looks elsewhere.
class LearnJob : public Job {
 public:
  // Starts over from the state's settings, stopped. On error the job keeps its error and nothing runs.
  Status Reset(const LearnState& state);
  // Train toward step `until`; `continuous`: the reader pressed Train (until is the last step a link can name).
  void TrainTo(int until, bool continuous);
  bool running() const override { return error_.empty() && !lab_.snapshots().empty() && lab_.steps() < until_; }
  // Pressed Train, and still training.
  bool continuous() const { return continuous_ && running(); }
  Status Step(double budget_ms) override;
  float progress() const override { return until_ > 0 ? static_cast<float>(lab_.steps()) / until_ : 1.0f; }
  // While training continuously (or after a failed step), the state's step is the lab's: a link made
  // now retrains to here.
  void WriteState(ViewState* state) const override;

  const LearnLab& lab() const { return lab_; }
  const std::string& error() const { return error_; }

 private:
  LearnLab lab_;
  int until_ = 0;
  bool continuous_ = false;
  std::string error_;
};

}  // namespace lessons
