// Seeded random matrices for tests: the same seed gives the same values on every platform.
#pragma once

#include <cstdint>

#include "attn/matrix.h"
#include "attn/seeded_random.h"

namespace attn::testing {

// Entries uniform in [lo, hi).
inline Matrix RandomMatrix(Eigen::Index rows, Eigen::Index cols, uint32_t seed, float lo = -1.0f,
                           float hi = 1.0f) {
  return SeededRandom(seed).UniformMatrix(rows, cols, lo, hi);
}

}  // namespace attn::testing
