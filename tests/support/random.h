// Seeded random matrices for tests: the same seed gives the same values on every platform.
#pragma once

#include <cstdint>
#include <random>

#include "attn/matrix.h"

namespace attn::testing {

// Entries uniform in [lo, hi).
inline Matrix RandomMatrix(Eigen::Index rows, Eigen::Index cols, uint32_t seed, float lo = -1.0f,
                           float hi = 1.0f) {
  std::mt19937 gen(seed);
  Matrix m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) {
    // mt19937 output is portable; std::uniform_real_distribution is not, so map it by hand.
    m.data()[i] = lo + (hi - lo) * static_cast<float>(gen() >> 8) * (1.0f / 16777216.0f);
  }
  return m;
}

}  // namespace attn::testing
