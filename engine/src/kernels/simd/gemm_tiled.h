// Register-blocked GEMM for any SIMD width V (see vec_*.h): C = A · B (+ bias), row-major.
//
// B is packed into panels of kNr = 2·lanes columns, each panel (k, kNr) contiguous and zero-padded,
// so the micro-kernel streams it with aligned-stride loads; A is read in place, kMr rows at a time,
// one broadcast per row and step. The kMr × kNr accumulator block stays in registers for the whole k
// loop: 2·kMr multiply-adds per 2 loads + kMr broadcasts. kMr, the tile's height, is chosen
// per CPU by measurement (attn/kernel_choice.h) among V::kGemmRows: 4 or 6 on AVX2 (12 accumulators
// of 16 registers at most), 4, 6 or 8 on AVX-512 (32 registers), 4 on wasm, where V8 keeps fewer
// vectors in registers (6 × 8 ran 20% slower). So is the depth of a panel's slice kept in L1. Neither
// changes an entry's chain of multiply-adds: every choice gives the same bits.
// The last rows of a block run a micro-kernel of just their height (1 … kMr); the last panel's
// columns (< kNr) go through a tile on the stack.
#pragma once

#include <cstddef>
#include <cstring>

#include "kernels/simd/kernel_table.h"

namespace attn::simd {
namespace {

template <class V>
constexpr int PanelWidth() { return 2 * V::kLanes; }

inline int RoundUp(int x, int to) { return (x + to - 1) / to * to; }
inline int MinInt(int a, int b) { return a < b ? a : b; }
inline int MaxInt(int a, int b) { return a > b ? a : b; }

// Scratch floats for one kernel call, from a grow-only block per thread that is kept between calls:
// a steady stream of calls allocates (and page-faults) nothing. Not zeroed. No std templates here:
// this header is compiled once per ISA, so keep inline library code out of it.
// Each thread's block is freed when the thread ends (the worker pool's threads end at exit).
struct ScratchBlock {
  float* data = nullptr;
  std::size_t capacity = 0;
  ~ScratchBlock() { delete[] data; }
};
inline float* Scratch(std::size_t count) {
  static thread_local ScratchBlock block;
  if (count > block.capacity) {
    delete[] block.data;
    block.data = nullptr;  // a throwing new below must not leave a freed block behind a larger capacity
    block.capacity = 0;
    block.data = new float[count + count / 4];
    block.capacity = count + count / 4;
  }
  return block.data;
}

// Carves consecutive buffers out of one Scratch block, each starting on a 64-byte boundary.
class ScratchLayout {
 public:
  std::size_t Add(std::size_t count) {
    const std::size_t offset = total_;
    total_ += (count + 15) / 16 * 16;
    return offset;
  }
  float* Allocate() const { return Scratch(total_ + 16); }
  static float* At(float* base, std::size_t offset) {
    const std::size_t misalign = (reinterpret_cast<std::size_t>(base) / sizeof(float)) % 16;
    return base + (misalign ? 16 - misalign : 0) + offset;
  }

