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

// y[i] = exp(x[i]) for x[i] ≤ 1 (not NaN) as the fused softmax computes it (ExpNonPositive).
template <class V>
void ExpNonPositiveArray(const float* x, float* y, int count) {
  int i = 0;
  for (; i + V::kLanes <= count; i += V::kLanes) V::Store(y + i, ExpNonPositive<V>(V::Load(x + i)));
  for (; i < count; ++i) y[i] = ExpNonPositive<VecScalar>(x[i]);
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
// two (the value projection's, 0.6% of the bench layer's forward at n = 256 on AVX-512). The
// maximum is exact, so every kernel finds the same one.
template <class V>
bool ColumnsMaxAbs(const float* x, int rows, int cols, int ld, float* most) {
  constexpr int L = V::kLanes;
  const int whole = cols / L * L;
  const typename V::F zero = V::Zero();
  typename V::F finite = zero;
  float tail_finite = 0.0f;
  for (int c = 0; c < cols; ++c) most[c] = 0.0f;
  for (int r = 0; r < rows; ++r) {
    const float* row = x + static_cast<std::size_t>(r) * ld;
    for (int c = 0; c < whole; c += L) {
      const typename V::F v = V::Load(row + c);
      finite = V::MulAdd(v, zero, finite);  // v·0 is 0 for every finite v, NaN otherwise
      V::Store(most + c, V::Max(V::Load(most + c), V::Max(v, V::Sub(zero, v))));
    }
    for (int c = whole; c < cols; ++c) {
      tail_finite += row[c] * 0.0f;
      const float size = row[c] < 0.0f ? -row[c] : row[c];
      most[c] = size > most[c] ? size : most[c];
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
                     &ExpNonPositiveArray<V>,
                     &SoftmaxRows<V>,
                     &NoInfOrNan<V>,
                     &ColumnsMaxAbs<V>,
                     &PeakProbe<V>};
}

}  // namespace
}  // namespace attn::simd
