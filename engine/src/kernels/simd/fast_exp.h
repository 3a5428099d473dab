// exp(x) in float for any SIMD width, over the whole range: results below FLT_MIN come out as
// (correctly scaled) denormals, x > 88.7228 gives +inf, x = −inf gives 0, NaN stays NaN. Measured
// by simd_kernels_test (SimdKernels.ExpWithin2UlpOverTheWholeRange) against float(exp(double)) over
// every 251st float bit pattern (17 million inputs, both signs) and the edges: at most 1 ulp on
// avx2, avx512 and wasm_simd128; the test fails above 2 ulp.
//
// exp(x) = 2^k · exp(r),  k = round(x / ln 2),  r = x − k ln 2 ∈ [−ln2/2, ln2/2]   (ln 2 in two parts
// so k ln 2 is exact), exp(r) by a degree-6 minimax polynomial (Cephes expf coefficients), and 2^k
// applied as 2^⌊k/2⌋ · 2^(k−⌊k/2⌋) so both factors stay normal for k ∈ [−150, 128].
#pragma once

namespace attn::simd {
namespace {

// exp(x) = 2^k · p for x inside [−104, 89]: k = round(x / ln 2) and p = exp(x − k ln 2) ∈ [0.7, 1.42].
template <class V>
typename V::F ExpMantissa(typename V::F x, typename V::F* k) {
  using F = typename V::F;
  *k = V::RoundNearest(V::Mul(x, V::Broadcast(1.44269504088896341f)));
  F r = V::MulAdd(*k, V::Broadcast(-0.693359375f), x);
  r = V::MulAdd(*k, V::Broadcast(2.12194440e-4f), r);
  F p = V::Broadcast(1.9875691500e-4f);
  p = V::MulAdd(p, r, V::Broadcast(1.3981999507e-3f));
  p = V::MulAdd(p, r, V::Broadcast(8.3334519073e-3f));
  p = V::MulAdd(p, r, V::Broadcast(4.1665795894e-2f));
  p = V::MulAdd(p, r, V::Broadcast(1.6666665459e-1f));
  p = V::MulAdd(p, r, V::Broadcast(5.0000001201e-1f));
  return V::MulAdd(p, V::Mul(r, r), V::Add(r, V::Broadcast(1.0f)));
}

template <class V>
typename V::F ExpApprox(typename V::F x) {
  using F = typename V::F;
  // exp(−104) < 2^−150 rounds to 0; exp(89) > FLT_MAX: clamping keeps k inside [−150, 129).
  const F clamped = V::Min(V::Max(x, V::Broadcast(-104.0f)), V::Broadcast(89.0f));
  F k;
  const F p = ExpMantissa<V>(clamped, &k);
  const F k_low = V::HalfFloor(k);
  const F result = V::MulPow2(V::MulPow2(p, k_low), V::Sub(k, k_low));
  return V::KeepNaN(x, result);
}

// 1 + r·p(r), p(r) = c[0] + c[1]·r + … + c[4]·r⁴ by Horner's rule: 5 multiply-adds. The softmax's
// exponentials' reduced-argument forms (scripts/exp_minimax.py derives each one's c).
template <class V>
typename V::F OnePlusTimesQuartic(typename V::F r, const float (&c)[5]) {
  typename V::F p = V::Broadcast(c[4]);
  for (int i = 3; i >= 0; --i) p = V::MulAdd(p, r, V::Broadcast(c[i]));
  return V::MulAdd(r, p, V::Broadcast(1.0f));
}

// exp(x) for x ≤ 1 where results below FLT_MIN (x < −87.3) may flush to 0 and x is never NaN: the
// fused softmax's exp of scaled scores minus their max where the scores are too large for log2 units
// (flash_attention.h; Exp2NonPositive below serves all other calls). One 2^k factor,
// no NaN blend, and exp(r) = 1 + r·p(r) with p of degree 4 (5 multiply-adds where ExpMantissa's form
// takes 8 operations): p's coefficients minimise the relative error of 1 + r·p(r) against e^r on
// [−ln2/2, ln2/2], 9.2e−8 (scripts/exp_minimax.py derives them). Measured by simd_kernels_test
// (SimdKernels.ExpNonPositiveWithin2Ulp) over every 61st float bit pattern of [−87.3, 0] and of
// (0, 1]: the test fails above 2 ulp, the bound the softmax tests' tolerances are derived for.
//
// V::kPow2ByMagic (WebAssembly, which has no cheap float-to-integer conversion): k and 2^k come out
// of one multiply-add, t = x·log2(e) + 1.5·2^23. t lies in [2^23, 2^24), where floats are the
// integers, so the add rounds x·log2(e) to the nearest integer k (ties to even, as RoundNearest) and
// t's low mantissa bits hold k ∈ [−126, 1] (two's complement, borrowing from the constant's 0x400000):
// k = t − the constant (exact), and t's bits shifted left by 23 are k·2^23 modulo 2^32 (the
// constant's bits, 0x4B400000, shift out), which added to the mantissa's bits as integers adds k to
// its exponent: mantissa·2^k exactly, as the product by 2^k rounds it, because every result is
// normal here (the clamp keeps k ≥ −126, and where k = −126, r ≥ 0 so the mantissa is ≥ 1). Four
// operations where the multiply, RoundNearest, Pow2 (an add, an integer add, a shift) and the product
// took six, and one fewer on the multipliers the products need.
// Unfused, the multiply rounds first: the same k as RoundNearest(x·log2(e)), so the same bits; fused,
// k may differ from it by one where x·log2(e) lies within half an ulp of a half-integer, leaving |r|
// a hair past ln2/2, where the polynomial's error is still under the test's 2 ulp.
template <class V>
typename V::F ExpNonPositive(typename V::F x) {
  using F = typename V::F;
  const F clamped = V::Max(x, V::Broadcast(-87.33654f));  // k ≥ −126: 2^k stays normal; exp(−inf) → ~1e−38
  const F log2e = V::Broadcast(1.44269504088896341f);
  constexpr float kMagic = 12582912.0f;  // 1.5·2^23
  F k, t{};
  if constexpr (V::kPow2ByMagic) {
    t = V::MulAdd(clamped, log2e, V::Broadcast(kMagic));
    k = V::Sub(t, V::Broadcast(kMagic));
  } else {
    k = V::RoundNearest(V::Mul(clamped, log2e));
  }
  F r = V::MulAdd(k, V::Broadcast(-0.693359375f), clamped);  // ln 2 in two parts: k·0.693359375 is exact
  r = V::MulAdd(k, V::Broadcast(2.12194440e-4f), r);
  const F mantissa = OnePlusTimesQuartic<V>(r, {0x1.fffff6p-1f, 0x1.fffdc6p-2f, 0x1.555a6cp-3f, 0x1.573a72p-5f, 0x1.0fa7f2p-7f});
  if constexpr (V::kPow2ByMagic) return V::AddToExponent(mantissa, t);
  else return V::MulPow2(mantissa, k);
}

// 2^z for z ≤ 0 where results below FLT_MIN (z < −126) may flush to 2^−126 and z is never NaN: the
// fused softmax's exp where its scores are in log2 units (the query scaled by scale/τ·log2 e, so
// z = score − max, one subtraction: flash_attention.h). 2^z = 2^k · 2^f, k = round(z) and f = z − k
// exactly (|f| ≤ 1/2, z's bits below 1), 2^f = 1 + f·p(f) with p of degree 4 (relative error 9.2e−8
// on [−1/2, 1/2], scripts/exp_minimax.py 2 derives the coefficients). Against ExpNonPositive: no
// multiply by log2 e and no two-part reduction by ln 2 (f is exact), so 5 multiply-adds where
// ExpNonPositive puts 8 operations on the multipliers the products also need (the product by log2 e,
// or wasm's multiply-add for k; two for the reduction; five for the polynomial). Measured by simd_kernels_test
// (SimdKernels.Exp2NonPositiveWithin2Ulp) over every 61st float bit pattern of [−126, 0]: the test
// fails above 2 ulp, the bound the softmax tests' tolerances are derived for.
// V::kPow2ByMagic: t = z + 1.5·2^23 rounds z to k in t's low mantissa bits, as in ExpNonPositive, and
// the clamp keeps k ≥ −126, with f ≥ 0 where k = −126, so every result is normal.
template <class V>
typename V::F Exp2NonPositive(typename V::F z) {
  using F = typename V::F;
  const F clamped = V::Max(z, V::Broadcast(-126.0f));  // 2^−126 = FLT_MIN; −inf (masked keys) → FLT_MIN
  constexpr float kMagic = 12582912.0f;  // 1.5·2^23
  F k, t{};
  if constexpr (V::kPow2ByMagic) {
    t = V::Add(clamped, V::Broadcast(kMagic));
    k = V::Sub(t, V::Broadcast(kMagic));
  } else {
    k = V::RoundNearest(clamped);
  }
  const F f = V::Sub(clamped, k);
  const F mantissa = OnePlusTimesQuartic<V>(f, {0x1.62e42ap-1f, 0x1.ebf9bcp-3f, 0x1.c6b754p-5f, 0x1.3ceaa2p-7f, 0x1.5bb9c0p-10f});
  if constexpr (V::kPow2ByMagic) return V::AddToExponent(mantissa, t);
  else return V::MulPow2(mantissa, k);
}

}  // namespace
}  // namespace attn::simd