 private:
  std::size_t total_ = 0;
};

// C[kMr, kNr] = (accumulate ? C : 0) + A[kMr, k] · P[k, kNr], kMr = kRows (1 … 8).
//   a: row i at a + i·lda;  panel: row p at panel + p·ldp (kNr for a packed panel);  c: row i at c + i·ldc
// a_rows < kMr: rows from a_rows on read A's row a_rows − 1 instead (an edge; their C rows are junk).
// The accumulators are named, not an array: GCC keeps an array in memory across the loop.
// kRows: the tile's height, or fewer for the last rows of a block (GEMM's m = 128 in 6-row tiles is 21
// tiles of 6 and one of 2); each entry of C is the same chain of multiply-adds whichever kRows computes it.
// bias (kNr floats, or null): added to each row after the sums, as AddBias adds it (the same bits), in
// the registers: a projection's last depth slice adds its bias here instead of in a pass over C
// (that pass was 1.3% of the bench layer's forward at n = 256, AVX-512).
template <class V, int kRows = V::kMr>
inline void MicroKernel(int k, const float* a, int lda, const float* panel, int ldp, float* c, int ldc,
                        bool accumulate, int a_rows = kRows, const float* bias = nullptr) {
  constexpr int kMr = kRows, L = V::kLanes;
  static_assert(kMr >= 1 && kMr <= 8, "the micro-kernel is written out for 1 to 8 rows");
  using F = typename V::F;
  F c00 = V::Zero(), c01 = V::Zero(), c10 = V::Zero(), c11 = V::Zero(), c20 = V::Zero(), c21 = V::Zero();
  F c30 = V::Zero(), c31 = V::Zero(), c40 = V::Zero(), c41 = V::Zero(), c50 = V::Zero(), c51 = V::Zero();
  F c60 = V::Zero(), c61 = V::Zero(), c70 = V::Zero(), c71 = V::Zero();
  if (accumulate) {
    c00 = V::Load(c), c01 = V::Load(c + L);
    if constexpr (kMr >= 2) c10 = V::Load(c + ldc), c11 = V::Load(c + ldc + L);
    if constexpr (kMr >= 3) c20 = V::Load(c + 2 * ldc), c21 = V::Load(c + 2 * ldc + L);
    if constexpr (kMr >= 4) c30 = V::Load(c + 3 * ldc), c31 = V::Load(c + 3 * ldc + L);
    if constexpr (kMr >= 5) c40 = V::Load(c + 4 * ldc), c41 = V::Load(c + 4 * ldc + L);
    if constexpr (kMr >= 6) c50 = V::Load(c + 5 * ldc), c51 = V::Load(c + 5 * ldc + L);
    if constexpr (kMr >= 7) c60 = V::Load(c + 6 * ldc), c61 = V::Load(c + 6 * ldc + L);
    if constexpr (kMr >= 8) c70 = V::Load(c + 7 * ldc), c71 = V::Load(c + 7 * ldc + L);
  }
  const auto row = [&](int i) { return a + (i < a_rows ? i : a_rows - 1) * lda; };
  const float *a0 = a, *a1 = kMr >= 2 ? row(1) : a, *a2 = kMr >= 3 ? row(2) : a, *a3 = kMr >= 4 ? row(3) : a;
  const float *a4 = kMr >= 5 ? row(4) : a, *a5 = kMr >= 6 ? row(5) : a, *a6 = kMr >= 7 ? row(6) : a;
  const float* a7 = kMr >= 8 ? row(7) : a;
  for (int p = 0; p < k; ++p, panel += ldp) {
    const F b0 = V::Load(panel), b1 = V::Load(panel + L);
    F ai = V::BroadcastFrom(a0 + p);
    c00 = V::MulAdd(ai, b0, c00), c01 = V::MulAdd(ai, b1, c01);
    if constexpr (kMr >= 2) {
      ai = V::BroadcastFrom(a1 + p);
      c10 = V::MulAdd(ai, b0, c10), c11 = V::MulAdd(ai, b1, c11);
    }
    if constexpr (kMr >= 3) {
      ai = V::BroadcastFrom(a2 + p);
      c20 = V::MulAdd(ai, b0, c20), c21 = V::MulAdd(ai, b1, c21);
    }
    if constexpr (kMr >= 4) {
      ai = V::BroadcastFrom(a3 + p);
      c30 = V::MulAdd(ai, b0, c30), c31 = V::MulAdd(ai, b1, c31);
    }
    if constexpr (kMr >= 5) {
      ai = V::BroadcastFrom(a4 + p);
      c40 = V::MulAdd(ai, b0, c40), c41 = V::MulAdd(ai, b1, c41);
    }
    if constexpr (kMr >= 6) {
      ai = V::BroadcastFrom(a5 + p);
      c50 = V::MulAdd(ai, b0, c50), c51 = V::MulAdd(ai, b1, c51);
    }
    if constexpr (kMr >= 7) {
      ai = V::BroadcastFrom(a6 + p);
      c60 = V::MulAdd(ai, b0, c60), c61 = V::MulAdd(ai, b1, c61);
    }
    if constexpr (kMr >= 8) {
      ai = V::BroadcastFrom(a7 + p);
      c70 = V::MulAdd(ai, b0, c70), c71 = V::MulAdd(ai, b1, c71);
    }
  }
  if (bias) {
    const F b0 = V::Load(bias), b1 = V::Load(bias + L);
    c00 = V::Add(c00, b0), c01 = V::Add(c01, b1);
    if constexpr (kMr >= 2) c10 = V::Add(c10, b0), c11 = V::Add(c11, b1);
    if constexpr (kMr >= 3) c20 = V::Add(c20, b0), c21 = V::Add(c21, b1);
    if constexpr (kMr >= 4) c30 = V::Add(c30, b0), c31 = V::Add(c31, b1);
    if constexpr (kMr >= 5) c40 = V::Add(c40, b0), c41 = V::Add(c41, b1);
    if constexpr (kMr >= 6) c50 = V::Add(c50, b0), c51 = V::Add(c51, b1);
    if constexpr (kMr >= 7) c60 = V::Add(c60, b0), c61 = V::Add(c61, b1);
    if constexpr (kMr >= 8) c70 = V::Add(c70, b0), c71 = V::Add(c71, b1);
  }
  V::Store(c, c00), V::Store(c + L, c01);
  if constexpr (kMr >= 2) V::Store(c + ldc, c10), V::Store(c + ldc + L, c11);
  if constexpr (kMr >= 3) V::Store(c + 2 * ldc, c20), V::Store(c + 2 * ldc + L, c21);
  if constexpr (kMr >= 4) V::Store(c + 3 * ldc, c30), V::Store(c + 3 * ldc + L, c31);
  if constexpr (kMr >= 5) V::Store(c + 4 * ldc, c40), V::Store(c + 4 * ldc + L, c41);
  if constexpr (kMr >= 6) V::Store(c + 5 * ldc, c50), V::Store(c + 5 * ldc + L, c51);
  if constexpr (kMr >= 7) V::Store(c + 6 * ldc, c60), V::Store(c + 6 * ldc + L, c61);
  if constexpr (kMr >= 8) V::Store(c + 7 * ldc, c70), V::Store(c + 7 * ldc + L, c71);
}

// MicroKernel on `rows` (1 … kMr) rows, each a real row of A: the last rows of a block multiply
// no padding (m = 128 on AVX-512's 6-row tiles once ran its last 2 rows as 6, through an unblocked
// edge path: 13% of the GEMM's time in GPT-2's prefill).
template <class V, int kMr = V::kMr>
inline void MicroKernelRows(int rows, int k, const float* a, int lda, const float* panel, int ldp, float* c, int ldc,
                            bool accumulate, const float* bias = nullptr) {
  switch (rows) {
    case 1: MicroKernel<V, 1>(k, a, lda, panel, ldp, c, ldc, accumulate, 1, bias); return;
    case 2: MicroKernel<V, 2>(k, a, lda, panel, ldp, c, ldc, accumulate, 2, bias); return;
    case 3: MicroKernel<V, 3>(k, a, lda, panel, ldp, c, ldc, accumulate, 3, bias); return;
    default: break;
  }
  if constexpr (kMr >= 5) {
    if (rows == 4) return MicroKernel<V, 4>(k, a, lda, panel, ldp, c, ldc, accumulate, 4, bias);
    if (rows == 5) return MicroKernel<V, 5>(k, a, lda, panel, ldp, c, ldc, accumulate, 5, bias);
  }
  if constexpr (kMr >= 7) {
    if (rows == 6) return MicroKernel<V, 6>(k, a, lda, panel, ldp, c, ldc, accumulate, 6, bias);
    if (rows == 7) return MicroKernel<V, 7>(k, a, lda, panel, ldp, c, ldc, accumulate, 7, bias);
  }
  MicroKernel<V, kMr>(k, a, lda, panel, ldp, c, ldc, accumulate, kMr, bias);
}

// Packs columns [j0, j0 + kNr) of B (k, n) into panel (k, kNr), zeros past column n.
//   transposed: B is given as Bᵀ (n, k), row j at b + j·ldb.
template <class V>
void PackPanel(const float* b, int ldb, bool transposed, int k, int n, int j0, float* panel) {
  constexpr int kNr = PanelWidth<V>();
  const int cols = MinInt(kNr, n - j0);
  if (transposed) {
    // Whole kT × kT blocks transposed in registers (a scalar copy is one load and store per float);
    // the last columns (cols % kT) and rows (k % kT) element by element.
    constexpr int kT = V::kTransposeTile;
    static_assert(kNr % kT == 0, "a panel holds whole transpose tiles");
    const int whole_cols = cols / kT * kT, whole_k = k / kT * kT;
    for (int j = 0; j < whole_cols; j += kT)
      for (int p = 0; p < whole_k; p += kT) V::TransposeTile(b + (j0 + j) * ldb + p, ldb, panel + p * kNr + j, kNr);
    for (int j = 0; j < cols; ++j)
      for (int p = j < whole_cols ? whole_k : 0; p < k; ++p) panel[p * kNr + j] = b[(j0 + j) * ldb + p];
  } else {
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < cols; ++j) panel[p * kNr + j] = b[p * ldb + j0 + j];
  }
  for (int p = 0; p < k && cols < kNr; ++p)
    for (int j = cols; j < kNr; ++j) panel[p * kNr + j] = 0.0f;
}

// All panels of B: panel t at packed + t·k·kNr.   packed: (⌈n/kNr⌉, k, kNr)
template <class V>
void PackAllPanels(const float* b, int ldb, bool transposed, int k, int n, float* packed) {
  constexpr int kNr = PanelWidth<V>();
  for (int j0 = 0, t = 0; j0 < n; j0 += kNr, ++t) PackPanel<V>(b, ldb, transposed, k, n, j0, packed + t * k * kNr);
}

// Floats of B (k, n) packed as PackAllPanels packs it: ⌈n/kNr⌉ panels of (k, kNr).
template <class V>
std::size_t PackedSize(int k, int n) {
  constexpr int kNr = PanelWidth<V>();
  return static_cast<std::size_t>(RoundUp(MaxInt(n, 0), kNr)) * MaxInt(k, 0);
}

// C (m, n) += bias (n) on every row: after the products' sums, as every path adds it.
inline void AddBias(int m, int n, const float* bias, float* c, int ldc) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) c[i * ldc + j] += bias[j];
}

