// View 11: a small transformer trained in the page on a toy task (attn::train), in time slices so
// the page keeps drawing. Keeps what the view draws: loss and accuracy per step, held-out accuracy,
// every head's weights on one probe sequence at snapshots from initialisation on, and each head's
// measured role.
#pragma once

#include <string>
#include <vector>

#include "attn/train/circuits.h"
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
  // The model then, all but its MLPs (KeptMatrices): what the maps and the circuits are computed from.
  attn::train::ModelParameters parameters;
  std::vector<int> predictions;              // (T) the model's answer at each position
  std::vector<attn::train::HeadRole> roles;  // layers·heads, measured on held-out sequences
  float held_out_accuracy = 0;
  float held_out_loss = 0;                   // the same kHeldOut sequences' mean cross-entropy
  std::vector<float> position_loss;          // (T) their loss at each position (Evaluation's)
  std::vector<int> position_scored;          // (T) how many were scored there (0: never)
  attn::train::Circuits circuits;            // every head's QK and OV circuits, every pair's composition
};

// The matrices a snapshot keeps of a model, in one order (the wire's, and Apply's shape check):
// wte, wpe, lnf γ β, out_w, out_b, then each block's LN1 γ β and attention parameters.
template <typename P>  // attn::train::ModelParameters, const or not
auto KeptMatrices(P& p) {
  std::vector<decltype(&p.wte)> out = {&p.wte, &p.wpe, &p.lnf_gamma, &p.lnf_beta, &p.out_w, &p.out_b};
  for (auto& b : p.blocks)
    for (auto* m : {&b.ln1_gamma, &b.ln1_beta, &b.attention.wq, &b.attention.wk, &b.attention.wv, &b.attention.wo,
                    &b.attention.bq, &b.attention.bk, &b.attention.bv, &b.attention.bo})
      out.push_back(m);
  return out;
}

// A head's scores at a snapshot (layers·heads, layer by layer): prefix matching — the mean share of
// its weight on the token after an earlier copy of the query's token (MeasureHeadRoles' "after
// same"; −1 where the task never has one) — and copying, read off its OV circuit (circuits.h).
float PrefixMatching(const LearnSnapshot& snapshot, int head);
float Copying(const LearnSnapshot& snapshot, int head);

// What a lab trained in a Web Worker sends the page's mirror of it after a slice (learn_wire.h): the
// steps after `from_step` and the snapshots taken after it (a snapshot ends a slice, so one at most,
// except when a new worker first catches up to the page).
struct LearnDelta {
  int from_step = 0;
  std::vector<float> losses, accuracies;  // steps from_step + 1, …
  std::vector<LearnSnapshot> snapshots;   // in the order taken
  double steps_per_second = 0;            // the trained lab's
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

  int steps() const { return static_cast<int>(losses_.size()); }
  attn::train::TaskKind task() const { return trainer_.config().task; }
  const attn::train::Trainer& trainer() const { return trainer_; }
  // The curves to draw: steps in at most `bins` equal runs, each its last step, mean batch loss
  // and mean batch accuracy (columns: step, loss, accuracy).   -> (min(steps, bins), 3)
  Matrix Curves(int bins) const;
  // The mean batch loss and accuracy of steps begin + 1 … end (0 ≤ begin < end ≤ steps()): one point
  // of the curves, Curves' or another step axis's (learn_microscope.h's MakeLearnCurves).
  void MeanOver(int begin, int end, float* loss, float* accuracy) const;
  float last_loss() const { return losses_.empty() ? 0.0f : losses_.back(); }
  const std::vector<LearnSnapshot>& snapshots() const { return snapshots_; }
  const std::vector<int>& probe() const { return probe_; }      // (T) token ids
  const std::vector<int>& probe_targets() const { return probe_targets_; }
  const std::vector<float>& probe_scored() const { return probe_scored_; }
  const std::vector<std::string>& probe_text() const { return probe_text_; }
  // Steps per second over the training so far (time inside Train only; a mirror's: its worker's).
  double steps_per_second() const;

  // Training elsewhere: the lab in the worker sends the steps after the page's (learn_wire.h's
  // WriteLearnDelta); the page's lab, Reset from the same state and never trained itself, Applies
  // them and draws the same curves and snapshots (kept, and thinned, as the trained lab keeps them).
  // An error when the delta does not start at steps() or its snapshots do not fit the model.
  Status Apply(LearnDelta delta);
  const std::vector<float>& losses() const { return losses_; }          // per step
  const std::vector<float>& accuracies() const { return accuracies_; }  // per step
  bool mirror() const { return mirrored_rate_ >= 0; }

 private:
  Status Snapshot();
  void Keep(LearnSnapshot snapshot);  // appends, thinning the old ones past kMaxSnapshots
  bool SnapshotDue() const;

