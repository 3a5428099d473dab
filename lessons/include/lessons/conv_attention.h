// Self-attention contains convolution (Cordonnier, Loukas & Jaggi, ICLR 2020; docs/concepts.md §11).
// K heads: head h scores keys only by the quadratic relative position −α(δ − Δ_h)², Δ_h = h − ⌊K/2⌋,
// so as α grows it attends only to the token at offset Δ_h. Head h's value projection is the conv's
// tap for that offset and the output projection sums the heads: the layer becomes the convolution.
#pragma once

#include <vector>

#include "lessons/layers.h"
#include "lessons/common.h"

namespace lessons {

struct ConvAsAttentionResult {
  Matrix output;                // (n, c_out): the multi-head output, padding rows cropped
  std::vector<Matrix> weights;  // K × (n, n): each head's weights between the real tokens
};

// The convolution `conv` (odd kernel size K) of x: (n, c_in), computed by K-head attention with
// sharpness alpha > 0. The sequence is zero-padded by ⌊K/2⌋ tokens on each side so that edge
// tokens see the zeros the convolution sees.
Status ConvAsAttention(const Conv1dParams& conv, const Matrix& x, float alpha, ConvAsAttentionResult* out);

}  // namespace lessons
