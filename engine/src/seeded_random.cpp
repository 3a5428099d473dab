#include "attn/seeded_random.h"

#include <cmath>

namespace attn {
namespace {

constexpr double kTwoPi = 6.283185307179586;
constexpr double kInv2To32 = 1.0 / 4294967296.0;
constexpr float kInv2To24 = 1.0f / 16777216.0f;

std::mt19937 FromSeedSequence(uint32_t seed, uint32_t stream) {
  std::seed_seq sequence{seed, stream};
  return std::mt19937(sequence);
}

template <typename T>
T BoxMullerIn(T u1, T u2, T scale) {
  return scale * std::sqrt(T(-2) * std::log(u1)) * std::cos(static_cast<T>(kTwoPi) * u2);
}

}  // namespace

SeededRandom::SeededRandom(uint32_t seed) : gen_(seed) {}

SeededRandom::SeededRandom(uint32_t seed, uint32_t stream) : gen_(FromSeedSequence(seed, stream)) {}

uint32_t SeededRandom::Bits() { return static_cast<uint32_t>(gen_()); }

float SeededRandom::Unit() { return static_cast<float>(Bits() >> 8) * kInv2To24; }

float SeededRandom::Uniform(float lo, float hi) { return lo + (hi - lo) * Unit(); }

float SeededRandom::Symmetric(float limit) { return limit * (2.0f * Unit() - 1.0f); }

uint32_t SeededRandom::Below(uint32_t bound) { return Bits() % bound; }

double SeededRandom::Normal() {
  const double u1 = (static_cast<double>(Bits()) + 0.5) * kInv2To32;  // never 0: the log stays finite
  const double u2 = static_cast<double>(Bits()) * kInv2To32;
  return BoxMuller(u1, u2);
}

float SeededRandom::ScaledNormalFloat(float scale) {
  const float u1 = 1.0f - Unit();  // in (0, 1]: the log stays finite
  const float u2 = Unit();
  return BoxMuller(u1, u2, scale);
}

Matrix SeededRandom::UniformMatrix(Eigen::Index rows, Eigen::Index cols, float lo, float hi) {
  Matrix m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = Uniform(lo, hi);
  return m;
}

Matrix SeededRandom::SymmetricMatrix(Eigen::Index rows, Eigen::Index cols, float limit) {
  Matrix m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = Symmetric(limit);
  return m;
}

Matrix SeededRandom::NormalMatrix(Eigen::Index rows, Eigen::Index cols) {
  Matrix m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = static_cast<float>(Normal());
  return m;
}

double BoxMuller(double u1, double u2, double scale) { return BoxMullerIn(u1, u2, scale); }

float BoxMuller(float u1, float u2, float scale) { return BoxMullerIn(u1, u2, scale); }

}  // namespace attn
