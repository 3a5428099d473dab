// 4 float lanes on WebAssembly SIMD128. Included only by kernels_wasm_simd128.cpp (-msimd128).
// SIMD128 has no fused multiply-add: MulAdd is a multiply then an add. The relaxed build
// (ATTN_WASM_RELAXED_SIMD, -mrelaxed-simd; CMake option ATTN_WASM_RELAXED_SIMD) also has the form
// with relaxed SIMD's f32x4.relaxed_madd, which engines fuse where the CPU has FMA (one rounding
// instead of two); which of the two its kernels run is chosen by timing both (attn/kernel_choice.h).
#pragma once

#include <wasm_simd128.h>

#include "attn/kernels.h"

namespace attn::simd {
namespace {

// kFused: MulAdd is f32x4.relaxed_madd (the relaxed build only) rather than a multiply then an add.
template <bool kFused>
struct VecWasmSimd128T {
#ifndef ATTN_WASM_RELAXED_SIMD
  static_assert(!kFused, "f32x4.relaxed_madd is in the relaxed-SIMD build only (ATTN_WASM_RELAXED_SIMD)");
#endif
  using F = v128_t;
  static constexpr int kLanes = 4;
  static constexpr int kMr = 4;  // the attention's micro-kernel rows (flash_attention.h)
  // The GEMM's tile heights KernelChoice times (gemm_tiled.h): 4 alone (V8 spilled 5- and 6-row
  // tiles, and the page's module spends no bytes on a second GEMM).
  static constexpr int kGemmRows[] = {4};
  static constexpr KernelId kId = KernelId::kWasmSimd128;
  static constexpr bool kFusedMultiplyAdd = kFused;
  static constexpr const char* kName = kFused ? "wasm_relaxed_simd" : "wasm_simd128";
  // Block transposed by TransposeTile (packing Kᵀ panels): 4 × 4, dst row p = src column p.
  static constexpr int kTransposeTile = 4;
  static void TransposeTile(const float* src, int lds, float* dst, int ldd) {
    const F r0 = Load(src), r1 = Load(src + lds), r2 = Load(src + 2 * lds), r3 = Load(src + 3 * lds);
    const F t0 = wasm_i32x4_shuffle(r0, r1, 0, 4, 1, 5), t1 = wasm_i32x4_shuffle(r0, r1, 2, 6, 3, 7);
    const F t2 = wasm_i32x4_shuffle(r2, r3, 0, 4, 1, 5), t3 = wasm_i32x4_shuffle(r2, r3, 2, 6, 3, 7);
    Store(dst, wasm_i32x4_shuffle(t0, t2, 0, 1, 4, 5));
    Store(dst + ldd, wasm_i32x4_shuffle(t0, t2, 2, 3, 6, 7));
    Store(dst + 2 * ldd, wasm_i32x4_shuffle(t1, t3, 0, 1, 4, 5));
    Store(dst + 3 * ldd, wasm_i32x4_shuffle(t1, t3, 2, 3, 6, 7));
  }

