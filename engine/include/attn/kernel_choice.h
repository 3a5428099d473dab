// How a SIMD kernel variant is tiled on this CPU, chosen by measuring it. The peers' libraries (MLAS,
// XNNPACK) pick per microarchitecture; attnlab times its candidates instead, once per process: the
// first call that needs a variant's tiling (or ChosenKernelSettings) runs a probe of a few
// milliseconds — every candidate on one representative packed GEMM and one fused attention head,
// interleaved, three times each, the fastest time of each kept — and every later call uses the
// winner. FastestKernel() picks between the ISAs (AVX-512 against AVX2) the same way.
//
// Same numbers whatever is chosen: the GEMM's settings change which entries are computed together,
// never an entry's chain of multiply-adds, so every GEMM setting of one multiply-add form gives the
// same bits; so does the attention's query-row tile. The attention's key tile changes where its
// online softmax rescales, and the two multiply-add forms round differently, so those differ within
// the bounds the tests derive (tests/engine/simd_kernels_test.cpp holds every candidate to them).
#pragma once

#include <string>
#include <vector>

#include "attn/kernels.h"
#include "attn/status.h"

namespace attn {

struct KernelChoice {
  KernelId kernel = KernelId::kReference;  // the SIMD variant these settings are for
  int gemm_rows = 0;          // rows of A per register tile of the GEMM (each row: two vectors of C)
  int gemm_slice_kb = 0;      // KB of a packed B panel's depth slice kept in L1 while the rows pass
  int attention_rows = 0;     // query rows per tile of the fused attention
  int attention_keys = 0;     // keys per tile of the fused attention (its online softmax's step)
  // Multiply-adds fused (one rounding: FMA, relaxed SIMD's f32x4.relaxed_madd) or a multiply then an
  // add: the attention's (its products, exp and softmax) and, apart, the GEMM's. Fixed by the ISA
  // (fused on AVX2 and AVX-512, not on SIMD128) except in the relaxed-SIMD WebAssembly build, which
  // carries both forms and times each part's: relaxed SIMD only where it is faster. They differ: V8's
  // 4-row GEMM tile keeps 8 accumulators, and a chain of relaxed_madds waits on their latency where a
  // multiply then an add does not (packed GEMM 4096×256·256×256, node 20, Zen 5: 59 GFLOP/s fused,
  // 62–66 unfused), while the attention's fused form is the faster.
  bool fused_multiply_add = false;
  bool gemm_fused_multiply_add = false;
  // Filled in by the probe (zero for a candidate; SetKernelChoice keeps what it is given, so a
  // choice handed on from an earlier probe — the page's saved one, a worker's — still says it):
  int candidates = 0;         // settings timed: GEMM's and attention's
  double probe_ms = 0.0;      // how long choosing took
  double gemm_gflops = 0.0;   // the winner's rate on the probe's GEMM (48 × 1024 · 1024 × 128, packed)
  double attention_gflops = 0.0;  // and on its attention head (128 queries, 256 keys, d = 64)
  // The clock's resolution the probe saw (µs): each timed sample lasts 20 ticks at least, and a
  // candidate must win by more than two ticks' worth; coarser than 500 µs (a browser that resists
  // fingerprinting), or a clock that does not move (infinity), and the probe keeps the defaults.
  double clock_tick_us = 0.0;
  // Set by SetKernelChoice: these settings came from elsewhere (another process's or an earlier
  // load's probe), not from a probe of this process.
  bool set_from_elsewhere = false;
};

// The settings `kernel` runs with in this process: measured on the first call (any thread; others
// wait), then kept. For the reference and Eigen, which have no tiling: {kernel} with zeros.
// kernel available (CheckKernelAvailable).
KernelChoice ChosenKernelSettings(KernelId kernel);

// Whether `kernel`'s settings are already there (measured or set): a drawing can say them without
// starting the probe (which times things) itself.
bool KernelChoiceMade(KernelId kernel);

// Every setting the probe times for `kernel`, in the probe's order (empty for reference / Eigen).
std::vector<KernelChoice> KernelChoiceCandidates(KernelId kernel);

// The settings the probe starts from and a candidate must beat (today's tiles); {kernel} with zeros
// for the reference and Eigen.
KernelChoice DefaultKernelChoice(KernelId kernel);

// The longest the probe runs each function untimed before it times it, in seconds (at least its
// own: 30 ms in WebAssembly, until V8's optimised code arrives; none natively). Call it before the
// first call that probes. A page's background worker sets it longer: in a browser page 30 ms ends on
// V8's baseline code (web/public/mount_kernel_choice.js). Not a number or ≤ 0: the probe's own; at
// most 2 s (code optimised from the start never speeds up, so it warms for the whole of it).
void SetKernelProbeWarmup(double seconds);

// Uses `choice` for its kernel from now on instead of measuring: the page's workers take the page's
// settings so that both compute the same bits. Call it before other threads use the kernel.
// kUnknownOption when the kernel is not available; kInvalidArgument (naming the field, the value and
// the candidates' values) when the GEMM or attention settings are not one of its candidates.
Status SetKernelChoice(const KernelChoice& choice);

// "avx512: GEMM tiles of 6 rows, 32 KB slices; attention tiles of 48 queries × 128 keys (the fastest
// of 12 settings timed in 4.2 ms: GEMM 152 GFLOP/s, attention 61 GFLOP/s)"; where the form of the
// multiply-add is chosen too, after the tiles: "; multiply-adds fused (f32x4.relaxed_madd)" or
// "; multiply-adds unfused (a multiply, then an add)" when both parts run the same form, else
// "; the GEMM's multiply-adds unfused (a multiply, then an add), the attention's fused
// (f32x4.relaxed_madd)" (or the other way round); for the reference and Eigen: "eigen: no tiling to
// choose". A choice taken with SetKernelChoice ends " (taken from an earlier probe: the fastest of 12
// settings, timed in 4.2 ms: …)" where it carries that probe's numbers, else " (the defaults, not
// measured here)" for DefaultKernelChoice and " (set, not measured here)" for another.
std::string DescribeKernelChoice(const KernelChoice& choice);

// Runs the calling thread's calls of choice.kernel, and the worker threads they use, with `choice`
// until destroyed (tests cover every candidate this way; the bench times them). Nests.
class ScopedKernelChoice {
 public:
  explicit ScopedKernelChoice(const KernelChoice& choice);
  ~ScopedKernelChoice();
  ScopedKernelChoice(const ScopedKernelChoice&) = delete;
  ScopedKernelChoice& operator=(const ScopedKernelChoice&) = delete;

 private:
  KernelChoice choice_;
  const KernelChoice* previous_;
};

}  // namespace attn