  attn::train::Trainer trainer_;
  std::vector<float> losses_, accuracies_;  // per step (step i + 1 at index i)
  std::vector<LearnSnapshot> snapshots_;
  std::vector<int> probe_, probe_targets_;
  std::vector<float> probe_scored_;
  std::vector<std::string> probe_text_;
  double train_seconds_ = 0;
  int trained_steps_ = 0;
  double mirrored_rate_ = -1;  // a mirror's steps per second (its worker's); −1: trained here
};

// The state's settings without its step target, as text: what a lab is seeded and configured from.
std::string LearnSettingsKey(LearnState state);

// View 11's training as a job: toward the state's step (a link being replayed, Step), or on and on
// while Train is pressed, the state's step following it (WriteState). The app steps it whichever view
// is shown, so training goes on while the reader looks elsewhere. Where a worker can take it, the
// training runs there in slices (Claim: one at a time, kWorkerSliceMs each, RunLearnSlice) and the
// lab here is its mirror (LearnLab::Apply); if the worker dies, the lab here retrains from the seed.
class LearnJob : public Job {
 public:
  // A slice in a worker: long enough that the round trip between slices costs little, short enough
  // that the curves move several times a second.
  static constexpr int kWorkerSliceMs = 60;

  // Starts over from the state's settings, stopped. On error the job keeps its error and nothing runs.
  Status Reset(const LearnState& state);
  // Train toward step `until`; `continuous`: the reader pressed Train (until is the last step a link can name).
  void TrainTo(int until, bool continuous);
  bool running() const override { return error_.empty() && !lab_.snapshots().empty() && lab_.steps() < until_; }
  // Pressed Train, and still training.
  bool continuous() const { return continuous_ && running(); }
  Status Step(double budget_ms) override;
  float progress() const override { return until_ > 0 ? static_cast<float>(lab_.steps()) / until_ : 1.0f; }
  bool Claim(JobUnit* unit) override;
  void Finish(const JobUnit& unit, const JobAnswer& answer) override;
  void Release(const JobUnit& unit) override;
  // Training in a worker now (the lab here mirrors it).
  bool in_worker() const { return lab_.mirror() || slice_out_; }
  // While training continuously (or after a failed step), the state's step is the lab's: a link made
  // now retrains to here.
  void WriteState(ViewState* state) const override;

  const LearnLab& lab() const { return lab_; }
  const std::string& error() const { return error_; }

 private:
  void TakeBack();  // a mirror whose worker is gone: retrain here from the seed

  LearnLab lab_;
  LearnState state_;       // what the lab was reset from
  std::string settings_;   // LearnSettingsKey(state_)
  int until_ = 0;
  bool continuous_ = false;
  bool slice_out_ = false;  // a slice is in a worker
  // A slice came back past the target (Pause or Step pressed while it trained): the state's step
  // follows it once (WriteState), so the panel does not take it for a link asking for an earlier step.
  mutable int follow_to_ = -1;
  int generation_ = 0;      // bumps on Reset: a slice of an earlier lab is dropped
  std::string error_;
};

// View 11's runs as one job: run A, the state's, and — while the state compares (LearnState::compare)
// — run B beside it (learn_microscope.h's RunBState), both toward the same step. A unit carries the
// run it belongs to in its index (0: A, 1: B); the two take turns at the worker, which keeps both
// models (RunLearnSlice).
class LearnRunsJob : public Job {
 public:
  LearnJob& a() { return a_; }
  LearnJob& b() { return b_; }
  const LearnJob& a() const { return a_; }
  const LearnJob& b() const { return b_; }
  // Whether run B trains (and is drawn).
  void SetCompared(bool compared) { compared_ = compared; }
  bool compared() const { return compared_; }

  bool running() const override { return a_.running() || (compared_ && b_.running()); }
  Status Step(double budget_ms) override;  // the budget shared by the runs still training
  float progress() const override { return a_.progress(); }
  bool Claim(JobUnit* unit) override;
  void Finish(const JobUnit& unit, const JobAnswer& answer) override;
  void Release(const JobUnit& unit) override;
  void WriteState(ViewState* state) const override { a_.WriteState(state); }  // the link follows run A

 private:
  LearnJob* Run(int index) { return index == 1 ? &b_ : index == 0 ? &a_ : nullptr; }
  LearnJob a_, b_;
  bool compared_ = false;
  int last_claimed_ = 1;  // the run whose slice went out last: the other goes next
};

// A slice of training in a worker (RunJobUnit's kLearnSlice): the worker's lab (kept between calls)
// reset when the settings differ or it is past from_step, trained up to from_step if it is behind
// (a new worker catching up), then for budget_ms toward until; *bytes = WriteLearnDelta(lab, from_step).
// The worker keeps the labs of the last two settings it trained (runs A and B).
Status RunLearnSlice(const JobUnit& unit, std::string* bytes);

}  // namespace lessons
