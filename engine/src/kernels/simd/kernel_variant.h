// Builds one KernelTable from the templates for a SIMD width V. Included by exactly one
// translation unit per variant (kernels_<isa>.cpp), which is compiled with that ISA's flags.
#pragma once

#include "kernels/simd/fast_exp.h"
#include "kernels/simd/flash_attention.h"
#include "kernels/simd/gemm_tiled.h"
#include "kernels/simd/kernel_table.h"
#include "kernels/simd/vec_scalar.h"

namespace attn::simd {
namespace {

template <class V>
void ExpArray(const float* x, float* y, int count) {
  int i = 0;
  for (; i + V::kLanes <= count; i += V::kLanes) V::Store(y + i, ExpApprox<V>(V::Load(x + i)));
  for (; i < count; ++i) y[i] = ExpApprox<VecScalar>(x[i]);
}

// y[i] = exp(x[i]) for x[i] ≤ 1, or kBase2: 2^x[i] for x[i] ≤ 0 (not NaN), as the fused softmax
// computes it (ExpNonPositive, Exp2NonPositive).
template <class V, bool kBase2>
typename V::F ExpNonPositiveOf(typename V::F x) {
  if constexpr (kBase2) return Exp2NonPositive<V>(x);
  else return ExpNonPositive<V>(x);
}
template <class V, bool kBase2>
void ExpNonPositiveArray(const float* x, float* y, int count) {
  int i = 0;
  for (; i + V::kLanes <= count; i += V::kLanes) V::Store(y + i, ExpNonPositiveOf<V, kBase2>(V::Load(x + i)));
  for (; i < count; ++i) y[i] = ExpNonPositiveOf<VecScalar, kBase2>(x[i]);
}

// softmax(row · inv_temperature): max first, then exp(x·inv_t − max) and the sum, then scale by 1/sum.
template <class V>
void SoftmaxRows(const float* s, float* w, int rows, int cols, int ld, float inv_temperature) {
  for (int i = 0; i < rows; ++i) {
    const float* in = s + i * ld;
    float* out = w + i * ld;
    for (int j = 0; j < cols; ++j) out[j] = in[j] * inv_temperature;
    const float row_max = RowMax<V>(out, cols);
    if (row_max == kMinusInf) {  // fully masked: zeros, not 0/0
      for (int j = 0; j < cols; ++j) out[j] = 0.0f;
      continue;
    }
    const float inv_sum = 1.0f / ExpShiftedInPlace<V>(out, cols, row_max);
    for (int j = 0; j < cols; ++j) out[j] *= inv_sum;
  }
}

// True when no x[i] is ±inf or NaN: x·0 is 0 for every finite x and NaN otherwise, summed in four
// independent vectors (a scalar test per float was 2–4% of a forward at n = 64 … 256 on AVX-512).
template <class V>
bool NoInfOrNan(const float* x, std::size_t count) {
  constexpr std::size_t L = V::kLanes;
  const typename V::F zero = V::Zero();
  typename V::F a = zero, b = zero, c = zero, d = zero;
  std::size_t i = 0;
  for (; i + 4 * L <= count; i += 4 * L) {
    a = V::MulAdd(V::Load(x + i), zero, a), b = V::MulAdd(V::Load(x + i + L), zero, b);
    c = V::MulAdd(V::Load(x + i + 2 * L), zero, c), d = V::MulAdd(V::Load(x + i + 3 * L), zero, d);
  }
  for (; i + L <= count; i += L) a = V::MulAdd(V::Load(x + i), zero, a);
  float tail = 0.0f;
  for (; i < count; ++i) tail += x[i] * 0.0f;
  return V::ReduceAdd(V::Add(V::Add(a, b), V::Add(c, d))) + tail == 0.0f;
}

// most[c] = max over the rows of |x[r·ld + c]| for c < cols, and whether every x[r·ld + c] is finite
// (when not, `most` is unspecified): one pass where a finiteness test and then a column maximum were
// two (the value projection's, 0.6% of the bench layer's forward at n = 256 on AVX-512). Four vectors
// of columns at a time down the rows, each with its own maximum and its own finiteness sum in
// registers (one sum for all was a chain of multiply-add latencies). The maximum is exact, so every
// kernel finds the same one.
template <class V>
bool ColumnsMaxAbs(const float* x, int rows, int cols, int ld, float* most) {
  using F = typename V::F;
  constexpr int L = V::kLanes;
  const F zero = V::Zero();
  const auto size = [&](F v) { return V::Max(v, V::Sub(zero, v)); };
  const auto row = [&](int r) { return x + static_cast<std::size_t>(r) * ld; };
  F finite = zero;  // v·0 is 0 for every finite v, NaN otherwise
  int c = 0;
  for (; c + 4 * L <= cols; c += 4 * L) {
    F m0 = zero, m1 = zero, m2 = zero, m3 = zero, f0 = zero, f1 = zero, f2 = zero, f3 = zero;
    for (int r = 0; r < rows; ++r) {
      const float* p = row(r) + c;
      const F v0 = V::Load(p), v1 = V::Load(p + L), v2 = V::Load(p + 2 * L), v3 = V::Load(p + 3 * L);
      m0 = V::Max(m0, size(v0)), m1 = V::Max(m1, size(v1)), m2 = V::Max(m2, size(v2)), m3 = V::Max(m3, size(v3));
      f0 = V::MulAdd(v0, zero, f0), f1 = V::MulAdd(v1, zero, f1), f2 = V::MulAdd(v2, zero, f2), f3 = V::MulAdd(v3, zero, f3);
    }
    V::Store(most + c, m0), V::Store(most + c + L, m1), V::Store(most + c + 2 * L, m2), V::Store(most + c + 3 * L, m3);
    finite = V::Add(finite, V::Add(V::Add(f0, f1), V::Add(f2, f3)));
  }
  for (; c + L <= cols; c += L) {
    F m0 = zero;
    for (int r = 0; r < rows; ++r) {
      const F v = V::Load(row(r) + c);
      m0 = V::Max(m0, size(v)), finite = V::MulAdd(v, zero, finite);
    }
    V::Store(most + c, m0);
  }
  float tail_finite = 0.0f;
  for (; c < cols; ++c) {
    most[c] = 0.0f;
    for (int r = 0; r < rows; ++r) {
      const float v = row(r)[c], v_size = v < 0.0f ? -v : v;
      tail_finite += v * 0.0f;
      most[c] = v_size > most[c] ? v_size : most[c];
    }
  }
  return V::ReduceAdd(finite) + tail_finite == 0.0f;
}

template <class V>
float PeakProbe(long steps) {
  using F = typename V::F;
  constexpr int kChains = 12;
  F acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = V::Broadcast(0.01f * static_cast<float>(i + 1));
  const F b = V::Broadcast(0.999f), c = V::Broadcast(0.001f);
  for (long s = 0; s < steps; ++s)
    for (int i = 0; i < kChains; ++i) acc[i] = V::MulAdd(acc[i], b, c);
  F total = acc[0];
  for (int i = 1; i < kChains; ++i) total = V::Add(total, acc[i]);
  return V::ReduceAdd(total);
}

template <class V>
KernelTable MakeKernelTable() {
  return KernelTable{V::kId,
                     V::kName,
                     V::kLanes,
                     V::kGemmRows,
                     static_cast<int>(sizeof(V::kGemmRows) / sizeof(V::kGemmRows[0])),
                     V::kMr,
                     V::kFusedMultiplyAdd,
                     false,
                     &Gemm<V>,
                     &PackedSize<V>,
                     &PackAllPanels<V>,
                     &GemmPacked<V>,
                     &FlashAttention<V>,
                     &ExpArray<V>,
                     &ExpNonPositiveArray<V, false>,
                     &ExpNonPositiveArray<V, true>,
                     &SoftmaxRows<V>,
                     &NoInfOrNan<V>,
                     &ColumnsMaxAbs<V>,
                     &PeakProbe<V>};
}

}  // namespace
}  // namespace attn::simd