// C[rows, cols] = (accumulate ? C : 0) + A[rows, k] · panel (+ bias (cols), as MicroKernel adds it),
// for rows ≤ kMr and cols < kNr (the last panel's columns): through a rows × kNr tile on the stack, so
// the kernel's full-width stores stay inside it (the bias, cols floats, is added after, as AddBias
// adds it); the panel's zero padding makes the extra columns 0.
template <class V, int kMr = V::kMr>
void ColumnEdgeTile(int rows, int cols, int k, const float* a, int lda, const float* panel, int ldp, float* c, int ldc,
                    bool accumulate, const float* bias = nullptr) {
  constexpr int kNr = PanelWidth<V>();
  alignas(64) float c_pad[kMr * kNr] = {};
  if (accumulate)
    for (int i = 0; i < rows; ++i) std::memcpy(c_pad + i * kNr, c + i * ldc, sizeof(float) * cols);
  MicroKernelRows<V, kMr>(rows, k, a, lda, panel, ldp, c_pad, kNr, accumulate);
  for (int i = 0; i < rows; ++i) std::memcpy(c + i * ldc, c_pad + i * kNr, sizeof(float) * cols);
  if (bias) AddBias(rows, cols, bias, c, ldc);
}

// Depth of one pass over the panels: a panel's slice (slice_kb KB: 32 KB is 256 steps of AVX-512's 32
// columns, 512 of AVX2's 16, 1024 of SIMD128's 8) stays in L1 while every row tile of the block passes
// over it. Without it a panel of GPT-2's k = 3072 (384 KB on AVX-512) streamed from L2 for each row
// tile: 110–117 GFLOP/s at m = 128 against 123–135 sliced (AVX-512, Zen 4, B from memory, medians of
// 6). L1 differs from CPU to CPU (32 KB on Zen 4 and Cascade Lake, 48 KB on Zen 5 and Ice Lake), so
// the slice is chosen by measurement (16 or 32 KB). The sums are the same: a later slice continues
// each entry's chain of multiply-adds from the stored value, in order.
template <class V>
int DepthBlock(int slice_kb) { return slice_kb * 1024 / (PanelWidth<V>() * static_cast<int>(sizeof(float))); }

