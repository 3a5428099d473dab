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

Status DataSizeRunner::StartRun() {
  ATTN_RETURN_IF_ERROR(trainer_.Init(RunConfig(config_, current_.model, current_.size, current_.seed)));
  started_ = true;
  return Status::Ok();
}

Status DataSizeRunner::Next(int max_steps) {
  if (points_.empty()) return Status(StatusCode::kEmptyInput, "datasize runner: Init was not called");
  if (max_steps < 1) return OutOfRange("max_steps", max_steps, "≥ 1");
  if (done()) return Status::Ok();
  if (!started_) ATTN_RETURN_IF_ERROR(StartRun());
  const auto failed = [&](const Status& s) {
    return Status(s.code(), std::string(ModelKindName(current_.model)) + ", N = " +
                                std::to_string(current_.size) + ", seed " + std::to_string(current_.seed) + ", step " +
                                std::to_string(current_.step + 1) + ": " + s.message());
  };
  for (int i = 0; i < max_steps && current_.step < config_.steps; ++i) {
    StepStats stats;
    const Status s = trainer_.Step(&stats);
    if (!s.ok()) return failed(s);
    ++current_.step;
  }
  if (current_.step < config_.steps) return Status::Ok();
  Evaluation held_out;
  const Status s = trainer_.Evaluate(config_.eval_sequences, &held_out);
  if (!s.ok()) return failed(s);
  DataSizePoint& p = points_[Index(current_.model) * config_.sizes.size() + current_.size_index];
  p.accuracy.push_back(held_out.accuracy);
  const auto [lo, hi] = std::minmax_element(p.accuracy.begin(), p.accuracy.end());
  p.min = *lo, p.max = *hi;
  double sum = 0;
  for (float a : p.accuracy) sum += a;
  p.mean = static_cast<float>(sum / p.accuracy.size());
  ++runs_done_;
  started_ = false;
  if (!done()) current_ = RunAt(runs_done_);
  return Status::Ok();
}

float DataSizeRunner::progress() const {
  if (points_.empty()) return 0.0f;
  const double all = static_cast<double>(total_runs()) * config_.steps;
  const double made = static_cast<double>(runs_done_) * config_.steps + (done() ? 0 : current_.step);
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
