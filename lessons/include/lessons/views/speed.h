// View 14: the engine's forward pass timed where it runs — the layer of `npm run bench`
// (lessons/bench_layer.h) through attn::ForwardOutput — and view 5's recompute on the views' kernel.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "attn/attention.h"
#include "attn/kernels.h"
#include "lessons/common.h"
#include "lessons/timing_job.h"
#include "lessons/timing_samples.h"
#include "lessons/views/heads.h"

namespace lessons {

// Milliseconds per recompute of view 5, and how many recomputes the batch ran.
struct HeadsRecomputeTiming {
  double ms = 0;
  int runs = 0;
};

class SpeedLab {
 public:
  static constexpr int kMinLog2N = 4;
  // 2^13: one forward takes seconds there in a browser; `npm run bench` goes to 2^14.
  static constexpr int kMaxLog2N = 13;

  // Kernels that build every (n, n) intermediate stay small enough to keep a page responsive and
  // inside the wasm heap; the fused kernel goes to 2^kMaxLog2N.
  static int MaxLog2N(attn::KernelId kernel);
  // Whether the kernel runs the layer fused (no n×n matrix).
  static bool Fused(attn::KernelId kernel);
  // FLOPs of one forward: 2·n·d²·4 (the four projections) + 4·n²·d (QKᵀ and the weighted sums).
  static double Flops(int n);
  // Bytes of the (n, n) matrices every head keeps when every intermediate is returned: raw,
  // scaled, capped, masked scores and weights.
  static double IntermediateBytes(int n);

  // This core's multiply-add peak in GFLOP/s on the fastest kernel, measured for about `seconds`.
  static double MeasurePeakGflops(double seconds = 0.3);

  // Runs forwards of (kernel, n) for at least min_ms (one at least); *us = µs per forward.
  Status TimeBatch(attn::KernelId kernel, int n, double min_ms, double* us);
  const Matrix& output() const { return output_; }  // (n, d_model) of the last forward

  // View 5 as the page recomputes it after an edit: ComputeHeads on a sentence of `tokens` hashed
  // words of GloVe's width (100) with `heads` seeded heads (h.n=heads&h.tr=0), repeated for at
  // least min_ms (once at least). The engine's work only: no drawing, no texture upload.
  Status TimeHeadsRecompute(int tokens, int heads, double min_ms, HeadsRecomputeTiming* out);

 private:
  attn::AttentionParameters params_;  // seeded once
  std::map<int, Matrix> inputs_;      // x per n, seeded
  Matrix output_;
  Sentence heads_sentence_;      // the sentence view 5 is timed on (rebuilt when its length changes)
  HeadsModel heads_model_;       // the last recompute's model
  SeededHeads heads_seeded_;     // kept between recomputes, as view 5's panel keeps them
};

// One measured point of a sweep, and a sweep: (kernel, log2 n) -> timing.
struct SpeedTiming {
  double us = 0;      // median µs per forward
  double gflops = 0;  // FLOPs / time
  TimingSamples samples;  // the batches' µs per forward, whose median `us` is
};
using SpeedSweep = std::map<std::pair<int, int>, SpeedTiming>;

// A sweep as curves for a log-log plot of time against n.
struct SpeedCurves {
  Matrix log2_n;            // (m, 1) log2 n from lo to hi
  std::vector<Matrix> us;   // per kernel given: (m, 1) µs, NaN where not measured
  // (m, 1) c·n², through the point at the largest n any kernel measured: the slope the time
  // approaches once the n² work dominates. Empty when nothing was measured.
  Matrix n_squared;
};
SpeedCurves CurvesOfSweep(const SpeedSweep& sweep, const std::vector<attn::KernelId>& kernels, int lo_log2_n,
                          int hi_log2_n);

// View 14's timing, a job (lessons/timing_job.h): the shown setting's batches (live, or the first
// few), the sweep over every kernel, the peak when asked for, and view 5's recompute — the page's
// own work, so timed on the page's thread. The panel says what is shown and what was pressed, and
// draws what this holds; it times nothing. Each Step is one call: a batch, a warm-up or a recompute.
class SpeedJob : public TimingJob {
 public:
  static constexpr int kLiveSamples = 9;    // the window of live batches (and of view 5's recompute)
  static constexpr int kSweepBatches = 3;   // per point of the sweep: its median and range
  static constexpr int kSweepLo = 6, kSweepHi = 12;  // the sweep's n = 64 … 4096
  // Live timing repeats only while one forward is quicker than this (a core kept busy for seconds at a
  // time, for a number already known, drains a battery).
  static constexpr double kLiveLimitUs = 300000.0;
  static constexpr double kLiveBatchMs = 15.0, kSweepBatchMs = 10.0, kPeakMs = 150.0;
  // View 5's recompute (state h.n=8&h.tr=0): batches of ≥ 10 ms, one a Step, kHeadsSettleBatches of
  // them before the number stands (the browser installs its optimised code between frames).
  static constexpr int kHeadsTokens = 32, kHeadsCount = 8, kHeadsSettleBatches = 60;
  static constexpr double kHeadsBatchMs = 10.0, kHeadsWarmUpMs = 20.0;

  // The setting on screen, each frame the view draws: a new (kernel, n) starts its batches again.
  // The first batches of a setting: 3 (1 when live, which goes on); a forward over kLiveLimitUs is
  // timed well alone and stops them.
  void Show(attn::KernelId kernel, int n, bool live);
  // Every available kernel at n = 2^kSweepLo … 2^kSweepHi (as far as each goes), kSweepBatches each.
  void StartSweep();
  void MeasurePeak() { peak_wanted_ = true; }
  void TimeAgain() { live_ = {}; }
  // The sweep's (live timing has no end).
  float progress() const override { return sweep_batches_.progress(); }

  const TimingSamples& live() const { return live_; }       // µs per forward of the shown setting
  const Matrix& live_output() const { return live_output_; }  // (n, d_model) of its last forward
  bool live_in_worker() const { return live_in_worker_; }
  bool slow() const { return !live_.empty() && live_.us.back() > kLiveLimitUs; }
  const std::string& error() const { return error_; }  // the last batch's ("" when it went well)
  double peak_gflops() const { return peak_gflops_; }   // 0 until measured
  const TimingSamples& heads_ms() const { return heads_ms_; }  // ms per recompute, the last kLiveSamples batches
  int heads_runs() const;                                      // recomputes in those batches
  const TimingSweep& sweep_batches() const { return sweep_batches_; }
  const SpeedSweep& sweep() const { return sweep_; }
  const SpeedCurves& curves() const { return curves_; }

 protected:
  bool Next(Named* next) const override;
  void Took(const Named& named, const std::string& error, const TimingResult& result) override;
  bool OwnDue() const override;
  void StepOwn() override;

 private:
  enum Purpose { kLive, kSweep, kPeak };
  int shown_kernel_ = -1, shown_n_ = 0;  // none until the view drew
  bool shown_live_ = false;
  std::string error_;
  TimingSamples live_;
  Matrix live_output_;
  bool live_in_worker_ = false;
  bool peak_wanted_ = false;
  double peak_gflops_ = 0;
  TimingSweep sweep_batches_;
  SpeedSweep sweep_;
  SpeedCurves curves_;  // sweep_ as curves, remade when a point is added
  SpeedLab heads_lab_;  // view 5's recompute, timed here
  TimingSamples heads_ms_;
  std::vector<int> heads_runs_;  // recomputes in each of heads_ms_'s batches
  int heads_batches_timed_ = 0;
  bool heads_warmed_ = false, heads_failed_ = false;
};

}  // namespace lessons