// C[i, 0 … cols) = A[i, k] · panel for each of A's m rows, m < kMr (a decode step's one row): each
// row runs down the panel once, in GemmPacked's order (so with its bits), no row multiplied twice.
template <class V>
void PanelFewRows(int m, int k, const float* a, int lda, const float* panel, int cols, float* c, int ldc) {
  constexpr int L = V::kLanes, kNr = PanelWidth<V>();
  using F = typename V::F;
  for (int i = 0; i < m; ++i) {
    const float* ai = a + i * lda;
    F c0 = V::Zero(), c1 = V::Zero();
    const float* row = panel;
    for (int p = 0; p < k; ++p, row += kNr) {
      // 4 KB ahead into L2 (prefetching past the end is harmless: a hint, never a fault): a decode
      // step streams the model's weights once, and this reads them at 11–13 GB/s where the hardware's
      // prefetcher alone reached 9.3 (one AVX-512 core, here; a plain sum of the same floats 9.8).
      __builtin_prefetch(reinterpret_cast<const char*>(row) + 4096, 0, 1);
      __builtin_prefetch(reinterpret_cast<const char*>(row) + 4096 + 64, 0, 1);
      const F x = V::BroadcastFrom(ai + p);
      c0 = V::MulAdd(x, V::Load(row), c0), c1 = V::MulAdd(x, V::Load(row + L), c1);
    }
    alignas(64) float out[kNr];
    V::Store(out, c0), V::Store(out + L, c1);
    std::memcpy(c + i * ldc, out, sizeof(float) * cols);
  }
}

