// View 14: the engine's forward pass timed in the reader's browser — µs, GFLOP/s and the share of
// this core's measured SIMD peak, for the fused kernel and the ones that build every intermediate.
#pragma once

#include <array>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "lessons/timing_sweep.h"
#include "lessons/views/speed.h"
#include "timing_runner.h"
#include "panels/panel.h"

namespace attnlab {

class SpeedPanel : public Panel {
 public:
  lessons::ViewId id() const override { return lessons::ViewId::kSpeed; }
  const char* title() const override { return "14 Speed"; }
  bool uses_sentence() const override { return false; }
  void Draw(PanelContext& ctx) override;
  const char* takeaway() const override {
    return "The work grows with n²; the fused kernel never builds the n×n weights, so its memory stays O(n·d), and the sweep shows how much faster it runs.";
  }

 private:
  // What a timing batch is for: a live batch of the shown setting, or a batch of a sweep point.
  enum class Purpose { kLive, kSweep };
  // Starts a batch of the bench layer through runner_ (the worker or here); what it gave, now or
  // later, goes to Handle; `point`: the sweep's batch it is (kSweep).
  void Start(PanelContext& ctx, Purpose purpose, attn::KernelId kernel, int n, double min_ms,
             const lessons::TimingSweep::Point& point = {});
  void Handle(const TimingRunner::Done& done);
  // One step of the sweep: one batch of one point.
  void StepSweep(PanelContext& ctx);
  void DrawControls(PanelContext& ctx, attn::KernelId kernel);
  void DrawLive(PanelContext& ctx, attn::KernelId kernel, int n);
  // View 5's recompute (32 words, 8 heads) on the views' kernel, timed here: it is the page's own
  // work, so it is timed on the page's thread.
  void DrawHeadsRecompute(PanelContext& ctx);
  void DrawSweep(PanelContext& ctx);
  void DrawSweepPlot(PanelContext& ctx);

  std::string error_;
  lessons::SpeedLab lab_;  // view 5's recompute, timed here (the bench layer's batches: runner_)
  TimingRunner runner_;
  Purpose in_flight_ = Purpose::kLive;
  lessons::TimingSweep::Point in_flight_point_;  // the sweep's point of a batch in flight
  // Live: the last batches of the shown (kernel, n), the last forward's output, where they ran.
  int live_kernel_ = -2, live_n_ = 0;
  lessons::TimingSamples live_;
  attn::Matrix live_output_;
  bool live_in_worker_ = false;
  lessons::TimingSamples heads_ms_;  // ms per recompute of view 5, one entry per timed batch
  std::vector<int> heads_runs_;   // recomputes in each of those batches
  int heads_batches_timed_ = 0;   // batches timed so far (the window above keeps the last kLiveSamples)
  bool heads_warmed_ = false;     // the first, untimed batch has run
  double peak_gflops_ = 0;  // this core's wasm SIMD multiply-add peak; 0 until measured
  // Sweep: (kernel, log2 n) points, kSweepBatches each, round by round (lessons::TimingSweep), and
  // its finished points.
  lessons::TimingSweep sweep_batches_;
  lessons::SpeedSweep sweep_;
  lessons::SpeedCurves curves_;  // sweep_ as curves, remade when a point is added
};

}  // namespace attnlab
