// Timing batches for the views that time the engine (14 Speed, 9 RNN), written once: where each batch
// runs, warm-ups, one call in flight. A batch predicted to hold the page's thread for longer than
// kMainThreadCallMs goes to the page's Web Worker (offload.h); shorter ones run here, at most one
// timing call per frame, so no frame holds the page for more than one short call. Before the first
// timed batch of a layer in a place (here, or the worker's module), one untimed batch at a small n
// lets the browser compile the code (timed from the first call, medians came out twice as high).
// A warm-up's time says nothing of the layer's speed, so it does not enter the prediction.
#pragma once

#include <map>
#include <set>
#include <utility>

#include "offload.h"

namespace attnlab {

struct PanelContext;

class TimingRunner {
 public:
  // A batch that takes longer than this on the page's thread would be felt: it goes to the worker.
  static constexpr double kMainThreadCallMs = 100.0;
  // The warm-up's size (n), and the largest n run here before the layer's speed is known.
  static constexpr int kWarmUpN = 256;

  struct Done {
    offload::TimingBatch batch;
    offload::Result result;  // µs per forward (result.us) or the error
    bool in_worker = false;
  };

  // Starts `batch` (`flops` per forward, for the prediction) where it belongs; counts an engine run.
  // Returns true when it started: *done is filled at once when it ran here, else the answer comes
  // from TakeDone() in a later frame. False when it cannot start now (a call in flight, this frame's
  // call taken here, or a warm-up ran first): the caller asks again next frame (a frame is requested).
  bool Start(PanelContext& ctx, const offload::TimingBatch& batch, double flops, Done* done, bool* finished_now);
  // The worker's answer to the batch in flight, once (warm-ups are consumed here). A batch the worker
  // died with is dropped: the caller starts it again and it runs here.
  bool TakeDone(Done* done);
  // Call once at the start of each frame the panel draws.
  void NewFrame() { calls_this_frame_ = 0; }
  // The frame's one call on the page's thread, for other timing the panel does here: true when free
  // (and now taken); false, and another frame is asked for, when taken.
  bool TakeFrameCall(PanelContext& ctx);
  bool in_flight() const { return ticket_ != 0; }

 private:
  bool InWorker(const offload::TimingBatch& batch, double flops) const;
  // One call on the page's thread (offload::RunTimingBatch), if this frame's call is free.
  bool RunHere(PanelContext& ctx, const offload::TimingBatch& batch, offload::Result* result);
  void Learn(const offload::TimingBatch& batch, double flops, const offload::Result& result);
  static std::pair<int, int> Layer(const offload::TimingBatch& b) { return {static_cast<int>(b.kind), b.kernel}; }

  int ticket_ = 0;
  offload::TimingBatch in_flight_;
  double in_flight_flops_ = 0;
  int calls_this_frame_ = 0;
  std::map<std::pair<int, int>, double> slowest_gflops_;  // per layer: the lowest GFLOP/s measured
  std::set<std::pair<int, int>> warmed_[2];               // layers warmed up here (0) and in the worker (1)
};

}  // namespace attnlab
