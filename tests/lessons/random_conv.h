// Seeded random Conv1d parameters for the layer and Cordonnier tests.
#pragma once

#include <cstdint>

#include "lessons/layers.h"
#include "support/random.h"

namespace attn::testing {
using namespace ::lessons;  // what these tests check lives in the lessons layer

// K taps of (c_in, c_out) and a bias (1, c_out), entries uniform in [-1, 1).
inline Conv1dParams RandomConv1d(int kernel_size, int c_in, int c_out, uint32_t seed) {
  Conv1dParams p;
  for (int t = 0; t < kernel_size; ++t) p.taps.push_back(RandomMatrix(c_in, c_out, seed + t));
  p.bias = RandomMatrix(1, c_out, seed + 1000);
  return p;
}

}  // namespace attn::testing