// C[0, j … j + kNr) for four whole panels a quarter of B apart (panel, panel + stride, …, each
// (k, kNr)), for one row of A (a decode step): four streams from memory in flight instead of one,
// each column the same chain of multiply-adds as PanelFewRows's (so with its bits). WebAssembly,
// which has no prefetch, read GPT-2-small's weights one panel at a time at 7.0–7.5 GB/s and four
// at a time at 9–10 (decode 70 → 51–56 ms a token, relaxed SIMD under node, 2-core Xeon).
template <class V>
void FourPanelsOneRow(int k, const float* a, const float* panel, std::size_t stride, float* c, int c_stride) {
  constexpr int L = V::kLanes, kNr = PanelWidth<V>();
  using F = typename V::F;
  const float *q0 = panel, *q1 = panel + stride, *q2 = panel + 2 * stride, *q3 = panel + 3 * stride;
  F c0 = V::Zero(), c1 = V::Zero(), d0 = V::Zero(), d1 = V::Zero();
  F e0 = V::Zero(), e1 = V::Zero(), f0 = V::Zero(), f1 = V::Zero();
  for (int p = 0; p < k; ++p, q0 += kNr, q1 += kNr, q2 += kNr, q3 += kNr) {
#if !defined(__wasm__)  // as PanelFewRows (natively four streams alone read no faster than one prefetched)
    __builtin_prefetch(reinterpret_cast<const char*>(q0) + 4096, 0, 1);
    __builtin_prefetch(reinterpret_cast<const char*>(q1) + 4096, 0, 1);
    __builtin_prefetch(reinterpret_cast<const char*>(q2) + 4096, 0, 1);
    __builtin_prefetch(reinterpret_cast<const char*>(q3) + 4096, 0, 1);
#endif
    const F x = V::BroadcastFrom(a + p);
    c0 = V::MulAdd(x, V::Load(q0), c0), c1 = V::MulAdd(x, V::Load(q0 + L), c1);
    d0 = V::MulAdd(x, V::Load(q1), d0), d1 = V::MulAdd(x, V::Load(q1 + L), d1);
    e0 = V::MulAdd(x, V::Load(q2), e0), e1 = V::MulAdd(x, V::Load(q2 + L), e1);
    f0 = V::MulAdd(x, V::Load(q3), f0), f1 = V::MulAdd(x, V::Load(q3 + L), f1);
  }
  V::Store(c, c0), V::Store(c + L, c1);
  V::Store(c + c_stride, d0), V::Store(c + c_stride + L, d1);
  V::Store(c + 2 * c_stride, e0), V::Store(c + 2 * c_stride + L, e1);
  V::Store(c + 3 * c_stride, f0), V::Store(c + 3 * c_stride + L, f1);
}

