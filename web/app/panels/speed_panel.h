// View 13: the engine's forward pass timed in the reader's browser — µs, GFLOP/s and the share of
// this core's measured SIMD peak, for the fused kernel and the ones that build every intermediate.
#pragma once

#include <array>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "lessons/views/speed.h"
#include "panels/panel.h"

namespace attnlab {

class SpeedPanel : public Panel {
 public:
  lessons::ViewId id() const override { return lessons::ViewId::kSpeed; }
  const char* title() const override { return "13 Speed"; }
  bool uses_sentence() const override { return false; }
  void Draw(PanelContext& ctx) override;
  const char* takeaway() const override {
    return "The work grows with n²; the fused kernel never builds the n×n weights, so its memory stays O(n·d), and the sweep shows how much faster it runs.";
  }

 private:
  // lab_.TimeBatch, counted as an engine run: µs per forward, or a negative value with error_ set.
  double TimeBatch(attn::KernelId kernel, int n, double min_ms);
  // The slicing rule: one timing call (a batch, a warm-up, a batch of view 5's recompute) per frame,
  // the sweep's first, so no frame holds the page for more than one call; whoever finds the frame's
  // call taken asks for another frame. True, and the call counted, when this one may run.
  bool TakeFramesCall(PanelContext& ctx);
  // One step of the sweep (a warm-up or one batch of one point), at the start of a frame.
  void StepSweep(PanelContext& ctx);
  void DrawControls(PanelContext& ctx, attn::KernelId kernel);
  void DrawLive(PanelContext& ctx, attn::KernelId kernel, int n);
  // View 5's recompute (32 words, 8 heads) on the views' kernel, timed here.
  void DrawHeadsRecompute(PanelContext& ctx);
  void DrawSweep(PanelContext& ctx);
  void DrawSweepPlot(PanelContext& ctx);

  std::string error_;
  lessons::SpeedLab lab_;  // the layer of `npm run bench`, its inputs and its last output
  // Live: the last batches of the shown (kernel, n).
  int live_kernel_ = -2, live_n_ = 0;
  std::vector<double> live_us_;
  std::vector<double> heads_ms_;  // ms per recompute of view 5, one entry per timed batch
  std::vector<int> heads_runs_;   // recomputes in each of those batches
  int heads_batches_timed_ = 0;   // batches timed so far (the window above keeps the last kLiveSamples)
  bool heads_warmed_ = false;     // the first, untimed batch has run
  std::set<int> warmed_kernels_;  // kernels whose first, untimed batch has run
  double peak_gflops_ = 0;  // this core's wasm SIMD multiply-add peak; 0 until measured
  int calls_this_frame_ = 0;  // timing calls made in the frame being drawn (TakeFramesCall)
  // Sweep: the steps still to run (a point's warm-up when its kernel is cold, then its batches, one
  // per frame), the batches of the point being measured, and the results.
  struct SweepStep {
    attn::KernelId kernel;
    int log2_n;
    bool last;  // the point's last batch: its median is stored after it
  };
  std::vector<SweepStep> sweep_queue_;
  std::vector<double> sweep_batches_;
  lessons::SpeedSweep sweep_;
  lessons::SpeedCurves curves_;  // sweep_ as curves, remade when a point is added
};

}  // namespace attnlab
