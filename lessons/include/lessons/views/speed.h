// View 14: the engine's forward pass timed where it runs — the layer of `npm run bench`
// (lessons/bench_layer.h) through attn::ForwardOutput — and view 5's recompute on the views' kernel.
#pragma once

#include <map>
#include <utility>
#include <vector>

#include "attn/attention.h"
#include "attn/kernels.h"
#include "lessons/common.h"
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

}  // namespace lessons
