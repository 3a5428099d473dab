// Seeded example data for the sequence views (docs/concepts.md §1, §11): a smooth multi-channel signal,
// a random convolution and Gaussian noise. mt19937's raw output is mapped by hand, so the same seed
// gives the same numbers natively and in the browser.
#pragma once

#include <cstdint>

#include "lessons/layers.h"
#include "lessons/common.h"

namespace lessons {

// (n, channels): each channel a sum of three seeded sines plus a little seeded jitter, in about [-1, 1].
Matrix SeededSequence(int n, int channels, uint32_t seed);

// K taps of (c_in, c_out) and a bias (1, c_out), entries uniform in [-1, 1).
Conv1dParams SeededConv1d(int kernel_size, int c_in, int c_out, uint32_t seed);

// series + sigma · N(0, 1) per entry (Box–Muller). sigma must be finite and >= 0.
Status AddSeededNoise(const Matrix& series, float sigma, uint32_t seed, Matrix* out);

// series ∘ (1 + fraction · N(0, 1)): noise proportional to each value (prices). fraction >= 0.
Status AddSeededRelativeNoise(const Matrix& series, float fraction, uint32_t seed, Matrix* out);

}  // namespace lessons
