// Fused attention for one head, FlashAttention-style (Dao et al. 2022): query rows in tiles of kBr,
// keys in tiles of kBc (both chosen per CPU, attn/kernel_choice.h); per key tile S = Q Kᵀ on the GEMM
// micro-kernel, an online softmax (running row max m and sum l, earlier output rescaled by
// exp(m_old − m_new)), then O += P V. Scores in log2 units where they fit (all but extreme inputs):
// the query tile is copied as c·Q, c = scale/τ·log2 e, so P = 2^(S − m), one subtraction and
// Exp2NonPositive per score; otherwise S is scaled in the exp pass and P = exp(scale·S/τ − m).
// A call computes every query tile, or every tile_stride-th from tile_first (threads sharing a head).
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

// Keys [lo, hi] query position p may attend to (lo > hi: none), see FlashAttentionArgs. Position
// arithmetic in 64 bits (p + window_right may pass INT_MAX); the results are clamped to [-1, m].
struct KeyBand {
  const FlashAttentionArgs& a;
  int Lo(long long p) const {
    const long long lo = a.window_left >= 0 ? p - a.window_left : 0;
    return static_cast<int>(lo < 0 ? 0 : lo > a.m ? a.m : lo);
  }
  int Hi(long long p) const {
    long long hi = a.m - 1;
    if (a.causal && p < hi) hi = p;
    if (a.window_right >= 0 && p + a.window_right < hi) hi = p + a.window_right;
    return static_cast<int>(hi < -1 ? -1 : hi);
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

// Lane-wise sums of P for one row of a key tile, scores in log2 units (the query tile scaled by
// scale/τ·log2 e): x[j] = 2^(x[j] − m_new) for j < count (a multiple of the lane count), m_new the
// largest score exactly (no rounding between the product and the max), so every x[j] − m_new ≤ 0 and
// is rounded once. kMasked: −inf entries (masked keys) give exactly 0; elsewhere Exp2NonPositive's
// results below FLT_MIN come out as FLT_MIN, well within the float32 error of a weighted mean whose
// largest term has weight 1. Both kinds of tile compute an allowed score alike, so a row's weights do
// not depend on whether the rows beside it in its query tile made the tile partly masked.
template <class V, bool kMasked>
typename V::F RowExp2Sum(float* x, int count, float m_new) {
  using F = typename V::F;
  const F m = V::Broadcast(m_new);
  F sum = V::Zero();
  for (int j = 0; j < count; j += V::kLanes) {
    const F raw = V::Load(x + j);
    F e = Exp2NonPositive<V>(V::Sub(raw, m));
    if constexpr (kMasked) e = V::ZeroWhereMinusInf(raw, e);
    V::Store(x + j, e);
    sum = V::Add(sum, e);
  }
  return sum;
}

// Lane-wise sums of P for one row of a key tile where scores are too large for log2 units (Log2Scores):
// x[j] = exp(y[j] − m_new) for j < count (a multiple of the lane count), y[j] = x[j]·scale·inv_temperature
// rounded as the materialised path rounds scaled scores, then y − m_new; *check stays 0 unless some y
// is ±inf or NaN. kMasked: x holds y already (scaled by the masking pass), −inf entries give exactly 0
// (ExpNonPositive's ~1e−38 times a value of 1e38 would be a visible 1 in the output).
// kTemperature false: inv_temperature is 1, and y·1 = y exactly, so the second multiply is skipped.
template <class V, bool kTemperature, bool kMasked>
typename V::F RowExpSum(float* x, int count, float scale, float inv_temperature, float m_new, typename V::F* check) {
  using F = typename V::F;
  const F s = V::Broadcast(scale), t = V::Broadcast(inv_temperature), m = V::Broadcast(m_new), zero = V::Zero();
  F sum = V::Zero(), bad = *check;
  for (int j = 0; j < count; j += V::kLanes) {
    const F raw = V::Load(x + j);
    F shifted;
    if constexpr (kMasked) {
      shifted = V::Sub(raw, m);
    } else {
      F y = V::Mul(raw, s);
      if constexpr (kTemperature) y = V::Mul(y, t);
      bad = V::MulAdd(y, zero, bad);  // y·0 is 0 unless y is ±inf or NaN
      shifted = V::Sub(V::Rounded(y), m);  // as written: a compiler must not fuse y's product into the subtraction
    }
    F e = ExpNonPositive<V>(shifted);
    if constexpr (kMasked) e = V::ZeroWhereMinusInf(raw, e);
    V::Store(x + j, e);
    sum = V::Add(sum, e);
  }
  *check = bad;
  return sum;
}

// RowExpSum with the temperature's form picked at run time.
template <class V, bool kMasked>
typename V::F RowExpSum(bool temperature, float* x, int count, float scale, float inv_temperature, float m_new,
                        typename V::F* check) {
  return temperature ? RowExpSum<V, true, kMasked>(x, count, scale, inv_temperature, m_new, check)
                     : RowExpSum<V, false, kMasked>(x, count, scale, inv_temperature, m_new, check);
}

inline float MaxF(float a, float b) { return a > b ? a : b; }

// max |x[i·ld + j]| over rows × cols (finite x).
template <class V>
float MaxAbs(const float* x, int rows, int cols, int ld) {
  const int whole = cols / V::kLanes * V::kLanes;
  typename V::F most = V::Zero();
  float tail = 0.0f;
  for (int i = 0; i < rows; ++i) {
    const float* row = x + static_cast<std::size_t>(i) * ld;
    for (int j = 0; j < whole; j += V::kLanes) {
      const typename V::F v = V::Load(row + j);
      most = V::Max(most, V::Max(v, V::Sub(V::Zero(), v)));
    }
    for (int j = whole; j < cols; ++j) tail = MaxF(tail, row[j] < 0.0f ? -row[j] : row[j]);
  }
  return MaxF(V::ReduceMax(most), tail);
}

// The factor that puts scores in log2 units, c = scale/τ·log2 e (scale·inv_temperature·log2 e in
// double, rounded once), when the call's scores fit them; 0 otherwise. They fit where
//  - no raw score q·k, scaled score or intermediate of the materialised path can overflow (every
//    kernel and path must give the same status: a raw q·k past FLT_MAX is an overflow even under a
//    scale that would bring it back), and those scaled scores are at most 2^24 in size; and
//  - c is finite in float (scale/τ may pass FLT_MAX where tiny q and k keep the scores small), c·q
//    is finite for every query entry and every score (c·q)·k at most 2^24 in size.
// From the largest |q| and |k| alone: a dot product's partial sums are at most d_k·max|q|·max|k|
// exactly, and under twice that as computed (each of d_k roundings adds a factor 1 + 2^−24); a
// scaling adds one rounding (within the factor 2 too; c·q's, the factor 1 + 2^−24). In double, where
// the bound itself cannot overflow. All but extreme inputs fit. Every input is finite (checked before
// any kernel runs). Decided for the whole call (every thread's share decides alike), so a row's bits
// do not depend on the tiling.
template <class V>
float Log2Scores(const FlashAttentionArgs& a) {
  constexpr double kLimit = 16777216.0, kFloatMax = static_cast<double>(std::numeric_limits<float>::max());
  const double q_most = MaxAbs<V>(a.q, a.n, a.d_k, a.ldq), k_most = MaxAbs<V>(a.k, a.m, a.d_k, a.ldk);
  const double scale = std::fabs(static_cast<double>(a.scale)), inv_temperature = std::fabs(static_cast<double>(a.inv_temperature));
  const double products = 2.0 * a.d_k * q_most * k_most;
  const bool materialised_fits = products < kFloatMax / 2 && products * scale * (inv_temperature > 1.0 ? inv_temperature : 1.0) <= kLimit;
  const double c = static_cast<double>(a.scale) * a.inv_temperature * 1.4426950408889634;
  const double cq_most = q_most * std::fabs(c) * (1.0 + 1.0 / 16777216);
  const bool log2_fits = std::fabs(c) < kFloatMax && cq_most < kFloatMax / 2 && 2.0 * a.d_k * cq_most * k_most <= kLimit;
  return materialised_fits && log2_fits ? static_cast<float>(c) : 0.0f;
}

// Lane-wise sums of P for one row of a partly masked key tile: x[j] = exp(x[j] − m_new) for
// j < count (a multiple of the lane count), x already scaled, masked entries −inf (they give exactly 0).
template <class V>
typename V::F ExpShiftedSum(float* x, int count, float m_new) {
  const typename V::F m = V::Broadcast(m_new);
  typename V::F sum = V::Zero();
  for (int j = 0; j < count; j += V::kLanes) {
    const typename V::F e = ExpApprox<V>(V::Sub(V::Load(x + j), m));
    V::Store(x + j, e);
    sum = V::Add(sum, e);
  }
  return sum;
}

// x[j] = exp(x[j] − sub) for j < count (any count), x[j] ≤ sub; returns the sum. ExpApprox: masked
// −inf entries give exactly 0, as the weights drawn need, and as masked keys need (their values may
// be as large as 1e38).
template <class V>
float ExpShiftedInPlace(float* x, int count, float sub) {
  const int whole = count / V::kLanes * V::kLanes;
  float total = V::ReduceAdd(ExpShiftedSum<V>(x, whole, sub));
  for (int j = whole; j < count; ++j) {
    x[j] = ExpApprox<VecScalar>(x[j] - sub);
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

// The tile of query rows at most (KernelChoice::attention_rows is 4 or 8 micro-kernel tiles),
// rounded up to whole vectors: the per-row softmax state is processed a vector at a time.
template <class V>
constexpr int MaxQueryTile() { return (V::kMr * 8 + V::kLanes - 1) / V::kLanes * V::kLanes; }

template <class V>
void FlashAttention(const FlashAttentionArgs& a) {
  constexpr int kMr = V::kMr, kNr = PanelWidth<V>(), L = V::kLanes;
  // The tile, chosen per CPU by measurement (attn/kernel_choice.h): query rows kBr (a multiple of kMr,
  // at most MaxQueryTile; a row's arithmetic does not depend on it) and keys kBc (64, 128 or 256, a
  // multiple of every kNr: where the online softmax rescales, so two choices differ within its bound).
  // More keys: less per-tile work per row (its max, rescale factor and output rescale) and a longer k
  // for the P·V micro-kernel per load and store of its accumulators; fewer: S and P stay in L1.
  const KernelChoice& choice = CurrentChoice(V::kId);  // before Scratch (see Gemm)
  const int kBr = choice.attention_rows, kBc = choice.attention_keys, kBrVectors = RoundUp(kBr, L);
  const int n = a.n, m = a.m, dk = a.d_k, dv = a.d_v;
  if (n <= 0 || dv <= 0) return;
  // Fewer keys than a tile: one tile of whole panels (m = 16 computes 16 or 32 columns, not 64).
  const int bc = MinInt(kBc, RoundUp(MaxInt(m, 1), kNr));
  const int m_pad = RoundUp(MaxInt(m, 1), bc), dv_pad = RoundUp(dv, kNr);

  // Kᵀ as panels of kNr keys, (m_pad / kNr, d_k, kNr); V as panels of kNr columns, (dv_pad / kNr, m_pad, kNr).
  // Padding keys (m up to m_pad) are zero in both. S/P tile (kBr, bc), O tile (kBr, dv_pad), the
  // scaled Q tile (kBr, d_k) where scores are in log2 units.
  const int dk1 = MaxInt(dk, 1);
  ScratchLayout layout;
  const std::size_t kt_at = layout.Add(static_cast<std::size_t>(m_pad) * dk1),
                    vp_at = layout.Add(static_cast<std::size_t>(dv_pad) * m_pad),
                    s_at = layout.Add(kBr * kBc),
                    o_at = layout.Add(static_cast<std::size_t>(kBr) * dv_pad),
                    qs_at = layout.Add(static_cast<std::size_t>(kBr) * dk1);
  float* base = layout.Allocate();
  float *kt = ScratchLayout::At(base, kt_at), *vp = ScratchLayout::At(base, vp_at),
        *s = ScratchLayout::At(base, s_at), *o = ScratchLayout::At(base, o_at), *qs = ScratchLayout::At(base, qs_at);
  const int packed_keys = RoundUp(MaxInt(m, 0), kNr);  // PackAllPanels fills whole panels
  if (m > 0 && dk > 0) PackAllPanels<V>(a.k, a.ldk, true, dk, m, kt);
  for (std::size_t i = static_cast<std::size_t>(packed_keys) * dk1; i < static_cast<std::size_t>(m_pad) * dk1; ++i) kt[i] = 0.0f;
  for (int j0 = 0, t = 0; j0 < dv; j0 += kNr, ++t) {
    float* panel = vp + static_cast<std::size_t>(t) * m_pad * kNr;
    if (m > 0) PackPanel<V>(a.v, a.ldv, false, m, dv, j0, panel);
    for (std::size_t i = static_cast<std::size_t>(MaxInt(m, 0)) * kNr; i < static_cast<std::size_t>(m_pad) * kNr; ++i) panel[i] = 0.0f;
  }
  // Per query row of the tile: the running max m, the running sum l as kLanes partial sums (reduced
  // once, after the last key tile), and this key tile's max and rescale factor.
  constexpr int kMaxBr = MaxQueryTile<V>();
  alignas(64) float row_max[kMaxBr], tile_max[kMaxBr], alpha[kMaxBr], row_sums[kMaxBr * L];
  const KeyBand band{a};
  const bool unit_temperature = a.inv_temperature == 1.0f;
  // Scores in log2 units where they fit (Log2Scores): no scaling between the product and the row max,
  // so the max is exact and every exponent an exact score minus it, rounded once; Exp2NonPositive
  // needs 5 multiply-adds a vector where the scaling and ExpNonPositive took 9 (n = 4096: the layer's
  // forward 1.8% faster on AVX-512, 1.7% on relaxed wasm). No score can be ±inf or NaN there.
  const float log2_factor = Log2Scores<V>(a);
  const bool log2_scores = log2_factor != 0.0f;

  for (int q0 = a.tile_first * kBr; q0 < n; q0 += a.tile_stride * kBr) {
    const int rows = MinInt(kBr, n - q0), rows_pad = RoundUp(rows, kMr);
    // The Q tile: copied as c·Q (log2 units), else read in place (the scale is applied to the scores,
    // as the materialised path does). Padding rows up to rows_pad repeat the tile's last row
    // (MicroKernel's a_rows): their scores, weights and outputs are junk that no row below rows reads;
    // rows past rows_pad are never read.
    const float* q_tile = a.q + static_cast<std::size_t>(q0) * a.ldq;
    int ldq = a.ldq;
    if (log2_scores) {
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c < dk; ++c) qs[r * dk1 + c] = q_tile[static_cast<std::size_t>(r) * a.ldq + c] * log2_factor;
      q_tile = qs, ldq = dk1;
    }
    for (int i = 0; i < rows_pad * dv_pad; ++i) o[i] = 0.0f;
    for (int r = 0; r < kBrVectors; ++r) row_max[r] = tile_max[r] = kMinusInf;
    for (int i = 0; i < kBr * L; ++i) row_sums[i] = 0.0f;

    const long long p_first = static_cast<long long>(a.query_offset) + q0, p_last = p_first + rows - 1;
    const int tile_lo = band.Lo(p_first), tile_hi = band.Hi(p_last);
    // Every row allows [lo(p_last), hi(p_first)]: key tiles inside it need no mask.
    const int common_lo = band.Lo(p_last), common_hi = band.Hi(p_first);
    for (int k0 = tile_lo / bc * bc; k0 <= tile_hi; k0 += bc) {
      // S = Qs Kᵀ[:, k0, k0 + bc)   (rows_pad, bc)
      for (int i = 0; i < rows_pad; i += kMr)
        for (int jj = 0; jj < bc; jj += kNr)
          MicroKernel<V>(dk, q_tile + static_cast<std::size_t>(i) * ldq, ldq, kt + static_cast<std::size_t>(k0 + jj) * dk,
                         kNr, s + i * bc + jj, bc, false, MinInt(kMr, rows - i));
      // Each row's max score (log2 units), or max scaled score. Unmasked tiles: the max of the
      // scores; scaled, the max of the raw scores, then scaled (rounding is monotonic and scale,
      // 1/τ > 0, so that is the max of the scaled scores), the scores scaled in the exp pass below.
      // Partly masked tiles: masked ones −inf, the others scaled here. Only allowed scores must be
      // finite (in log2 units they are).
      const bool partly_masked = k0 < common_lo || k0 + bc - 1 > common_hi;
      bool finite = true;
      for (int r = 0; r < rows; ++r) {
        float* row = s + r * bc;
        if (!partly_masked) {
          if (log2_scores) {
            tile_max[r] = RowMax<V>(row, bc);
            continue;
          }
          tile_max[r] = RowMax<V>(row, bc) * a.scale * a.inv_temperature;
          if (!(tile_max[r] - tile_max[r] == 0.0f)) finite = false;  // ±inf or NaN; the exp pass checks the rest
          continue;
        }
        const int lo = band.Lo(p_first + r) - k0, hi = band.Hi(p_first + r) - k0;
        float best = kMinusInf;
        for (int j = 0; j < bc; ++j) {
          if (j < lo || j > hi) {
            row[j] = kMinusInf;
            continue;
          }
          const float y = log2_scores ? row[j] : row[j] * a.scale * a.inv_temperature;
          if (!(y - y == 0.0f)) finite = false;  // ±inf or NaN
          row[j] = y;
          best = y > best ? y : best;
        }
        tile_max[r] = best;
      }
      // Online softmax: m_new = max(m, tile max), rescale factors exp(m − m_new) (2^(m − m_new) in
      // log2 units) for all rows at once (exp(−inf) = 0 on a row's first allowed key; NaN where
      // nothing is allowed yet: unused). A factor's rounding does not reach the output: it scales a
      // row's sum and its output alike.
      const typename V::F to_natural = V::Broadcast(log2_scores ? 0.693147180559945f : 1.0f);
      for (int r = 0; r < kBrVectors; r += L) {
        const typename V::F m_old = V::Load(row_max + r), m_new = V::Max(m_old, V::Load(tile_max + r));
        V::Store(alpha + r, ExpApprox<V>(V::Mul(V::Sub(m_old, m_new), to_natural)));
        V::Store(row_max + r, m_new);
      }
      // P = exp(S − m_new) in place; earlier sums and outputs scaled by alpha.
      typename V::F check = V::Zero();
      for (int r = 0; r < rows; ++r) {
        float* row = s + r * bc;
        if (row_max[r] == kMinusInf) {  // nothing allowed yet: P = 0
          for (int j = 0; j < bc; ++j) row[j] = 0.0f;
          continue;
        }
        const bool temperature = !unit_temperature;
        const float scale = a.scale, inv_t = a.inv_temperature, m_row = row_max[r];
        const typename V::F tile_sum =
            log2_scores ? (partly_masked ? RowExp2Sum<V, true>(row, bc, m_row) : RowExp2Sum<V, false>(row, bc, m_row))
                        : (partly_masked ? RowExpSum<V, true>(temperature, row, bc, scale, inv_t, m_row, &check)
                                         : RowExpSum<V, false>(temperature, row, bc, scale, inv_t, m_row, &check));
        float* sum = row_sums + r * V::kLanes;
        V::Store(sum, V::MulAdd(V::Load(sum), V::Broadcast(alpha[r]), tile_sum));
        if (alpha[r] != 1.0f) ScaleRow<V>(o + r * dv_pad, dv_pad, alpha[r]);
      }
      if (!finite || !(V::ReduceAdd(check) == 0.0f)) {
        if (a.overflowed) *a.overflowed = true;
        return;
      }
      // O += P V[k0, k0 + bc)   (rows_pad, dv_pad)
      for (int i = 0; i < rows_pad; i += kMr)
        for (int t = 0; t < dv_pad / kNr; ++t)
          MicroKernel<V>(bc, s + i * bc, bc, vp + static_cast<std::size_t>(t) * m_pad * kNr + static_cast<std::size_t>(k0) * kNr,
                         kNr, o + i * dv_pad + t * kNr, dv_pad, true);
    }
    for (int r = 0; r < rows; ++r) {
      const float row_sum = V::ReduceAdd(V::Load(row_sums + r * V::kLanes));
      const float inv = row_sum > 0.0f ? 1.0f / row_sum : 0.0f;  // no allowed key: zeros
      for (int c = 0; c < dv; ++c) a.out[static_cast<std::size_t>(q0 + r) * a.ldo + c] = o[r * dv_pad + c] * inv;
    }
  }
}

}  // namespace
}  // namespace attn::simd
