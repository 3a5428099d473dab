// View 7: a CNN's receptive field vs self-attention's, then "self-attention contains convolution":
// K heads with the quadratic relative score rebuild a Conv1d as α grows (Cordonnier et al. 2020).
// The sequence is seeded (CnnState::kLength steps, kChannels channels): this view needs no sentence.
#pragma once

#include "lessons/common.h"
#include "lessons/view_state.h"

namespace lessons {

struct CnnFieldModel {
  static constexpr int kChannels = 3;  // features per step
  int kernel = 3;       // K = 2r + 1
  Matrix x_t;           // (c, n) the input sequence, positions along x
  Matrix field;         // (L + 1, n): row m = 1 where the output depends on the input m layers below it
  int field_size = 0;   // 1 + L(K − 1), before clipping at the ends
  int inside = 0;       // inputs of the field inside the sequence
  Matrix stack_t;       // (c, n) the L-layer stack's output, positions along x
  Matrix rows;          // (2, n) self-attention's and windowed attention's weights for the output
  Matrix masked;        // (1, n) 1 where the window masks a key
};

// The receptive field of state.output under state.layers convolutions of kernel 2·radius + 1, and
// that output's weights under self-attention and under windowed attention (radius state.window).
Status ComputeCnnField(const CnnState& state, CnnFieldModel* out);

struct CnnConvModel {
  static constexpr int kConvOut = 2;       // output channels of the convolution attention rebuilds
  static constexpr int kCurvePoints = 33;  // α = 0.01 … 100, log-spaced
  Matrix taps;       // (K c_in, c_out) the convolution's taps stacked, tap 0 first
  Matrix bias;       // (1, c_out)
  Matrix conv_t;     // (c_out, n) the Conv1d's output
  Matrix attn_t;     // (c_out, n) the K-head attention's output at state.alpha
  Matrix heads;      // (K, n) each head's weights for state.output
  float difference = 0;             // max |attention − convolution| at state.alpha
  Matrix curve_alpha, curve_diff;   // (kCurvePoints, 1) that difference against α
};

Status ComputeCnnConv(const CnnState& state, CnnConvModel* out);

}  // namespace lessons