  static F Load(const float* p) { return wasm_v128_load(p); }
  static void Store(float* p, F x) { wasm_v128_store(p, x); }
  static F Broadcast(float x) { return wasm_f32x4_splat(x); }
  static F BroadcastFrom(const float* p) { return wasm_v128_load32_splat(p); }
  static F Zero() { return wasm_f32x4_splat(0.0f); }
  static F Add(F a, F b) { return wasm_f32x4_add(a, b); }
  static F Sub(F a, F b) { return wasm_f32x4_sub(a, b); }
  static F Mul(F a, F b) { return wasm_f32x4_mul(a, b); }
  // a·b + c. Fused: clang 14 has no wasm_f32x4_relaxed_madd; its builtin emits the prototype's
  // f32x4.fma (0xfd 0xaf 0x01), which scripts/wasm_relaxed_opcodes.mjs rewrites after the link into
  // the standard f32x4.relaxed_madd (0xfd 0x85 0x02). That instruction is a·b + c with the operands in
  // the order written here (a = 2, b = 3, c = 5 gives 11: tests/e2e/wasm_relaxed.test.mjs and
  // SimdKernels.MulAddIsProductPlusAddend).
  static F MulAdd(F a, F b, F c) {
#ifdef ATTN_WASM_RELAXED_SIMD
    if constexpr (kFused) return __builtin_wasm_fma_f32x4(a, b, c);
#endif
    return wasm_f32x4_add(wasm_f32x4_mul(a, b), c);
  }
  // pmax/pmin: one instruction each on x86 (maxps/minps); inputs here are never NaN where it matters.
  static F Max(F a, F b) { return wasm_f32x4_pmax(a, b); }
  static F Min(F a, F b) { return wasm_f32x4_pmin(a, b); }
  static F RoundNearest(F x) { return wasm_f32x4_nearest(x); }
  // 2^k for integral k in [-126, 127]. k + 1.5·2^23 holds k in its low mantissa bits (exact for
  // |k| < 2^22), so the biased exponent is those bits minus the constant's plus 127: an add, an
  // integer add and a shift, where i32x4.trunc_sat_f32x4_s is about eight x64 instructions in V8.
  static F Pow2(F k) {
    constexpr float kMagic = 12582912.0f;  // 1.5·2^23, bits 0x4B400000
    const F biased = wasm_f32x4_add(k, wasm_f32x4_splat(kMagic));
    return wasm_i32x4_shl(wasm_i32x4_add(biased, wasm_i32x4_splat(127 - 0x4B400000)), 23);
  }
  // p · 2^k for integral k in [-126, 127], rounded once (as a product by an exact power of two).
  static F MulPow2(F p, F k) { return Mul(p, Pow2(k)); }
  static F Rounded(F x) { return x; }  // (GCC's contraction: see vec_avx2.h; clang contracts no intrinsics)
  // ExpNonPositive's p·2^k from t = k + 1.5·2^23 (see fast_exp.h), for p·2^k normal: t's bits shifted
  // left 23 are k·2^23 (mod 2^32), added to p's bits as integers.
  static constexpr bool kPow2ByMagic = true;
  static F AddToExponent(F p, F t) { return wasm_i32x4_add(p, wasm_i32x4_shl(t, 23)); }
  // k >> 1 rounded toward −∞, for integral k (exact in float).
  static F HalfFloor(F k) { return wasm_f32x4_floor(wasm_f32x4_mul(k, wasm_f32x4_splat(0.5f))); }
  // Lanes of `x` that are NaN stay NaN in `result`.
  static F KeepNaN(F x, F result) { return wasm_v128_bitselect(result, x, wasm_f32x4_eq(x, x)); }
  // 0 in the lanes where x is −inf, `result` elsewhere.
  static F ZeroWhereMinusInf(F x, F result) { return wasm_v128_and(wasm_f32x4_ne(x, wasm_f32x4_splat(-__builtin_inff())), result); }
  static float ReduceMax(F x) {
    const F m = wasm_f32x4_pmax(x, wasm_i32x4_shuffle(x, x, 2, 3, 0, 1));
    const F m2 = wasm_f32x4_pmax(m, wasm_i32x4_shuffle(m, m, 1, 0, 3, 2));
    return wasm_f32x4_extract_lane(m2, 0);
  }
  static float ReduceAdd(F x) {
    const F s = wasm_f32x4_add(x, wasm_i32x4_shuffle(x, x, 2, 3, 0, 1));
    const F s2 = wasm_f32x4_add(s, wasm_i32x4_shuffle(s, s, 1, 0, 3, 2));
    return wasm_f32x4_extract_lane(s2, 0);
  }
};

// The build's own form: fused in the relaxed-SIMD build, a multiply then an add otherwise.
#ifdef ATTN_WASM_RELAXED_SIMD
using VecWasmSimd128 = VecWasmSimd128T<true>;
#else
using VecWasmSimd128 = VecWasmSimd128T<false>;
#endif

}  // namespace
}  // namespace attn::simd
