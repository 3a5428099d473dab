// View 13: the engine's forward pass timed in the reader's browser — µs, GFLOP/s and the share of
// this core's measured SIMD peak, for the fused kernel and the ones that build every intermediate.
#pragma once

#include <array>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "lessons/views/speed.h"
#include "offload.h"
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
  // One timing call of the bench layer: a kernel's untimed first batch, a live batch, a sweep batch.
  enum class Purpose { kWarmUp, kLive, kSweep };
  struct Call {
    attn::KernelId kernel = attn::KernelId::kReference;
    int n = 0;
    Purpose purpose = Purpose::kLive;
    int sweep_generation = 0;  // which press of Sweep a sweep batch belongs to
  };
  // Where a timing call runs: in the page's Web Worker when it would hold a frame for longer than
  // kMainThreadCallMs (predicted from this kernel's slowest measured GFLOP/s; unknown: the worker)
  // and a worker can take it; else on the page's thread.
  bool InWorker(attn::KernelId kernel, int n, double min_ms) const;
  // Starts `call` (counted as an engine run) where InWorker says: in the worker the answer arrives in
  // a later frame, one call in flight at a time (a kernel the worker has not run yet gets its untimed
  // batch there first); here, at most one call per frame (TakeFramesCall). False when it cannot
  // start now.
  bool Issue(PanelContext& ctx, const Call& call, double min_ms);
  // The worker's answer to the call in flight, once it arrived.
  void Receive();
  // What a timing call gave (µs per forward, or the error), in the worker or here.
  void Handle(const Call& call, bool in_worker, const offload::Result& result);
  // The slicing rule for work on the page's thread: one timing call (a batch, a warm-up, a batch of
  // view 5's recompute) per frame, the sweep's first, so no frame holds the page for more than one
  // call; whoever finds the frame's call taken asks for another frame. True when this one may run.
  bool TakeFramesCall(PanelContext& ctx);
  // One step of the sweep (a warm-up or one batch of one point).
  void StepSweep(PanelContext& ctx);
  void DrawControls(PanelContext& ctx, attn::KernelId kernel);
  void DrawLive(PanelContext& ctx, attn::KernelId kernel, int n);
  // View 5's recompute (32 words, 8 heads) on the views' kernel, timed here: it is the page's own
  // work, so it is timed on the page's thread.
  void DrawHeadsRecompute(PanelContext& ctx);
  void DrawSweep(PanelContext& ctx);
  void DrawSweepPlot(PanelContext& ctx);
  bool Warmed(attn::KernelId kernel, bool in_worker) const;

  std::string error_;
  lessons::SpeedLab lab_;  // the layer of `npm run bench` for calls on the page's thread
  int ticket_ = 0;         // the worker's call in flight (0: none)
  Call in_flight_;
  bool last_live_in_worker_ = false;  // where the shown live batches ran
  std::map<int, double> slowest_gflops_;  // per kernel: the lowest GFLOP/s measured (InWorker's prediction)
  // Live: the last batches of the shown (kernel, n), and the last forward's output.
  int live_kernel_ = -2, live_n_ = 0;
  lessons::TimingSamples live_;
  attn::Matrix live_output_;
  std::vector<double> heads_ms_;  // ms per recompute of view 5, one entry per timed batch
  std::vector<int> heads_runs_;   // recomputes in each of those batches
  int heads_batches_timed_ = 0;   // batches timed so far (the window above keeps the last kLiveSamples)
  bool heads_warmed_ = false;     // the first, untimed batch has run
  // Kernels whose first, untimed batch has run: in the worker's module and in the page's (index 1, 0).
  std::set<int> warmed_kernels_[2];
  double peak_gflops_ = 0;  // this core's wasm SIMD multiply-add peak; 0 until measured
  int calls_this_frame_ = 0;  // timing calls made on the page's thread in the frame being drawn
  // Sweep: the points still to measure (a batch each step, kSweepBatches per point; small n first),
  // the batches of the point being measured, and the results.
  struct SweepStep {
    attn::KernelId kernel;
    int log2_n;
  };
  std::vector<SweepStep> sweep_queue_;
  int sweep_generation_ = 0;
  lessons::TimingSamples sweep_batches_;
  lessons::SpeedSweep sweep_;
  lessons::SpeedCurves curves_;  // sweep_ as curves, remade when a point is added
};

}  // namespace attnlab
