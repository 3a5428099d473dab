#include "lessons/timing_job.h"

#include <algorithm>

#include "attn/kernels.h"
#include "lessons/format.h"
#include "lessons/views/rnn.h"
#include "lessons/views/speed.h"
#include "wire.h"

namespace lessons {

double TimingFlops(const TimingBatch& batch) {
  switch (batch.kind) {
    case TimingKind::kSpeedLayer: return SpeedLab::Flops(batch.n);
    case TimingKind::kRnn: return RnnSpeedLab::RnnFlops(batch.n);
    case TimingKind::kRnnAttention: return RnnSpeedLab::AttentionFlops(batch.n);
    case TimingKind::kPeak: break;
  }
  return 0;
}

Status RunTimingBatch(const TimingBatch& batch, TimingResult* result) {
  static SpeedLab speed;  // seeded on first use, in this thread's module
  static RnnSpeedLab rnn;
  *result = {};
  switch (batch.kind) {
    case TimingKind::kSpeedLayer:
      ATTN_RETURN_IF_ERROR(speed.TimeBatch(static_cast<attn::KernelId>(batch.kernel), batch.n, batch.min_ms, &result->us));
      if (batch.want_output) result->output = speed.output();
      return Status::Ok();
    case TimingKind::kRnn: return rnn.TimeRnn(batch.n, batch.min_ms, &result->us);
    case TimingKind::kRnnAttention: return rnn.TimeAttention(batch.n, batch.min_ms, &result->us);
    case TimingKind::kPeak: result->gflops = SpeedLab::MeasurePeakGflops(batch.min_ms * 1e-3); return Status::Ok();
  }
  return Status(StatusCode::kUnknownOption, Format("timing kind: expected 0–%d, got %d", kTimingKinds - 1, static_cast<int>(batch.kind)));
}

JobUnit TimingUnit(const TimingBatch& batch) {
  JobUnit unit;
  unit.kind = JobUnitKind::kTimingBatch;
  unit.settings = {static_cast<int>(batch.kind), batch.kernel, batch.n, static_cast<int>(batch.min_ms * 1000.0 + 0.5),
                   batch.want_output ? 1 : 0};
  return unit;
}

Status RunTimingUnit(const JobUnit& unit, JobAnswer* answer) {
  const std::vector<int>& s = unit.settings;
  const auto bad = [](const char* what, const char* expected, int got) {
    return Status(StatusCode::kOutOfRange, Format("timing unit: %s: expected %s, got %d", what, expected, got));
  };
  if (s.size() != 5)
    return Status(StatusCode::kInvalidArgument,
                  Format("timing unit: settings: expected 5 (kind, kernel, n, min µs, output), got %d", static_cast<int>(s.size())));
  if (s[0] < 0 || s[0] >= kTimingKinds) return bad("kind", "0–3", s[0]);
  if (s[1] < 0 || s[1] >= static_cast<int>(attn::KernelId::kCount)) return bad("kernel", "a kernel id", s[1]);
  if (s[2] < 1 || s[2] > (1 << SpeedLab::kMaxLog2N)) return bad("n", "1–8192", s[2]);
  if (s[3] < 0 || s[3] > 1000000) return bad("min µs", "0–1000000", s[3]);
  if (s[4] != 0 && s[4] != 1) return bad("output", "0 or 1", s[4]);
  const TimingBatch batch{static_cast<TimingKind>(s[0]), s[1], s[2], s[3] * 1e-3, s[4] == 1};
  TimingResult result;
  ATTN_RETURN_IF_ERROR(RunTimingBatch(batch, &result));
  answer->value = batch.kind == TimingKind::kPeak ? result.gflops : result.us;
  if (result.output.size()) {
    wire::Writer w;
    w.MatrixValues(result.output);
    answer->bytes = std::move(w.out);
  }
  return Status::Ok();
}

TimingBatch TimingJob::WarmUp(const TimingBatch& b) {
  TimingBatch warm = b;
  warm.n = std::min(b.n, kWarmUpN);
  warm.want_output = false;
  return warm;
}

bool TimingJob::Cold(const TimingBatch& batch, int place) const {
  return batch.kind != TimingKind::kPeak && !warmed_[place].count(Layer(batch));
}

bool TimingJob::Apart(const Named& named) const {
  const TimingBatch& batch = named.batch;
  if (named.background) return true;
  if (batch.kind == TimingKind::kPeak) return batch.min_ms > kPageCallMs;
  const auto seen = slowest_gflops_.find(Layer(batch));
  if (seen == slowest_gflops_.end()) return batch.n > kWarmUpN;  // its first batch here tells the speed
  return std::max(TimingFlops(batch) / seen->second * 1e-6, batch.min_ms) > kPageCallMs;
}

void TimingJob::Learn(const TimingBatch& batch, const std::string& error, const TimingResult& result) {
  if (!error.empty() || !(result.us > 0) || batch.kind == TimingKind::kPeak) return;
  const double gflops = TimingFlops(batch) / result.us * 1e-3;
  auto [it, fresh] = slowest_gflops_.emplace(Layer(batch), gflops);
  if (!fresh) it->second = std::min(it->second, gflops);
}

bool TimingJob::running() const {
  if (out_) return false;  // its answer is awaited: nothing to do here meanwhile
  Named next;
  return shown_ && (Next(&next) || OwnDue());
}

Status TimingJob::Step(double /*budget_ms*/) {
  if (out_ || !shown_) return Status::Ok();
  Named next;
  const bool batch_due = Next(&next), own_due = OwnDue();
  if (own_due && (own_turn_ || !batch_due)) {
    own_turn_ = false;
    StepOwn();
    return Status::Ok();
  }
  if (!batch_due) return Status::Ok();
  own_turn_ = true;
  TimingResult result;
  if (Cold(next.batch, 0)) {  // this frame's call; the batch itself runs in the next
    if (RunTimingBatch(WarmUp(next.batch), &result).ok()) {
      warmed_[0].insert(Layer(next.batch));
      return Status::Ok();
    }
  }
  const Status status = RunTimingBatch(next.batch, &result);
  const std::string error = status.ok() ? std::string() : status.ToString();
  Learn(next.batch, error, result);
  Took(next, error, result);
  return Status::Ok();  // a batch that cannot be timed is the view's to show (Took), not the job's end
}

bool TimingJob::Claim(JobUnit* unit) {
  Named next;
  if (out_ || !shown_ || !Next(&next) || !Apart(next)) return false;
  out_warm_ = Cold(next.batch, 1);
  *unit = TimingUnit(out_warm_ ? WarmUp(next.batch) : next.batch);
  out_ = true, out_named_ = next;
  return true;
}

void TimingJob::Finish(const JobUnit& unit, const JobAnswer& answer) {
  if (!out_ || unit.kind != JobUnitKind::kTimingBatch) return;
  out_ = false;
  if (out_warm_) {
    if (answer.error.empty()) warmed_[1].insert(Layer(out_named_.batch));
    return;
  }
  TimingResult result;
  result.in_worker = true;
  (out_named_.batch.kind == TimingKind::kPeak ? result.gflops : result.us) = answer.value;
  if (!answer.bytes.empty()) {
    wire::Reader r(answer.bytes, "timing answer");
    if (!r.MatrixValues("output", &result.output)) result.output.resize(0, 0);
  }
  Learn(out_named_.batch, answer.error, result);
  Took(out_named_, answer.error, result);
}

void TimingJob::Release(const JobUnit& /*unit*/) { out_ = false; }  // the view names it again; it runs here

}  // namespace lessons
