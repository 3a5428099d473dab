#include "lessons/views/data_size.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "lessons/format.h"

namespace lessons {
namespace {

using attn::train::DataSizePoint;
using attn::train::ModelKind;

}  // namespace

attn::train::DataSizeConfig DataSizeConfigFor(const DataSizeState& s) {
  attn::train::DataSizeConfig c;
  c.sizes.clear();
  for (int log2_n = 4; log2_n <= s.largest; log2_n += 2) c.sizes.push_back(1 << log2_n);
  if (c.sizes.back() != (1 << s.largest)) c.sizes.push_back(1 << s.largest);  // an odd largest still ends there
  c.seeds = s.seeds;
  c.steps = s.steps;
  c.eval_sequences = 256;  // 3,584 scored positions per run: ±0.01 at worst, and a short frame when a run ends
  return c;
}

Status DataSizeJob::Reset(const DataSizeState& state) {
  state_ = state;
  running_ = false;
  ++generation_;  // units of the last experiment still out are dropped when they come back
  const Status status = runner_.Init(DataSizeConfigFor(state));
  error_ = status.ok() ? "" : status.ToString();
  return status;
}

void DataSizeJob::Stop(const std::string& error) {
  error_ = error;
  running_ = false;
}

Status DataSizeJob::Step(double budget_ms) {
  if (!running()) return Status::Ok();
  // Two steps at a time (about 3 ms in WebAssembly); a call that ends a run also scores it.
  TimeSlice slice(budget_ms);
  while (runner_.work_here() && slice.Next()) {
    const Status status = runner_.Next(2);
    if (!status.ok()) {
      Stop(status.ToString());
      return status;
    }
  }
  return Status::Ok();
}

bool DataSizeJob::Claim(JobUnit* unit) {
  int run = 0;
  if (!running() || !runner_.Claim(&run)) return false;
  unit->kind = JobUnitKind::kDataSizeRun;
  unit->settings = {state_.seeds, state_.steps, state_.largest};
  unit->index = run;
  unit->generation = generation_;
  return true;
}

void DataSizeJob::Finish(const JobUnit& unit, const JobAnswer& answer) {
  if (unit.generation != generation_) return;
  if (!answer.error.empty()) return Stop(answer.error);
  const Status accepted = runner_.Accept(unit.index, static_cast<float>(answer.value));
  if (!accepted.ok()) Stop(accepted.ToString());
}

void DataSizeJob::Release(const JobUnit& unit) {
  if (unit.generation == generation_) runner_.Release(unit.index);
}

Status RunDataSizeUnit(const JobUnit& unit, double* value) {
  if (unit.settings.size() != 3)
    return Status(StatusCode::kShapeMismatch,
                  Format("data-size unit: settings: expected 3 (seeds, steps, largest), got %zu", unit.settings.size()));
  DataSizeState s;
  const int fields[] = {DataSizeState::kSeeds.min, DataSizeState::kSeeds.max, DataSizeState::kSteps.min,
                        DataSizeState::kSteps.max, DataSizeState::kLargest.min, DataSizeState::kLargest.max};
  const char* names[] = {"seeds", "steps", "largest"};
  for (int k = 0; k < 3; ++k) {
    const int v = unit.settings[k];
    if (v < fields[2 * k] || v > fields[2 * k + 1])
      return Status(StatusCode::kOutOfRange,
                    Format("data-size unit: %s: expected %d–%d, got %d", names[k], fields[2 * k], fields[2 * k + 1], v));
  }
  s.seeds = unit.settings[0], s.steps = unit.settings[1], s.largest = unit.settings[2];
  attn::train::DataSizeRunner runner;
  ATTN_RETURN_IF_ERROR(runner.Init(DataSizeConfigFor(s)));
  float accuracy = 0;
  ATTN_RETURN_IF_ERROR(runner.RunAlone(unit.index, &accuracy));
  *value = accuracy;
  return Status::Ok();
}

DataSizeCurves CurvesOfPoints(const attn::train::DataSizeRunner& runner) {
  const int sizes = static_cast<int>(runner.config().sizes.size());
  const float nan = std::numeric_limits<float>::quiet_NaN();
  DataSizeCurves c;
  c.log2_n.resize(sizes, 1);
  for (Matrix* m : {&c.transformer_mean, &c.transformer_min, &c.transformer_max, &c.cnn_mean, &c.cnn_min, &c.cnn_max})
    m->setConstant(sizes, 1, nan);
  for (int i = 0; i < sizes; ++i) {
    c.log2_n(i, 0) = std::log2(static_cast<float>(runner.config().sizes[i]));
    const DataSizePoint& t = runner.point(ModelKind::kTransformer, i);
    const DataSizePoint& k = runner.point(ModelKind::kCnn, i);
    if (!t.accuracy.empty()) c.transformer_mean(i, 0) = t.mean, c.transformer_min(i, 0) = t.min, c.transformer_max(i, 0) = t.max;
    if (!k.accuracy.empty()) c.cnn_mean(i, 0) = k.mean, c.cnn_min(i, 0) = k.min, c.cnn_max(i, 0) = k.max;
  }
  return c;
}

std::string DescribeDataSize(const attn::train::DataSizeRunner& runner) {
  const auto& sizes = runner.config().sizes;
  // Only the finished experiment: with seeds still running the means would change after the reader read them.
  if (!runner.done()) return "";
  for (const DataSizePoint& p : runner.points())
    if (p.accuracy.empty()) return "";
  const int last = static_cast<int>(sizes.size()) - 1;
  const DataSizePoint &t0 = runner.point(ModelKind::kTransformer, 0), &c0 = runner.point(ModelKind::kCnn, 0);
  const DataSizePoint &tn = runner.point(ModelKind::kTransformer, last), &cn = runner.point(ModelKind::kCnn, last);
  const int crossover = attn::train::Crossover(runner.points());
  char text[320];
  if (c0.mean > t0.mean && crossover > 0) {
    std::snprintf(text, sizeof(text),
                  "With %d training sequences the CNN is ahead, %.2f to %.2f; from %d on the transformer is ahead, "
                  "%.2f to %.2f at %d.",
                  sizes[0], c0.mean, t0.mean, crossover, tn.mean, cn.mean, sizes[last]);
  } else {
    std::snprintf(text, sizeof(text),
                  "No crossing in this run: at %d sequences the transformer has %.2f and the CNN %.2f; at %d, %.2f "
                  "and %.2f.",
                  sizes[0], t0.mean, c0.mean, sizes[last], tn.mean, cn.mean);
  }
  return text;
}

}  // namespace lessons
