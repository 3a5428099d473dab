// The seam between the engine and its SIMD kernel variants: each variant's translation unit
// (kernels_<isa>.cpp, compiled with that ISA's flags, chosen by CMake) fills one KernelTable; the
// rest of the engine calls through it and never sees an intrinsic.
#pragma once

#include <cstddef>

#include "attn/kernel_choice.h"
#include "attn/kernels.h"

namespace attn::simd {

// One head of softmax attention, fused: out = softmax((q kᵀ · scale) · inv_temperature + mask) v,
// computed in tiles with an online softmax so no (n, m) matrix exists. Query row i sits at position
// query_offset + i, key j at position j; key j is allowed for row i when
//   (!causal || j <= p)  and  (window_left < 0 || j >= p − window_left)
//                        and  (window_right < 0 || j <= p + window_right).
// A row with no allowed key gives zeros. The score of an allowed pair is rounded as the materialised
// path rounds it (raw q·k, times scale, times inv_temperature); when one is not finite (float32
// overflow) *overflowed is set and `out` is unspecified.
struct FlashAttentionArgs {
  const float* q = nullptr;  // (n, d_k), row stride ldq
  const float* k = nullptr;  // (m, d_k), row stride ldk
  const float* v = nullptr;  // (m, d_v), row stride ldv
  float* out = nullptr;      // (n, d_v), row stride ldo
  int ldq = 0, ldk = 0, ldv = 0, ldo = 0;
  int n = 0, m = 0, d_k = 0, d_v = 0;
  float scale = 1.0f;            // multiplies q · k (the score function's scale)
  float inv_temperature = 1.0f;  // then multiplies the scaled score (1 / temperature)
  int query_offset = 0;
  bool causal = false;
  int window_left = -1, window_right = -1;
  bool* overflowed = nullptr;  // set to true when an allowed score is not finite; may be null
  // The query rows this call computes: the kernel's tiles of rows (its own height, counted from row
  // 0) number tile_first, tile_first + tile_stride, …; the other rows of `out` are left alone. Threads
  // that share a head split it this way and get bit-identical rows: a row's tile, and so its
  // arithmetic, does not depend on the split.   tile_first >= 0, tile_stride >= 1
  int tile_first = 0, tile_stride = 1;
};

struct KernelTable {
  KernelId id;
  const char* build_name;  // KernelBuildName: the ISA this unit was compiled for ("wasm_relaxed_simd", "avx2", …)
  int lanes;               // floats per vector register
  // What KernelChoice may pick (kernel_choice.cpp): the GEMM's tile heights, and the micro-kernel's
  // rows, of which the attention's query tile holds 4 or 8.
  const int* gemm_rows;
  int gemm_row_count;
  int micro_rows;
  // How its multiply-adds round: fused (one rounding: FMA, relaxed SIMD's f32x4.relaxed_madd) or a
  // multiply then an add. chooses_fusion: the table runs either (the relaxed-SIMD wasm build's, whose
  // entries call the form the calling thread's KernelChoice says), fused_multiply_add its own.
  bool fused_multiply_add;
  bool chooses_fusion;
  // C (m, n) = A (m, k) · B (k, n) (+ bias (n) when not null); B given as (n, k) when b_transposed.
  void (*gemm)(int m, int n, int k, const float* a, int lda, const float* b, int ldb, bool b_transposed,
               const float* bias, float* c, int ldc);
  // The same product with B packed once beforehand (a prepared layer's weights), bit for bit gemm's:
  // packed_size(k, n) floats hold B (k, n) packed by pack_b (B given as (n, k) when b_transposed);
  // gemm_packed then reads it on every call and uses no scratch.
  std::size_t (*packed_size)(int k, int n);
  void (*pack_b)(const float* b, int ldb, bool b_transposed, int k, int n, float* packed);
  void (*gemm_packed)(int m, int n, int k, const float* a, int lda, const float* packed, const float* bias, float* c,
                      int ldc);
  void (*flash_attention)(const FlashAttentionArgs& args);
  // y[i] = exp(x[i]), see fast_exp.h for the accuracy.
  void (*exp)(const float* x, float* y, int count);
  // y[i] = exp(x[i]) for x[i] ≤ 1, not NaN, as the fused softmax's unmasked tiles compute it: results
  // below FLT_MIN (x < −87.3) may come out as ~1e−38; see fast_exp.h for the accuracy.
  void (*exp_non_positive)(const float* x, float* y, int count);
  // y[i] = 2^x[i] for x[i] ≤ 0, not NaN, as the fused softmax computes it where its scores are in
  // log2 units: results below FLT_MIN (x < −126) come out as FLT_MIN; see fast_exp.h for the accuracy.
  void (*exp2_non_positive)(const float* x, float* y, int count);
  // Each row of s (rows, cols; stride ld) -> softmax(row · inv_temperature) into w (stride ld);
  // masked (−inf) entries give 0, a fully masked row gives zeros.
  void (*softmax_rows)(const float* s, float* w, int rows, int cols, int ld, float inv_temperature);
  // True when none of x[0, count) is ±inf or NaN (validate::NoInfOrNan on the widest variant).
  bool (*no_inf_or_nan)(const float* x, std::size_t count);
  // most[c] = max over the rows of |x (rows, cols; row stride ld)[·, c]|; true when every entry is
  // finite (else `most` is unspecified). Exact: the same on every variant.
  bool (*columns_max_abs)(const float* x, int rows, int cols, int ld, float* most);
  // Runs `steps` rounds of 12 independent vector multiply-adds (the GEMM micro-kernel's pattern,
  // without loads): 24·lanes flops a round. Returns a value that depends on every lane.
  float (*peak_probe)(long steps);
};

// The settings the calling thread's kernel calls of `id` run with: its ScopedKernelChoice's when it
// has one for `id`, else the process's (ChosenKernelSettings: measured on the first call). The
// kernels read it once per call.
const KernelChoice& CurrentChoice(KernelId id);
// The calling thread's ScopedKernelChoice (null: none): worker_pool.cpp hands it to the workers that
// run the thread's items, so that they tile as the caller does.
const KernelChoice*& ThreadChoice();

// The variant's table, or null when this build or this CPU does not have it.
const KernelTable* FindKernelTable(KernelId id);

// Filled in by the variant translation units that CMake compiles for this target.
const KernelTable& WasmSimd128Table();
const KernelTable& Avx2Table();
const KernelTable& Avx512Table();

}  // namespace attn::simd
