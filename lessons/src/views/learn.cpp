#include "lessons/views/learn.h"

#include <algorithm>
#include <chrono>

#include "lessons/format.h"
#include "lessons/learn_wire.h"

namespace lessons {
namespace {

using attn::train::TaskKind;
using Clock = std::chrono::steady_clock;

constexpr uint32_t kProbeStream = 77;  // the probe sequence: its own stream of the seed

}  // namespace

float PrefixMatching(const LearnSnapshot& snapshot, int head) {
  if (head < 0 || head >= static_cast<int>(snapshot.roles.size())) return -1;
  return snapshot.roles[head].shares[static_cast<int>(attn::train::KeyKind::kAfterSame)];
}

float Copying(const LearnSnapshot& snapshot, int head) {
  if (head < 0 || head >= static_cast<int>(snapshot.circuits.heads.size())) return 0;
  return static_cast<float>(snapshot.circuits.heads[head].copying);
}

attn::train::TrainConfig LearnTrainConfig(const LearnState& s) {
  const auto task = static_cast<TaskKind>(std::clamp(s.task, 0, static_cast<int>(TaskKind::kCount) - 1));
  attn::train::TrainConfig c = attn::train::DefaultTrainConfig(task);
  c.model.layers = s.layers;
  c.model.heads = s.heads;
  c.model.mlp = s.mlp;
  c.model.positions = static_cast<attn::train::Positions>(s.positions);
  c.optimizer.kind = static_cast<attn::train::OptimizerKind>(s.optimizer);
  c.optimizer.learning_rate = s.learning_rate;
  c.model.scaled = s.scaled;
  c.model.sparsemax = s.normalizer == 1;
  c.seed = static_cast<uint32_t>(s.seed);
  c.data_seed = static_cast<uint32_t>(s.data_seed);
  return c;
}

const char* LearnWhatToWatch(TaskKind task) {
  switch (task) {
    case TaskKind::kPrevious:
      return "Each position must name the letter before it. Watch a head's map grow a line just below the diagonal: "
             "every letter looking one step back. It can form even with positions off: attention is causal, so a "
             "letter sees only the letters before it, and how many there are tells it where it is.";
    case TaskKind::kCopy:
      return "After the bar, the model writes the digits again. Watch a head look back to the digit it must write "
             "next: a line parallel to the diagonal, six steps back.";
    case TaskKind::kReverse:
      return "After the bar, the digits come back in reverse. Watch a head's line run the other way: the first "
             "answer looks at the last digit, the last answer at the first.";
    case TaskKind::kSort:
      return "After the bar, the digits come back sorted. No fixed offset works here: watch a head look at the "
             "smallest digit not yet written, wherever it is.";
    case TaskKind::kRecall:
      return "Pairs of a letter and a digit, then one letter again: answer its digit. Watch a layer-1 head look at "
             "the previous token (each digit learns its letter) and a layer-2 head jump from the last letter to "
             "the digit stored after its earlier copy: an induction head. It needs both layers.";
    case TaskKind::kPlusMinus:
      return "A sign, then digits: each answer is the previous digit plus this one (after +) or minus it (after -), "
             "mod 6. Watch one head keep looking back at the sign in the first column while another looks one step "
             "back at the previous digit.";
    default: return "";
  }
}

Status LearnLab::Reset(const LearnState& state) {
  attn::train::Trainer trainer;
  ATTN_RETURN_IF_ERROR(trainer.Init(LearnTrainConfig(state)));
  trainer_ = std::move(trainer);
  const int seq = trainer_.model().seq_len;
  attn::SeededRandom rng(attn::train::DataSeed(trainer_.config()), kProbeStream);
  probe_.assign(seq, 0);
  probe_targets_.assign(seq, 0);
  probe_scored_.assign(seq, 0.0f);
  attn::train::SampleSequence(task(), &rng, probe_.data(), probe_targets_.data(), probe_scored_.data());
  probe_text_.clear();
  for (int id : probe_) probe_text_.push_back(attn::train::TokenText(task(), id));
  losses_.clear();
  accuracies_.clear();
  snapshots_.clear();
  train_seconds_ = 0;
  trained_steps_ = 0;
  mirrored_rate_ = -1;
  return Snapshot();
}

bool LearnLab::SnapshotDue() const {
  if (snapshots_.empty()) return true;
  const int last = snapshots_.back().step;
  const int gap = std::min(kMaxSnapshotGap, std::max(25, last));  // 25, 50, 100, 200, 300, …
  return steps() - last >= gap;
}

Status LearnLab::Snapshot() {
  LearnSnapshot snap;
  snap.step = steps();
  attn::train::Batch probe;
  probe.size = 1;
  probe.seq_len = static_cast<int>(probe_.size());
  probe.ids = probe_;
  probe.targets = probe_targets_;
  probe.weights = probe_scored_;
  std::vector<std::vector<std::vector<Matrix>>> weights;
  std::vector<std::vector<Matrix>> inputs;
  ATTN_RETURN_IF_ERROR(trainer_.Attend(probe, &weights, &snap.predictions, &inputs));
  snap.weights = std::move(weights[0]);
  snap.inputs = std::move(inputs[0]);
  snap.parameters.blocks.resize(trainer_.parameters().blocks.size());
  {
    const auto from = KeptMatrices(trainer_.parameters());
    const auto to = KeptMatrices(snap.parameters);
    for (size_t i = 0; i < from.size(); ++i) *to[i] = *from[i];
  }
  ATTN_RETURN_IF_ERROR(attn::train::MeasureHeadRoles(trainer_, kRoleSequences, &snap.roles));
  attn::train::Evaluation held_out;
  ATTN_RETURN_IF_ERROR(trainer_.Evaluate(kHeldOut, &held_out));
  snap.held_out_accuracy = held_out.accuracy;
  snap.held_out_loss = held_out.loss;
  snap.position_loss = std::move(held_out.position_loss);
  snap.position_scored = std::move(held_out.position_scored);
  const attn::train::ModelConfig& model = trainer_.model();
  ATTN_RETURN_IF_ERROR(attn::train::ComputeCircuits(
      model, trainer_.parameters(), attn::train::ClassOfToken(task(), model.vocab, model.classes), &snap.circuits));
  Keep(std::move(snap));
  return Status::Ok();
}

void LearnLab::Keep(LearnSnapshot snapshot) {
  snapshots_.push_back(std::move(snapshot));
  if (static_cast<int>(snapshots_.size()) > kMaxSnapshots) {  // keep the first, thin the rest
    std::vector<LearnSnapshot> kept;
    for (size_t i = 0; i < snapshots_.size(); ++i)
      if (i == 0 || i % 2 == 1 || i + 1 == snapshots_.size()) kept.push_back(std::move(snapshots_[i]));
    snapshots_ = std::move(kept);
  }
}

double LearnLab::steps_per_second() const {
  if (mirrored_rate_ >= 0) return mirrored_rate_;
  return train_seconds_ > 0 ? trained_steps_ / train_seconds_ : 0;
}

Status LearnLab::Apply(LearnDelta delta) {
  if (snapshots_.empty()) return Status(StatusCode::kEmptyInput, "learn delta: the lab was not reset");
  if (delta.from_step != steps())
    return Status(StatusCode::kShapeMismatch, Format("learn delta: from_step: expected %d, got %d", steps(), delta.from_step));
  if (delta.accuracies.size() != delta.losses.size())
    return Status(StatusCode::kShapeMismatch, Format("learn delta: accuracies: expected %zu, got %zu", delta.losses.size(),
                                                     delta.accuracies.size()));
  const LearnSnapshot& first = snapshots_.front();
  const int last_step = delta.from_step + static_cast<int>(delta.losses.size());
  int previous = snapshots_.back().step;
  for (const LearnSnapshot& snap : delta.snapshots) {
    // What the panel indexes: as many layers (maps, inputs, parameters), heads per layer and
    // predictions over the probe as this lab's model has; steps in order.
    bool fits = snap.step > previous && snap.step <= last_step && snap.weights.size() == first.weights.size() &&
                snap.inputs.size() == first.inputs.size() &&
                snap.parameters.blocks.size() == first.parameters.blocks.size() &&
                snap.predictions.size() == probe_.size() && snap.roles.size() == first.roles.size() &&
                snap.circuits.heads.size() == first.circuits.heads.size() &&
                snap.circuits.compositions.size() == first.circuits.compositions.size() &&
                snap.position_loss.size() == first.position_loss.size() &&
                snap.position_scored.size() == first.position_loss.size();
    for (size_t i = 0; fits && i < snap.circuits.heads.size(); ++i) {
      const auto &got = snap.circuits.heads[i], &want = first.circuits.heads[i];
      fits = got.qk.rows() == want.qk.rows() && got.qk.cols() == want.qk.cols() && got.ov.rows() == want.ov.rows() &&
             got.ov.cols() == want.ov.cols() && got.qk_positions.rows() == want.qk_positions.rows() &&
             got.qk_positions.cols() == want.qk_positions.cols();
    }
    for (size_t i = 0; fits && i < snap.roles.size(); ++i) fits = snap.roles[i].shares.size() == first.roles[i].shares.size();
    if (fits) {
      const auto got = KeptMatrices(snap.parameters), want = KeptMatrices(first.parameters);
      for (size_t i = 0; fits && i < got.size(); ++i) fits = got[i]->rows() == want[i]->rows() && got[i]->cols() == want[i]->cols();
    }
    for (size_t l = 0; fits && l < snap.weights.size(); ++l) fits = snap.weights[l].size() == first.weights[l].size();
    if (!fits)
      return Status(StatusCode::kShapeMismatch, Format("learn delta: the snapshot at step %d does not fit the lab's model", snap.step));
    previous = snap.step;
  }
  losses_.insert(losses_.end(), delta.losses.begin(), delta.losses.end());
  accuracies_.insert(accuracies_.end(), delta.accuracies.begin(), delta.accuracies.end());
  for (LearnSnapshot& snap : delta.snapshots) Keep(std::move(snap));
  mirrored_rate_ = std::max(0.0, delta.steps_per_second);
  return Status::Ok();
}

Matrix LearnLab::Curves(int bins) const {
  const int n = static_cast<int>(losses_.size());
  const int rows = std::min(n, std::max(1, bins));
  Matrix curves(rows, 3);
  for (int r = 0; r < rows; ++r) {
    const int begin = static_cast<int>(static_cast<long>(n) * r / rows), end = static_cast<int>(static_cast<long>(n) * (r + 1) / rows);
    float loss = 0, accuracy = 0;
    MeanOver(begin, end, &loss, &accuracy);
    curves.row(r) << static_cast<float>(end), loss, accuracy;
  }
  return curves;
}

void LearnLab::MeanOver(int begin, int end, float* loss, float* accuracy) const {
  double loss_sum = 0, accuracy_sum = 0;
  for (int i = begin; i < end; ++i) loss_sum += losses_[i], accuracy_sum += accuracies_[i];
  const int count = std::max(1, end - begin);
  *loss = static_cast<float>(loss_sum / count);
  *accuracy = static_cast<float>(accuracy_sum / count);
}

Status LearnLab::Train(double budget_ms, int until) {
  Status status;
  // A step is begun only if it should end inside the budget (the first always is): frames stay short.
  TimeSlice slice(budget_ms);
  while (steps() < until && slice.Next()) {
    const Clock::time_point step_start = Clock::now();
    attn::train::StepStats stats;
    status = trainer_.Step(&stats);
    if (!status.ok()) break;
    train_seconds_ += std::chrono::duration<double>(Clock::now() - step_start).count();
    ++trained_steps_;
    losses_.push_back(stats.loss);
    accuracies_.push_back(stats.accuracy);
    if (SnapshotDue()) {
      status = Snapshot();
      break;  // a snapshot costs a few steps' time: it ends the slice
    }
  }
  return status;
}

std::string LearnSettingsKey(LearnState state) {
  state.steps = 0;
  state.compare = state.compare_value = state.circuit_head = 0;  // run B's and the view's: not this run's
  return FieldsKey(state);
}

Status LearnJob::Reset(const LearnState& state) {
  until_ = 0;
  continuous_ = false;
  slice_out_ = false;
  follow_to_ = -1;
  ++generation_;
  state_ = state;
  settings_ = LearnSettingsKey(state);
  const Status status = lab_.Reset(state);
  error_ = status.ok() ? "" : status.ToString();
  return status;
}

void LearnJob::TrainTo(int until, bool continuous) {
  until_ = until;
  continuous_ = continuous;
}

void LearnJob::TakeBack() {
  if (!lab_.mirror()) return;
  // The model was in a worker that is gone: the lab here retrains it from the seed (the same steps,
  // the same snapshots), toward the same target.
  const Status status = lab_.Reset(state_);
  if (!status.ok()) error_ = status.ToString();
}

Status LearnJob::Step(double budget_ms) {
  if (!running()) return Status::Ok();
  TakeBack();
  if (!error_.empty()) return Status::Ok();
  const Status status = lab_.Train(budget_ms, until_);
  if (!status.ok()) error_ = status.ToString();
  return status;
}

bool LearnJob::Claim(JobUnit* unit) {
  if (!running() || slice_out_) return false;
  unit->kind = JobUnitKind::kLearnSlice;
  unit->text = settings_;
  unit->settings = {lab_.steps(), until_, kWorkerSliceMs};
  unit->index = 0;
  unit->generation = generation_;
  slice_out_ = true;
  return true;
}

void LearnJob::Finish(const JobUnit& unit, const JobAnswer& answer) {
  if (unit.generation != generation_) return;
  slice_out_ = false;
  if (!answer.error.empty()) {
    error_ = answer.error;  // the worker's training failed: the job stops, as a failed step here stops it
    return;
  }
  LearnDelta delta;
  Status status = ReadLearnDelta(answer.bytes, &delta);
  if (status.ok()) status = lab_.Apply(std::move(delta));
  if (!status.ok()) error_ = status.ToString();
  if (lab_.steps() > until_) until_ = follow_to_ = lab_.steps();
}

void LearnJob::Release(const JobUnit& unit) {
  if (unit.generation != generation_) return;
  slice_out_ = false;
  TakeBack();
}

Status LearnRunsJob::Step(double budget_ms) {
  const bool a = a_.running(), b = compared_ && b_.running();
  const double share = a && b ? budget_ms / 2 : budget_ms;
  Status status;
  if (a) status = a_.Step(share);
  if (b) {
    const Status b_status = b_.Step(share);
    if (status.ok()) status = b_status;
  }
  return status;
}

bool LearnRunsJob::Claim(JobUnit* unit) {
  for (int turn = 0; turn < 2; ++turn) {
    const int index = (last_claimed_ + 1 + turn) % 2;
    if (index == 1 && !compared_) continue;
    if (Run(index)->Claim(unit)) {
      unit->index = last_claimed_ = index;
      return true;
    }
  }
  return false;
}

void LearnRunsJob::Finish(const JobUnit& unit, const JobAnswer& answer) {
  if (LearnJob* run = Run(unit.index)) run->Finish(unit, answer);
}

void LearnRunsJob::Release(const JobUnit& unit) {
  if (LearnJob* run = Run(unit.index)) run->Release(unit);
}

Status RunLearnSlice(const JobUnit& unit, std::string* bytes) {
  // Per module (each worker its own), kept between slices: the labs of the last two runs trained
  // here, so runs A and B taking turns in one worker each go on from where their last slice ended.
  struct KeptLab {
    std::string settings;
    LearnLab lab;
  };
  static KeptLab kept[2];
  static int last_used = 0;
  if (unit.settings.size() != 3)
    return Status(StatusCode::kShapeMismatch,
                  Format("learn slice: settings: expected 3 (from_step, until, budget_ms), got %zu", unit.settings.size()));
  const int from = unit.settings[0], until = unit.settings[1], budget_ms = unit.settings[2];
  const int max_steps = LearnState::kSteps.max;
  if (from < 0 || until < from || until > max_steps || budget_ms < 0 || budget_ms > 10000)
    return Status(StatusCode::kOutOfRange, Format("learn slice: expected 0 ≤ from_step ≤ until ≤ %d and a budget of "
                                                  "0–10000 ms, got %d, %d, %d", max_steps, from, until, budget_ms));
  int slot = kept[0].settings == unit.text ? 0 : kept[1].settings == unit.text ? 1 : 1 - last_used;
  last_used = slot;
  LearnLab& lab = kept[slot].lab;
  std::string& settings = kept[slot].settings;
  if (unit.text != settings || lab.steps() > from || lab.snapshots().empty()) {
    ViewState view;
    ParseState(unit.text, &view);  // read back as a link is: a bad value is clamped
    settings.clear();
    ATTN_RETURN_IF_ERROR(lab.Reset(view.learn));
    settings = unit.text;
  }
  while (lab.steps() < from) ATTN_RETURN_IF_ERROR(lab.Train(1e9, from));  // a new worker catching up
  ATTN_RETURN_IF_ERROR(lab.Train(budget_ms, until));
  *bytes = WriteLearnDelta(lab, from);
  return Status::Ok();
}

void LearnJob::WriteState(ViewState* state) const {
  if (continuous_ || !error_.empty() || follow_to_ >= 0) state->learn.steps = lab_.steps();
  follow_to_ = -1;
}

}  // namespace lessons
