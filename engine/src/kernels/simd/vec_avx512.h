// 16 float lanes on AVX-512F (x86-64). Included only by kernels_avx512.cpp, built with -mavx512f.
#pragma once

#include <immintrin.h>

#include "attn/kernels.h"
#include "kernels/simd/transpose_avx.h"

namespace attn::simd {
namespace {

struct VecAvx512 {
  using F = __m512;
  static constexpr int kLanes = 16;
  static constexpr int kMr = 6;  // the attention's micro-kernel rows (flash_attention.h)
  // The GEMM's tile heights KernelChoice times (gemm_tiled.h): 8 × 2 vectors is 16 accumulators of
  // AVX-512's 32 registers.
  static constexpr int kGemmRows[] = {4, 6, 8};
  static constexpr KernelId kId = KernelId::kAvx512;
  static constexpr const char* kName = "avx512";
  static constexpr bool kFusedMultiplyAdd = true;  // MulAdd: one FMA
  // Block transposed by TransposeTile (packing Kᵀ panels): 8 × 8 in 256-bit registers packed a
  // (256, 64) head 3× faster than the scalar copy (3.8 → 1.3 µs); the pack is then ~0.5% of a call at
  // n = 256, so a 16 × 16 block (more shuffles, twice the registers) has little left to win.
  static constexpr int kTransposeTile = 8;
  static void TransposeTile(const float* src, int lds, float* dst, int ldd) { TransposeAvx8x8(src, lds, dst, ldd); }

  static F Load(const float* p) { return _mm512_loadu_ps(p); }
  static void Store(float* p, F x) { _mm512_storeu_ps(p, x); }
  static F Broadcast(float x) { return _mm512_set1_ps(x); }
  static F BroadcastFrom(const float* p) { return _mm512_set1_ps(*p); }
  static F Zero() { return _mm512_setzero_ps(); }
  static F Add(F a, F b) { return _mm512_add_ps(a, b); }
  static F Sub(F a, F b) { return _mm512_sub_ps(a, b); }
  static F Mul(F a, F b) { return _mm512_mul_ps(a, b); }
  static F MulAdd(F a, F b, F c) { return _mm512_fmadd_ps(a, b, c); }  // a·b + c, one rounding
  static F Max(F a, F b) { return _mm512_max_ps(a, b); }
  static F Min(F a, F b) { return _mm512_min_ps(a, b); }
  static F RoundNearest(F x) { return _mm512_roundscale_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  // 2^k for integral k in [-126, 127].
  static F Pow2(F k) {
    const __m512i bits = _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvttps_epi32(k), _mm512_set1_epi32(127)), 23);
    return _mm512_castsi512_ps(bits);
  }
  // p · 2^k for integral k in [-126, 127], rounded once: vscalefps, one instruction where Mul(p, Pow2(k))
  // is four (convert, add, shift, multiply); the same bits (both are p times an exact power of two).
  static F MulPow2(F p, F k) { return _mm512_scalef_ps(p, k); }
  // x as rounded: GCC contracts a product and a later sum into one multiply-add (-ffp-contract=fast),
  // rounding once where the code rounds twice; an empty asm that holds x in a register stops it.
  static F Rounded(F x) {
    __asm__("" : "+v"(x));
    return x;
  }
  static constexpr bool kPow2ByMagic = false;  // fast_exp.h
  // k >> 1 rounded toward −∞, for integral k (exact in float).
  static F HalfFloor(F k) {
    return _mm512_roundscale_ps(_mm512_mul_ps(k, _mm512_set1_ps(0.5f)), _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
  }
  // Lanes of `x` that are NaN stay NaN in `result`.
  static F KeepNaN(F x, F result) { return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), result, x); }
  // 0 in the lanes where x is −inf, `result` elsewhere.
  static F ZeroWhereMinusInf(F x, F result) {
    return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x, _mm512_set1_ps(-__builtin_inff()), _CMP_NEQ_OQ), result);
  }
  static float ReduceMax(F x) { return _mm512_reduce_max_ps(x); }
  static float ReduceAdd(F x) { return _mm512_reduce_add_ps(x); }
};

}  // namespace
}  // namespace attn::simd
