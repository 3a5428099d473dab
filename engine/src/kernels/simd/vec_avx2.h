// 8 float lanes on AVX2 + FMA (x86-64). Included only by kernels_avx2.cpp, built with -mavx2 -mfma.
#pragma once

#include <immintrin.h>

#include "attn/kernels.h"
#include "kernels/simd/transpose_avx.h"

namespace attn::simd {
namespace {

struct VecAvx2 {
  using F = __m256;
  static constexpr int kLanes = 8;
  static constexpr int kMr = 6;  // the attention's micro-kernel rows (flash_attention.h)
  // The GEMM's tile heights KernelChoice times (gemm_tiled.h): 6 × 2 vectors is 12 accumulators of
  // AVX2's 16 registers.
  static constexpr int kGemmRows[] = {4, 6};
  static constexpr KernelId kId = KernelId::kAvx2;
  static constexpr const char* kName = "avx2";
  static constexpr bool kFusedMultiplyAdd = true;  // MulAdd: one FMA
  // Block transposed by TransposeTile (packing Kᵀ panels): kTransposeTile rows and columns.
  static constexpr int kTransposeTile = 8;
  static void TransposeTile(const float* src, int lds, float* dst, int ldd) { TransposeAvx8x8(src, lds, dst, ldd); }

  static F Load(const float* p) { return _mm256_loadu_ps(p); }
  static void Store(float* p, F x) { _mm256_storeu_ps(p, x); }
  static F Broadcast(float x) { return _mm256_set1_ps(x); }
  static F BroadcastFrom(const float* p) { return _mm256_broadcast_ss(p); }
  static F Zero() { return _mm256_setzero_ps(); }
  static F Add(F a, F b) { return _mm256_add_ps(a, b); }
  static F Sub(F a, F b) { return _mm256_sub_ps(a, b); }
  static F Mul(F a, F b) { return _mm256_mul_ps(a, b); }
  static F MulAdd(F a, F b, F c) { return _mm256_fmadd_ps(a, b, c); }  // a·b + c, one rounding
  static F Max(F a, F b) { return _mm256_max_ps(a, b); }
  static F Min(F a, F b) { return _mm256_min_ps(a, b); }
  static F RoundNearest(F x) { return _mm256_round_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  // 2^k for integral k in [-126, 127].
  static F Pow2(F k) {
    const __m256i bits = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvttps_epi32(k), _mm256_set1_epi32(127)), 23);
    return _mm256_castsi256_ps(bits);
  }
  // p · 2^k for integral k in [-126, 127], rounded once (as a product by an exact power of two).
  static F MulPow2(F p, F k) { return Mul(p, Pow2(k)); }
  // x as rounded: GCC contracts a product and a later sum into one multiply-add (-ffp-contract=fast),
  // rounding once where the code rounds twice; an empty asm that holds x in a register stops it.
  static F Rounded(F x) {
    __asm__("" : "+x"(x));
    return x;
  }
  static constexpr bool kPow2ByMagic = false;  // fast_exp.h
  // k >> 1 rounded toward −∞, for integral k (exact in float).
  static F HalfFloor(F k) { return _mm256_floor_ps(_mm256_mul_ps(k, _mm256_set1_ps(0.5f))); }
  // Lanes of `x` that are NaN stay NaN in `result`.
  static F KeepNaN(F x, F result) { return _mm256_blendv_ps(result, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q)); }
  // 0 in the lanes where x is −inf, `result` elsewhere.
  static F ZeroWhereMinusInf(F x, F result) {
    return _mm256_and_ps(_mm256_cmp_ps(x, _mm256_set1_ps(-__builtin_inff()), _CMP_NEQ_OQ), result);
  }
  static float ReduceMax(F x) {
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    m = _mm_max_ss(m, _mm_shuffle_ps(m, m, 1));
    return _mm_cvtss_f32(m);
  }
  static float ReduceAdd(F x) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
    return _mm_cvtss_f32(s);
  }
};

}  // namespace
}  // namespace attn::simd