// One slice of one panel (depth steps from p0, columns j0 … j0 + cols) over rows [i0, i_end):
// C[i0 … i_end, j0 …] (+)= A[…, p0 … p0 + depth) · slice (+ bias[j0 …] when not null: the panel's
// last slice), in tiles of kMr rows. `next` (x86): the
// next_bytes the block reads after this slice, fetched into L2 a few lines per row tile while this
// one is used: a model's weights come from memory, and the hardware's prefetcher, which restarts
// where a read jumps (from slice to slice), left GPT-2's products at 110–117 GFLOP/s instead of
// 123–135 (AVX-512, B from memory, medians of 6). WebAssembly has no prefetch.
template <class V, int kMr>
inline void PanelSlice(int i0, int i_end, int p0, int depth, int j0, int cols, const float* a, int lda,
                       const float* slice, float* c, int ldc, bool accumulate, const float* bias, const char* next,
                       int next_bytes) {
  constexpr int kNr = PanelWidth<V>();
#if !defined(__wasm__)
  const int next_lines = next_bytes / 64, tiles = (i_end - i0 + kMr - 1) / kMr;
  const int per_tile = (next_lines + tiles - 1) / tiles;
  int line = 0;
#else
  (void)next, (void)next_bytes;
#endif
  for (int i = i0; i < i_end;) {
#if !defined(__wasm__)
    for (int e = 0; e < per_tile && line < next_lines; ++e, ++line) __builtin_prefetch(next + 64 * line, 0, 1);
#endif
    const int rows = MinInt(kMr, i_end - i);
    const float* a_block = a + i * lda + p0;
    float* c_block = c + i * ldc + j0;
    if (rows == kMr && cols == kNr) {
      MicroKernel<V, kMr>(depth, a_block, lda, slice, kNr, c_block, ldc, accumulate, kMr, bias);
    } else if (cols == kNr) {
      MicroKernelRows<V, kMr>(rows, depth, a_block, lda, slice, kNr, c_block, ldc, accumulate, bias);
    } else {
      ColumnEdgeTile<V, kMr>(rows, cols, depth, a_block, lda, slice, kNr, c_block, ldc, accumulate, bias);
    }
    i += rows;
  }
}

