// View 14: the engine's forward pass timed in the reader's browser — µs, GFLOP/s and the share of
// this core's measured SIMD peak, for the fused kernel and the ones that build every intermediate.
#pragma once

#include "lessons/views/speed.h"
#include "panels/panel.h"

namespace attnlab {

class SpeedPanel : public Panel {
 public:
  lessons::ViewId id() const override { return lessons::ViewId::kSpeed; }
  const char* title() const override { return "14 Speed"; }
  bool uses_sentence() const override { return false; }
  void Draw(PanelContext& ctx) override;
  lessons::Job* job() override { return &timing_; }
  const char* takeaway() const override {
    return "The work grows with n²; the fused kernel never builds the n×n weights, so its memory stays O(n·d), and the sweep shows how much faster it runs.";
  }

 private:
  void DrawControls(PanelContext& ctx, attn::KernelId kernel);
  void DrawLive(PanelContext& ctx, attn::KernelId kernel, int n);
  // Which WebAssembly build runs and why, and the kernel's tiles on this CPU (attn/kernel_choice.h).
  void DrawBuildAndTiling(PanelContext& ctx, attn::KernelId kernel);
  // View 5's recompute (32 words, 8 heads) on the views' kernel, timed on the page's thread (it is
  // the page's own work) by the job.
  void DrawHeadsRecompute(PanelContext& ctx);
  void DrawSweep(PanelContext& ctx);
  void DrawSweepPlot(PanelContext& ctx);

  // Every batch, the sweep, the peak and view 5's recompute: a job the app steps (a batch that would
  // hold the page goes to a Web Worker); this panel says what is shown and pressed, and draws it.
  lessons::SpeedJob timing_;
};

}  // namespace attnlab
