// Timing as a job (issue 29): the views that time the engine (9 RNN, 14 Speed) name batches — a
// sweep's points, a live setting, the peak — and a TimingJob runs them one at a time where they
// belong. The app steps it like any job (web/app/job_scheduler.h): a batch predicted to hold the
// page's thread past kPageCallMs goes to a Web Worker as a unit (the same RunTimingBatch there), a
// shorter one runs here, one per Step. Each layer's first batch in a place is a warm-up, not timed
// (the browser tiers the wasm up on it). Timing is for the view on screen: while its view is hidden
// a TimingJob names no new batch (one out in a worker still comes back).
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>

#include "lessons/job.h"
#include "lessons/timing_sweep.h"

namespace lessons {

// What a batch times.
enum class TimingKind {
  kSpeedLayer = 0,    // SpeedLab::TimeBatch: view 14's bench layer on `kernel`
  kRnn = 1,           // RnnSpeedLab::TimeRnn
  kRnnAttention = 2,  // RnnSpeedLab::TimeAttention
  kPeak = 3,          // SpeedLab::MeasurePeakGflops for min_ms
};
constexpr int kTimingKinds = 4;
struct TimingBatch {
  TimingKind kind = TimingKind::kSpeedLayer;
  int kernel = 0;  // attn::KernelId, for kSpeedLayer
  int n = 0;       // words (not for kPeak)
  double min_ms = 0;         // forwards are repeated for at least this long (one at least)
  bool want_output = false;  // keep the last forward's output (kSpeedLayer)
};
struct TimingResult {
  double us = 0;      // µs per forward
  double gflops = 0;  // kPeak: the measured multiply-add peak
  Matrix output;      // (n, d_model) when asked for, else empty
  bool in_worker = false;
};

// FLOPs of one forward of the batch's layer (0 for kPeak: its length is min_ms).
double TimingFlops(const TimingBatch& batch);
// Runs the batch on this thread with this module's labs (one per kind, seeded once and kept): what a
// worker runs for a kTimingBatch unit, so both give the same numbers.
Status RunTimingBatch(const TimingBatch& batch, TimingResult* result);
// A batch as a job unit and back: settings {kind, kernel, n, min µs, want_output}; the answer's value
// is µs per forward (kPeak: GFLOP/s), its bytes the output. Bad numbers: an error naming them.
JobUnit TimingUnit(const TimingBatch& batch);
Status RunTimingUnit(const JobUnit& unit, JobAnswer* answer);

class TimingJob : public Job {
 public:
  // A batch predicted to take longer than this on the page's thread would be felt: it goes to a worker.
  static constexpr double kPageCallMs = 100.0;
  // The warm-up's size (n), and the largest n run here before the layer's speed is known.
  static constexpr int kWarmUpN = 256;

  // A batch and what it is for, as the view named it; it comes back with what it gave (Took).
  struct Named {
    TimingBatch batch;
    int purpose = 0;          // the view's own tag (a live batch, a sweep point, …)
    TimingSweep::Point point;  // a sweep's point, where it is one
    // Nobody waits on it frame by frame (a sweep's batch): it goes to a worker whenever there is one,
    // so the page's frames do not share a core with it. Otherwise only when predicted to be long.
    bool background = false;
  };

  bool running() const override;
  // One batch here (or its layer's warm-up), or one piece of the view's own work (StepOwn).
  Status Step(double budget_ms) override;
  bool Claim(JobUnit* unit) override;
  void Finish(const JobUnit& unit, const JobAnswer& answer) override;
  void Release(const JobUnit& unit) override;
  void SetShown(bool shown) override { shown_ = shown; }

  bool shown() const { return shown_; }
  // A batch is out in a worker.
  bool in_flight() const { return out_; }
  const Named& out() const { return out_named_; }

 protected:
  // The batch to time next, if any.
  virtual bool Next(Named* next) const = 0;
  // What it gave: µs per forward (or the peak, or its output) — or why it could not be timed (error).
  virtual void Took(const Named& named, const std::string& error, const TimingResult& result) = 0;
  // Work the view runs only on this thread (view 14 times view 5's recompute, the page's own work):
  // whether a piece is due, and one piece of it. Steps alternate between it and the batches.
  virtual bool OwnDue() const { return false; }
  virtual void StepOwn() {}

 private:
  bool Apart(const Named& named) const;  // run in a worker (background, or predicted past kPageCallMs)
  void Learn(const TimingBatch& batch, const std::string& error, const TimingResult& result);
  static std::pair<int, int> Layer(const TimingBatch& b) { return {static_cast<int>(b.kind), b.kernel}; }
  static TimingBatch WarmUp(const TimingBatch& b);
  // The batch's layer has had no warm-up in `place` (0 here, 1 the worker): its warm-up runs first.
  bool Cold(const TimingBatch& batch, int place) const;

  bool shown_ = true;
  bool out_ = false;       // a unit is in a worker
  bool out_warm_ = false;  // and it is a warm-up
  Named out_named_;
  bool own_turn_ = false;  // the next Step goes to StepOwn when both are due
  std::map<std::pair<int, int>, double> slowest_gflops_;  // per layer: the lowest GFLOP/s measured
  std::set<std::pair<int, int>> warmed_[2];               // layers warmed up here (0) and in the worker (1)
};

}  // namespace lessons