// GemmPacked for m ≥ kMr rows, k > 0: kMr × kNr tiles, the panels' depth in slices of slice_kb KB.
// Two orders, the same sums (each entry's chain of multiply-adds runs slice after slice, in order):
//  - panel by panel, its slices in turn, when a row block's A (rows × k) fits in L2 beside them: the
//    block's C columns stay in cache from slice to slice, and B is read once, front to back. GPT-2's
//    unembedding (128 × 768 · 768 × 50257) otherwise wrote and re-read its 26 MB of logits once per
//    slice, from memory: 62 against 80+ GFLOP/s (AVX-512).
//  - slice by slice over every panel otherwise (GPT-2's 128 × 3072 · 3072 × 768: A's block is 1.5 MB;
//    C, 128 × 768, stays in L2 anyway).
template <class V, int kMr>
void GemmPackedTiled(int m, int n, int k, const float* a, int lda, const float* packed, const float* bias, float* c,
                     int ldc, int slice_kb) {
  constexpr int kNr = PanelWidth<V>();
  const int panels = RoundUp(n, kNr) / kNr;
  // Rows in blocks that keep the A block in L2 while every panel passes over it: 144 rows, so a
  // 128-token prefill reads each weight from memory once (96 rows read them twice: 8% slower).
  constexpr int kRowBlock = 144 / kMr * kMr;
  const int kDepthBlock = DepthBlock<V>(slice_kb);
  constexpr std::size_t kBlockOfA = 128 * 1024;  // floats: 512 KB, half of a 1 MB L2
  const bool panel_by_panel = static_cast<std::size_t>(MinInt(m, kRowBlock)) * k <= kBlockOfA;
  const std::size_t panel_floats = static_cast<std::size_t>(k) * kNr;
  const float* const end = packed + panels * panel_floats;
  // The bytes of B from `from` on, up to one slice: what a slice may prefetch in panel order.
  const auto slice_ahead = [end, kDepthBlock](const float* from) {
    const std::ptrdiff_t floats = end - from;
    return static_cast<int>(sizeof(float)) * (floats < kDepthBlock * kNr ? static_cast<int>(floats) : kDepthBlock * kNr);
  };
  for (int i0 = 0; i0 < m; i0 += kRowBlock) {
    const int i_end = MinInt(m, i0 + kRowBlock);
    if (panel_by_panel) {
      for (int t = 0; t < panels; ++t) {
        const int j0 = t * kNr, cols = MinInt(kNr, n - j0);
        for (int p0 = 0; p0 < k; p0 += kDepthBlock) {
          const int depth = MinInt(kDepthBlock, k - p0);
          const float* slice = packed + t * panel_floats + static_cast<std::size_t>(p0) * kNr;
          const float* next = slice + static_cast<std::size_t>(depth) * kNr;  // B front to back
          const float* last_bias = bias && p0 + depth == k ? bias + j0 : nullptr;
          PanelSlice<V, kMr>(i0, i_end, p0, depth, j0, cols, a, lda, slice, c, ldc, p0 > 0, last_bias,
                             reinterpret_cast<const char*>(next), slice_ahead(next));
        }
      }
      continue;
    }
    for (int p0 = 0; p0 < k; p0 += kDepthBlock) {
      const int depth = MinInt(kDepthBlock, k - p0);
      for (int t = 0; t < panels; ++t) {
        const int j0 = t * kNr, cols = MinInt(kNr, n - j0);
        const float* slice = packed + t * panel_floats + static_cast<std::size_t>(p0) * kNr;
        const float* next = slice + panel_floats;  // the same slice of the next panel
        const float* last_bias = bias && p0 + depth == k ? bias + j0 : nullptr;
        PanelSlice<V, kMr>(i0, i_end, p0, depth, j0, cols, a, lda, slice, c, ldc, p0 > 0, last_bias,
                           reinterpret_cast<const char*>(next), t + 1 < panels ? depth * kNr * static_cast<int>(sizeof(float)) : 0);
      }
    }
  }
}

// GemmPackedTiled in tiles of `rows` rows, one of V::kGemmRows (SetKernelChoice admits no other; the
// last of them otherwise).
template <class V, int kIndex = 0>
void GemmPackedTiledRows(int rows, int m, int n, int k, const float* a, int lda, const float* packed, const float* bias,
                         float* c, int ldc, int slice_kb) {
  constexpr int kCount = static_cast<int>(sizeof(V::kGemmRows) / sizeof(V::kGemmRows[0]));
  if constexpr (kIndex + 1 < kCount) {
    if (rows != V::kGemmRows[kIndex])
      return GemmPackedTiledRows<V, kIndex + 1>(rows, m, n, k, a, lda, packed, bias, c, ldc, slice_kb);
  }
  GemmPackedTiled<V, V::kGemmRows[kIndex]>(m, n, k, a, lda, packed, bias, c, ldc, slice_kb);
}

