// Seeded random numbers: std::mt19937 and std::seed_seq are specified to the bit, the std
// distributions are not, so the raw 32-bit output is mapped to numbers by hand here. The bits, the
// uniforms and Below are the same on every platform and in wasm; the normals also go through the C
// library's log, cos and sqrt, which may round an ulp apart between C libraries (measured: cosf in
// glibc and in emscripten's libc). Every seeded value of the engine, the lessons and the tests comes
// from here; tests/*/seeded_values_test.cpp pins some of them to the bit, per build where they differ.
#pragma once

#include <cstdint>
#include <random>

#include "attn/matrix.h"

namespace attn {

class SeededRandom {
 public:
  // std::mt19937(seed).
  explicit SeededRandom(uint32_t seed);
  // std::mt19937(std::seed_seq{seed, stream}): independent streams of one seed, e.g. one per
  // parameter, so adding a stream never changes the others.
  SeededRandom(uint32_t seed, uint32_t stream);

  // The raw 32 bits.
  uint32_t Bits();
  // Uniform in [0, 1) from the top 24 bits: every value is exact in float.
  float Unit();
  // lo + (hi − lo)·Unit(), in [lo, hi).
  float Uniform(float lo, float hi);
  // limit·(2·Unit() − 1), in [−limit, limit).
  float Symmetric(float limit);
  // Bits() % bound, bound > 0 (the modulo bias is below bound / 2³²).
  uint32_t Below(uint32_t bound);
  // N(0, 1) in double by Box–Muller on two draws of 32 bits: u1 = (Bits() + ½)/2³² ∈ (0, 1),
  // u2 = Bits()/2³².
  double Normal();
  // scale·N(0, 1) in float by Box–Muller on two draws of 24 bits: u1 = 1 − Unit() ∈ (0, 1],
  // u2 = Unit().
  float ScaledNormalFloat(float scale);

  // Matrices filled in row-major order.
  Matrix UniformMatrix(Eigen::Index rows, Eigen::Index cols, float lo, float hi);
  Matrix SymmetricMatrix(Eigen::Index rows, Eigen::Index cols, float limit);
  Matrix NormalMatrix(Eigen::Index rows, Eigen::Index cols);  // Normal() rounded to float

 private:
  std::mt19937 gen_;
};

// Box–Muller: scale·√(−2 ln u1)·cos(2π u2), u1 ∈ (0, 1], u2 ∈ [0, 1), evaluated in that order in T.
// For uniforms from another generator (lessons' hashed word vectors).
double BoxMuller(double u1, double u2, double scale = 1.0);
float BoxMuller(float u1, float u2, float scale);

}  // namespace attn
