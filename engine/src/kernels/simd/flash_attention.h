// Fused attention for one head, FlashAttention-style (Dao et al. 2022): query rows in tiles of kBr,
// keys in tiles of kBc; per key tile S = (scale·Q) Kᵀ on the GEMM micro-kernel, an online softmax
// (running row max m and sum l, earlier output rescaled by exp(m_old − m_new)), then O += P V.
// Memory: the packed Kᵀ and V (m·(d_k + d_v)) plus tiles; never an (n, m) matrix.
// Whole key tiles outside a causal or sliding-window band are skipped.
#pragma once

#include <limits>

#include "kernels/simd/fast_exp.h"
#include "kernels/simd/gemm_tiled.h"
#include "kernels/simd/kernel_table.h"
#include "kernels/simd/vec_scalar.h"

namespace attn::simd {
namespace {

constexpr float kMinusInf = -std::numeric_limits<float>::infinity();

// Keys [lo, hi] query position p may attend to (lo > hi: none), see FlashAttentionArgs.
struct KeyBand {
  const FlashAttentionArgs& a;
  int Lo(int p) const { return MaxInt(0, a.window_left >= 0 ? p - a.window_left : 0); }
  int Hi(int p) const {
    int hi = a.m - 1;
    if (a.causal) hi = MinInt(hi, p);
    if (a.window_right >= 0) hi = MinInt(hi, p + a.window_right);
    return hi;
  }
};

// max over x[0, count)
template <class V>
float RowMax(const float* x, int count) {
  constexpr int L = V::kLanes;
  int j = 0;
  float best = kMinusInf;
  if (count >= L) {
    typename V::F acc = V::Load(x);
    for (j = L; j + L <= count; j += L) acc = V::Max(acc, V::Load(x + j));
    best = V::ReduceMax(acc);
  }
  for (; j < count; ++j) best = x[j] > best ? x[j] : best;
  return best;
}

// x[j] = exp(x[j] − sub) for j < count, x[j] ≤ sub; returns the sum. kExact: ExpApprox (masked
// −inf entries give exactly 0, as the weights drawn need); otherwise ExpNonPositive (they give
// ~1e−38, which no float sum or weighted mean of the unmasked terms can see).
template <class V, bool kExact>
float ExpShiftedInPlace(float* x, int count, float sub) {
  constexpr int L = V::kLanes;
  const typename V::F vsub = V::Broadcast(sub);
  typename V::F sum = V::Zero();
  int j = 0;
  for (; j + L <= count; j += L) {
    const typename V::F shifted = V::Sub(V::Load(x + j), vsub);
    const typename V::F e = kExact ? ExpApprox<V>(shifted) : ExpNonPositive<V>(shifted);
    V::Store(x + j, e);
    sum = V::Add(sum, e);
  }
  float total = V::ReduceAdd(sum);
  for (; j < count; ++j) {
    x[j] = kExact ? ExpApprox<VecScalar>(x[j] - sub) : ExpNonPositive<VecScalar>(x[j] - sub);
    total += x[j];
  }
  return total;
}

// x[j] *= factor for j < count (count a multiple of the lane count).
template <class V>
void ScaleRow(float* x, int count, float factor) {
  const typename V::F f = V::Broadcast(factor);
  for (int j = 0; j < count; j += V::kLanes) V::Store(x + j, V::Mul(V::Load(x + j), f));
}

template <class V>
void FlashAttention(const FlashAttentionArgs& a) {
  constexpr int kMr = V::kMr, kNr = PanelWidth<V>();
  constexpr int kBr = kMr * 8;  // query rows per tile
  constexpr int kBc = 64;       // keys per tile, a multiple of every kNr (8, 16, 32)
  static_assert(kBc % kNr == 0, "key tile must hold whole panels");
  const int n = a.n, m = a.m, dk = a.d_k, dv = a.d_v;
  if (n <= 0 || dv <= 0) return;
  const int m_pad = RoundUp(MaxInt(m, 1), kBc), dv_pad = RoundUp(dv, kNr);

  // Kᵀ as panels of kNr keys, (m_pad / kNr, d_k, kNr); V as panels of kNr columns, (dv_pad / kNr, m_pad, kNr).
  // Padding keys (m up to m_pad) are zero in both. Q tile (kBr, d_k), S/P tile (kBr, kBc), O tile (kBr, dv_pad).
  const int dk1 = MaxInt(dk, 1);
  ScratchLayout layout;
  const std::size_t kt_at = layout.Add(static_cast<std::size_t>(m_pad) * dk1),
                    vp_at = layout.Add(static_cast<std::size_t>(dv_pad) * m_pad),
                    qs_at = layout.Add(static_cast<std::size_t>(kBr) * dk1), s_at = layout.Add(kBr * kBc),
                    o_at = layout.Add(static_cast<std::size_t>(kBr) * dv_pad);
  float* base = layout.Allocate();
  float *kt = ScratchLayout::At(base, kt_at), *vp = ScratchLayout::At(base, vp_at), *qs = ScratchLayout::At(base, qs_at),
        *s = ScratchLayout::At(base, s_at), *o = ScratchLayout::At(base, o_at);
  const int packed_keys = RoundUp(MaxInt(m, 0), kNr);  // PackAllPanels fills whole panels
  if (m > 0 && dk > 0) PackAllPanels<V>(a.k, a.ldk, true, dk, m, kt);
  for (std::size_t i = static_cast<std::size_t>(packed_keys) * dk1; i < static_cast<std::size_t>(m_pad) * dk1; ++i) kt[i] = 0.0f;
  for (int j0 = 0, t = 0; j0 < dv; j0 += kNr, ++t) {
    float* panel = vp + static_cast<std::size_t>(t) * m_pad * kNr;
    if (m > 0) PackPanel<V>(a.v, a.ldv, false, m, dv, j0, panel);
    for (std::size_t i = static_cast<std::size_t>(MaxInt(m, 0)) * kNr; i < static_cast<std::size_t>(m_pad) * kNr; ++i) panel[i] = 0.0f;
  }
  float row_max[kBr], row_sum[kBr];
  const KeyBand band{a};

  for (int q0 = 0; q0 < n; q0 += kBr) {
    const int rows = MinInt(kBr, n - q0), rows_pad = RoundUp(rows, kMr);
    // Q tile with the scale folded in; padding rows are zero, so their scores are 0 and unused.
    for (int r = 0; r < kBr; ++r)
      for (int c = 0; c < dk; ++c) qs[r * dk + c] = r < rows ? a.q[(q0 + r) * a.ldq + c] * a.scale : 0.0f;
    for (int i = 0; i < kBr * dv_pad; ++i) o[i] = 0.0f;
    for (int r = 0; r < kBr; ++r) row_max[r] = kMinusInf, row_sum[r] = 0.0f;

    const int p_first = a.query_offset + q0, p_last = p_first + rows - 1;
    const int tile_lo = band.Lo(p_first), tile_hi = band.Hi(p_last);
    // Every row allows [lo(p_last), hi(p_first)]: key tiles inside it need no mask.
    const int common_lo = band.Lo(p_last), common_hi = band.Hi(p_first);
    for (int k0 = tile_lo / kBc * kBc; k0 <= tile_hi; k0 += kBc) {
      // S = Qs Kᵀ[:, k0, k0 + kBc)   (rows_pad, kBc)
      for (int i = 0; i < rows_pad; i += kMr)
        for (int jj = 0; jj < kBc; jj += kNr)
          MicroKernel<V>(dk, qs + i * dk, dk, kt + static_cast<std::size_t>(k0 + jj) * dk, kNr, s + i * kBc + jj,
                         kBc, false);
      if (k0 < common_lo || k0 + kBc - 1 > common_hi) {
        for (int r = 0; r < rows; ++r) {
          const int lo = band.Lo(p_first + r) - k0, hi = band.Hi(p_first + r) - k0;
          float* row = s + r * kBc;
          for (int j = 0; j < kBc; ++j)
            if (j < lo || j > hi) row[j] = kMinusInf;
        }
      }
      // Online softmax: P = exp(S − m_new) in place; earlier sums and outputs scaled by exp(m_old − m_new).
      for (int r = 0; r < rows; ++r) {
        float* row = s + r * kBc;
        const float tile_max = RowMax<V>(row, kBc);
        const float m_new = tile_max > row_max[r] ? tile_max : row_max[r];
        if (m_new == kMinusInf) {  // nothing allowed yet: P = 0
          for (int j = 0; j < kBc; ++j) row[j] = 0.0f;
          continue;
        }
        const float alpha = ExpApprox<VecScalar>(row_max[r] - m_new);  // exp(−inf) = 0 on the first hit
        const float tile_sum = ExpShiftedInPlace<V, false>(row, kBc, m_new);
        row_sum[r] = row_sum[r] * alpha + tile_sum;
        row_max[r] = m_new;
        if (alpha != 1.0f) ScaleRow<V>(o + r * dv_pad, dv_pad, alpha);
      }
      // O += P V[k0, k0 + kBc)   (rows_pad, dv_pad)
      for (int i = 0; i < rows_pad; i += kMr)
        for (int t = 0; t < dv_pad / kNr; ++t)
          MicroKernel<V>(kBc, s + i * kBc, kBc, vp + static_cast<std::size_t>(t) * m_pad * kNr + static_cast<std::size_t>(k0) * kNr,
                         kNr, o + i * dv_pad + t * kNr, dv_pad, true);
    }
    for (int r = 0; r < rows; ++r) {
      const float inv = row_sum[r] > 0.0f ? 1.0f / row_sum[r] : 0.0f;  // no allowed key: zeros
      for (int c = 0; c < dv; ++c) a.out[(q0 + r) * a.ldo + c] = o[r * dv_pad + c] * inv;
    }
  }
}

}  // namespace
}  // namespace attn::simd
