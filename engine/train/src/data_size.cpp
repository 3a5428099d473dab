#include "attn/train/data_size.h"

#include <algorithm>
#include <string>

namespace attn::train {
namespace {

Status OutOfRange(const std::string& what, long long got, const std::string& expected) {
  return Status(StatusCode::kOutOfRange, what + ": expected " + expected + ", got " + std::to_string(got));
}

// The trainer's config of one run.
TrainConfig RunConfig(const DataSizeConfig& c, ModelKind model, int size, int seed) {
  TrainConfig t;
  t.task = c.task;
  t.model = model == ModelKind::kTransformer ? c.transformer : c.cnn;
  t.optimizer = c.optimizer;
  t.batch_size = c.batch_size;
  t.train_set_size = size;
  t.seed = static_cast<uint32_t>(seed);
  return t;
}

int Index(ModelKind model) { return model == ModelKind::kTransformer ? 0 : 1; }

}  // namespace

ModelConfig DataSizeModel(ModelKind kind) {
  ModelConfig m;
  m.kind = kind;
  if (kind == ModelKind::kTransformer) {
    m.layers = 1, m.heads = 2, m.d_model = 24;
    m.positions = Positions::kLearned;
    m.layer_norm = m.mlp = true;
  } else {
    m.layers = 2, m.d_model = 36, m.kernel_size = 3;
    m.causal = true, m.pooled = false;
  }
  return m;
}

Status DataSizeRunner::Init(const DataSizeConfig& config) {
  const DataSizeConfig& c = config;
  if (c.sizes.empty()) return Status(StatusCode::kEmptyInput, "sizes: expected at least one N, got none");
  for (size_t i = 0; i < c.sizes.size(); ++i) {
    const std::string at = "sizes[" + std::to_string(i) + "]";
    if (c.sizes[i] < 1 || c.sizes[i] > (1 << 20)) return OutOfRange(at, c.sizes[i], "1–1048576");
    if (i > 0 && c.sizes[i] <= c.sizes[i - 1])
      return OutOfRange(at, c.sizes[i], "ascending, above " + std::to_string(c.sizes[i - 1]));
  }
  if (c.seeds < 1 || c.seeds > 64) return OutOfRange("seeds", c.seeds, "1–64");
  if (c.steps < 1 || c.steps > 10000000) return OutOfRange("steps", c.steps, "1–10000000");
  if (c.eval_sequences < 1 || c.eval_sequences > 65536) return OutOfRange("eval_sequences", c.eval_sequences, "1–65536");
  if (c.transformer.kind != ModelKind::kTransformer)
    return Status(StatusCode::kUnknownOption, std::string("transformer: kind: expected transformer, got ") +
                                                  ModelKindName(c.transformer.kind));
  if (c.cnn.kind != ModelKind::kCnn)
    return Status(StatusCode::kUnknownOption, std::string("cnn: kind: expected cnn, got ") + ModelKindName(c.cnn.kind));
  int64_t parameters[2];
  for (ModelKind model : {ModelKind::kTransformer, ModelKind::kCnn}) {
    TrainConfig resolved;
    ATTN_RETURN_IF_ERROR(ResolveTrainConfig(RunConfig(c, model, c.sizes.back(), 1), &resolved));
    parameters[Index(model)] = ParameterCount(resolved.model);
  }
  config_ = c;
  std::copy_n(parameters, 2, parameters_);
  points_.clear();
  for (ModelKind model : {ModelKind::kTransformer, ModelKind::kCnn}) {
    for (int size : c.sizes) {
      DataSizePoint p;
      p.model = model;
      p.size = size;
      points_.push_back(p);
    }
  }
  runs_done_ = 0;
  run_state_.assign(total_runs(), RunState::kOpen);
  run_accuracy_.assign(total_runs(), 0.0f);
  current_index_ = 0;
  current_ = RunAt(0);
  started_ = false;
  return Status::Ok();
}

DataSizeRun DataSizeRunner::RunAt(int i) const {
  const int sizes = static_cast<int>(config_.sizes.size());
  DataSizeRun r;
  r.seed = 1 + i / (2 * sizes);
  r.size_index = (i / 2) % sizes;
  r.size = config_.sizes[r.size_index];
  r.model = i % 2 == 0 ? ModelKind::kTransformer : ModelKind::kCnn;
  return r;
}

Status DataSizeRunner::StartRun(Trainer& trainer, const DataSizeRun& run) const {
  return trainer.Init(RunConfig(config_, run.model, run.size, run.seed));
}

Status DataSizeRunner::Advance(Trainer& trainer, DataSizeRun& run, int max_steps, bool* finished,
                               float* accuracy) const {
  *finished = false;
  const auto failed = [&](const Status& s) {
    return Status(s.code(), std::string(ModelKindName(run.model)) + ", N = " + std::to_string(run.size) + ", seed " +
                                std::to_string(run.seed) + ", step " + std::to_string(run.step + 1) + ": " + s.message());
  };
  for (int i = 0; i < max_steps && run.step < config_.steps; ++i) {
    StepStats stats;
    const Status s = trainer.Step(&stats);
    if (!s.ok()) return failed(s);
    ++run.step;
  }
  if (run.step < config_.steps) return Status::Ok();
  Evaluation held_out;
  const Status s = trainer.Evaluate(config_.eval_sequences, &held_out);
  if (!s.ok()) return failed(s);
  *finished = true;
  *accuracy = held_out.accuracy;
  return Status::Ok();
}

void DataSizeRunner::Record(int run, float accuracy) {
  run_accuracy_[run] = accuracy;
  run_state_[run] = RunState::kDone;
  ++runs_done_;
  // The point again from its finished runs, seed by seed: the same bits whatever order they came in.
  const DataSizeRun r = RunAt(run);
  DataSizePoint& p = points_[Index(r.model) * config_.sizes.size() + r.size_index];
  p.accuracy.clear();
  p.seeds.clear();
  double sum = 0;
  for (int seed = 1; seed <= config_.seeds; ++seed) {
    const int i = run - 2 * static_cast<int>(config_.sizes.size()) * (r.seed - seed);  // the same model and N
    if (run_state_[i] != RunState::kDone) continue;
    const float a = run_accuracy_[i];
    p.min = p.accuracy.empty() ? a : std::min(p.min, a);
    p.max = p.accuracy.empty() ? a : std::max(p.max, a);
    sum += a;
    p.accuracy.push_back(a);
    p.seeds.push_back(seed);
  }
  p.mean = static_cast<float>(sum / p.accuracy.size());
}

Status DataSizeRunner::Next(int max_steps) {
  if (points_.empty()) return Status(StatusCode::kEmptyInput, "datasize runner: Init was not called");
  if (max_steps < 1) return OutOfRange("max_steps", max_steps, "≥ 1");
  if (!started_) {
    const int open = FirstOpen();
    if (open < 0) return Status::Ok();  // every run is done or elsewhere
    current_index_ = open;
    current_ = RunAt(open);
    ATTN_RETURN_IF_ERROR(StartRun(trainer_, current_));
    run_state_[open] = RunState::kHere;
    started_ = true;
  }
  bool finished = false;
  float accuracy = 0;
  ATTN_RETURN_IF_ERROR(Advance(trainer_, current_, max_steps, &finished, &accuracy));
  if (!finished) return Status::Ok();
  Record(current_index_, accuracy);
  started_ = false;
  NameNextRun();
  return Status::Ok();
}

int DataSizeRunner::FirstOpen() const {
  const auto open = std::find(run_state_.begin(), run_state_.end(), RunState::kOpen);
  return open == run_state_.end() ? -1 : static_cast<int>(open - run_state_.begin());
}

void DataSizeRunner::NameNextRun() {
  const int open = FirstOpen();
  if (!started_ && open >= 0) current_ = RunAt(open);
}

bool DataSizeRunner::Claim(int* run) {
  const int open = FirstOpen();
  if (open < 0) return false;
  run_state_[open] = RunState::kClaimed;
  *run = open;
  NameNextRun();
  return true;
}

Status DataSizeRunner::CheckRun(int run) const {
  if (points_.empty()) return Status(StatusCode::kEmptyInput, "datasize runner: Init was not called");
  if (run < 0 || run >= total_runs()) return OutOfRange("run", run, "0–" + std::to_string(total_runs() - 1));
  return Status::Ok();
}

Status DataSizeRunner::RunAlone(int run, float* accuracy) const {
  ATTN_RETURN_IF_ERROR(CheckRun(run));
  Trainer trainer;
  DataSizeRun r = RunAt(run);
  ATTN_RETURN_IF_ERROR(StartRun(trainer, r));
  bool finished = false;
  ATTN_RETURN_IF_ERROR(Advance(trainer, r, config_.steps, &finished, accuracy));
  return Status::Ok();
}

Status DataSizeRunner::Accept(int run, float accuracy) {
  ATTN_RETURN_IF_ERROR(CheckRun(run));
  if (run_state_[run] != RunState::kClaimed)
    return Status(StatusCode::kOutOfRange, "run " + std::to_string(run) + ": expected a claimed run, got one " +
                                                    (run_state_[run] == RunState::kDone ? "already recorded" : "not claimed"));
  Record(run, accuracy);
  return Status::Ok();
}

void DataSizeRunner::Release(int run) {
  if (run >= 0 && run < total_runs() && run_state_[run] == RunState::kClaimed) run_state_[run] = RunState::kOpen;
}

bool DataSizeRunner::work_here() const { return started_ || FirstOpen() >= 0; }

int DataSizeRunner::runs_claimed() const {
  return static_cast<int>(std::count(run_state_.begin(), run_state_.end(), RunState::kClaimed));
}

float DataSizeRunner::progress() const {
  if (points_.empty()) return 0.0f;
  const double all = static_cast<double>(total_runs()) * config_.steps;
  const double made = static_cast<double>(runs_done_) * config_.steps + (started_ ? current_.step : 0);
  return static_cast<float>(made / all);
}

const DataSizePoint& DataSizeRunner::point(ModelKind model, int size_index) const {
  return points_[Index(model) * config_.sizes.size() + size_index];
}

int64_t DataSizeRunner::parameters(ModelKind model) const { return parameters_[Index(model)]; }

int Crossover(const std::vector<DataSizePoint>& points) {
  std::vector<const DataSizePoint*> transformer, cnn;
  for (const DataSizePoint& p : points) {
    if (p.accuracy.empty()) return 0;
    (p.model == ModelKind::kTransformer ? transformer : cnn).push_back(&p);
  }
  const auto by_size = [](const DataSizePoint* a, const DataSizePoint* b) { return a->size < b->size; };
  std::sort(transformer.begin(), transformer.end(), by_size);
  std::sort(cnn.begin(), cnn.end(), by_size);
  if (transformer.size() != cnn.size()) return 0;
  int from = 0;
  for (size_t i = transformer.size(); i-- > 0;) {
    if (transformer[i]->size != cnn[i]->size || !(transformer[i]->mean > cnn[i]->mean)) break;
    from = transformer[i]->size;
  }
  return from;
}

}  // namespace attn::train