// C (m, n) = A (m, k) · B (+ bias (n) when not null), B packed by PackAllPanels<V> (PackedSize<V>(k, n)
// floats). The weights of a prepared layer are packed once and come here on every call; Gemm packs
// first. Fewer rows than the tile's (the thread's KernelChoice: gemm_rows) run down the panels one row
// at a time (one row: four panels at a time, FourPanelsOneRow; else PanelFewRows), more in tiles
// (GemmPackedTiled): the same bits either way. Row strides lda, ldc. Uses no scratch.
template <class V>
void GemmPacked(int m, int n, int k, const float* a, int lda, const float* packed, const float* bias, float* c,
                int ldc) {
  constexpr int kNr = PanelWidth<V>();
  const KernelChoice& choice = CurrentChoice(V::kId);
  const int kMr = choice.gemm_rows;
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) c[i * ldc + j] = bias ? bias[j] : 0.0f;
    return;
  }
  const int panels = RoundUp(n, kNr) / kNr;
  const std::size_t panel_floats = static_cast<std::size_t>(k) * kNr;
  if (m == 1 && n / kNr >= 4) {  // a decode step: whole panels four at a time, the rest one by one
    const int quarter = n / kNr / 4;
    for (int t = 0; t < quarter; ++t)
      FourPanelsOneRow<V>(k, a, packed + t * panel_floats, quarter * panel_floats, c + t * kNr, quarter * kNr);
    for (int t = 4 * quarter; t < panels; ++t)
      PanelFewRows<V>(1, k, a, lda, packed + t * panel_floats, MinInt(kNr, n - t * kNr), c + t * kNr, ldc);
  } else if (m < kMr) {
    for (int t = 0; t < panels; ++t)
      PanelFewRows<V>(m, k, a, lda, packed + t * panel_floats, MinInt(kNr, n - t * kNr), c + t * kNr, ldc);
  } else {
    GemmPackedTiledRows<V>(kMr, m, n, k, a, lda, packed, bias, c, ldc, choice.gemm_slice_kb);
    return;  // the tiles added the bias
  }
  if (bias) AddBias(m, n, bias, c, ldc);
}

// C (m, n) = A (m, k) · B (k, n) for a few rows (fewer than a tile's: a decode step's one row), without packing
// all of B first (a pass that writes as much as it reads) or multiplying kMr rows where the block has
// one: one panel at a time is packed into scratch (L1/L2-sized: kNr · k floats, B given either way)
// and each row of A runs down it (PanelFewRows), in GemmPacked's order, so with its bits.
#if !defined(__wasm__)
template <class V>
void GemmFewRows(int m, int n, int k, const float* a, int lda, const float* b, int ldb, bool b_transposed,
                 const float* bias, float* c, int ldc) {
  constexpr int kNr = PanelWidth<V>();
  float* panel = Scratch(static_cast<std::size_t>(k) * kNr + 16);
  for (int j0 = 0; j0 < n; j0 += kNr) {
    PackPanel<V>(b, ldb, b_transposed, k, n, j0, panel);
    PanelFewRows<V>(m, k, a, lda, panel, MinInt(kNr, n - j0), c + j0, ldc);
  }
  if (bias) AddBias(m, n, bias, c, ldc);
}
#endif

// C (m, n) = A (m, k) · B (k, n), or A · Bᵀ with B given as (n, k) when b_transposed; + bias (n)
// when bias is not null. Row strides lda, ldb, ldc. Fewer rows than a tile: GemmFewRows (x86; the same
// bits as the tiled path, so WebAssembly, where a model's weights are packed once, skips it). Otherwise B
// is packed (into scratch), then GemmPacked: read in place, a row-major B's rows 1 KB apart fall in 4
// of L1's 64 sets and evict each other (measured 20% slower).
template <class V>
void Gemm(int m, int n, int k, const float* a, int lda, const float* b, int ldb, bool b_transposed,
          const float* bias, float* c, int ldc) {
  if (m <= 0 || n <= 0) return;
  // Read before Scratch: the first read runs the kernel-choice probe, whose calls use this thread's
  // scratch too (a block taken before it would be freed under us).
  const KernelChoice& choice = CurrentChoice(V::kId);
#if !defined(__wasm__)  // the page's module is size-bound (an embed's 500 KB) and its few-row products small
  if (m < choice.gemm_rows && k > 0) {
    GemmFewRows<V>(m, n, k, a, lda, b, ldb, b_transposed, bias, c, ldc);
    return;
  }
#else
  (void)choice;
#endif
  float* packed = nullptr;
  if (k > 0) {
    ScratchLayout layout;
    const std::size_t packed_at = layout.Add(PackedSize<V>(k, n));
    packed = ScratchLayout::At(layout.Allocate(), packed_at);
    PackAllPanels<V>(b, ldb, b_transposed, k, n, packed);
  }
  GemmPacked<V>(m, n, k, a, lda, packed, bias, c, ldc);
}

}  // namespace
}  // namespace attn::simd
