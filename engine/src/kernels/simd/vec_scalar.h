// One float lane: the tails of rows that do not fill a vector, computed with the same formulas as
// the vector lanes (to rounding: vector MulAdd may be fused, this one is not).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace attn::simd {
namespace {

struct VecScalar {
  using F = float;
  static constexpr int kLanes = 1;
  static constexpr const char* kName = "scalar";

  static F Load(const float* p) { return *p; }
  static void Store(float* p, F x) { *p = x; }
  static F Broadcast(float x) { return x; }
  static F BroadcastFrom(const float* p) { return *p; }
  static F Zero() { return 0.0f; }
  static F Add(F a, F b) { return a + b; }
  static F Sub(F a, F b) { return a - b; }
  static F Mul(F a, F b) { return a * b; }
  static F MulAdd(F a, F b, F c) { return a * b + c; }
  static F Max(F a, F b) { return a > b ? a : b; }
  static F Min(F a, F b) { return a < b ? a : b; }
  static F RoundNearest(F x) { return std::nearbyint(x); }
  static F Pow2(F k) {
    const uint32_t bits = static_cast<uint32_t>(static_cast<int32_t>(k) + 127) << 23;
    float out;
    std::memcpy(&out, &bits, sizeof out);
    return out;
  }
  // p · 2^k for integral k in [-126, 127], rounded once (as a product by an exact power of two).
  static F MulPow2(F p, F k) { return Mul(p, Pow2(k)); }
  static F Rounded(F x) { return x; }  // (GCC's contraction: see vec_avx2.h; clang contracts no intrinsics)
  static constexpr bool kPow2ByMagic = false;  // fast_exp.h
  static F HalfFloor(F k) { return std::floor(k * 0.5f); }
  static F KeepNaN(F x, F result) { return x != x ? x : result; }
  // 0 where x is −inf, `result` elsewhere.
  static F ZeroWhereMinusInf(F x, F result) { return x == -__builtin_inff() ? 0.0f : result; }
  static float ReduceMax(F x) { return x; }
  static float ReduceAdd(F x) { return x; }
};

}  // namespace
}  // namespace attn::simd
