// The layers attention is compared with and combined with (docs/concepts.md §11–12): a 1-D
// convolution and its receptive field, an Elman RNN, and attention over a layer's hidden states.
// Plain reference loops, row-major, one row per token; every intermediate is returned.
#pragma once

#include <vector>

#include "lessons/common.h"

namespace lessons {

// ---------------------------------------------------------------------------------------------
// Conv1d: kernel size K, stride 1, zero "same" padding (output length = input length), bias.
//   y_i = b + Σ_{t=0}^{K-1} x_{i + t - left} · W_t,   left = ⌊(K-1)/2⌋ (= ⌊K/2⌋ for odd K),
//   where rows x_j outside [0, n) are zero.
struct Conv1dParams {
  std::vector<Matrix> taps;  // K matrices, each (c_in, c_out); taps[t] sees offset t - left
  Matrix bias;               // (1, c_out)
};

// Zero rows padded on the left of a same-padded convolution of kernel size K: ⌊(K-1)/2⌋.
int Conv1dLeftPadding(int kernel_size);

// x: (n, c_in) -> y: (n, c_out)
Status Conv1d(const Conv1dParams& params, const Matrix& x, Matrix* y);

// Stacked convolutions, no activation in between.
// x: (n, c_0) -> outputs[l]: (n, c_{l+1}), one per layer, last is the stack's output.
Status Conv1dStack(const std::vector<Conv1dParams>& layers, const Matrix& x,
                   std::vector<Matrix>* outputs);

// Inputs seen by one output of L stacked kernel-K layers: 1 + L(K−1) before clipping to the
// sequence. Negative arguments give 0.
int ReceptiveFieldSize(int num_layers, int kernel_size);

// Inclusive index range [first, last].
struct IndexRange {
  int first = 0;
  int last = -1;  // last < first means empty
  int size() const { return last >= first ? last - first + 1 : 0; }
};

// Input indices that output `output_index` of L stacked same-padded kernel-K layers depends on,
// clipped to [0, sequence_length): [i - L·left, i + L·(K-1-left)].
Status ReceptiveField(int num_layers, int kernel_size, int sequence_length, int output_index,
                      IndexRange* range);

// ---------------------------------------------------------------------------------------------
// Elman RNN:  a_t = x_t W_xh + h_{t-1} W_hh + b,  h_t = f(a_t),  h_{-1} = h0 (zeros if empty),
// f = tanh, or the identity (a linear RNN: its gradients grow or shrink exactly like powers of W_hh).
enum class RnnActivation { kTanh, kIdentity };

struct ElmanRnnParams {
  Matrix w_xh;  // (d_in, d_h)
  Matrix w_hh;  // (d_h, d_h)
  Matrix bias;  // (1, d_h)
  Matrix h0;    // (1, d_h), or empty for zeros
  RnnActivation activation = RnnActivation::kTanh;
};

struct ElmanRnnResult {
  Matrix pre_activations;  // (n, d_h)  a_t
  Matrix hidden;           // (n, d_h)  h_t
};

// x: (n, d_in) -> hidden states (n, d_h). kNonFinite when a state overflows float32 (a linear RNN
// whose W_hh has spectral radius above 1, over a long sequence), naming the first step that did.
Status ElmanRnn(const ElmanRnnParams& params, const Matrix& x, ElmanRnnResult* out);

// Backpropagation through time (BPTT), beside the forward above. Given dL/dH, for t = n-1 … 0:
//   g_t  = dL/dh_t + g'_{t+1} W_hhᵀ          (what reaches h_t: its own loss and the step after it)
//   δ_t  = g_t ∘ f'(a_t)                      (tanh: 1 − h_t²; identity: 1)
//   dL/dx_t = δ_t W_xhᵀ,  dW_xh += x_tᵀ δ_t,  dW_hh += h_{t-1}ᵀ δ_t,  db += δ_t,
// with g'_{t+1} = δ_{t+1} (zero past the end); dL/dh0 = δ_0 W_hhᵀ.
struct ElmanRnnGradients {
  Matrix d_x;     // (n, d_in)
  Matrix d_w_xh;  // (d_in, d_h)
  Matrix d_w_hh;  // (d_h, d_h)
  Matrix d_bias;  // (1, d_h)
  Matrix d_h0;    // (1, d_h), also when params.h0 is empty (the gradient at the zero state)
};

// forward: ElmanRnn's result for (params, x); d_hidden: (n, d_h) dL/dH. Same checks as ElmanRnn,
// plus the shapes of forward and d_hidden; kNonFinite when a gradient overflows float32.
Status ElmanRnnBackward(const ElmanRnnParams& params, const Matrix& x, const ElmanRnnResult& forward,
                        const Matrix& d_hidden, ElmanRnnGradients* out);

// The same forward, fast enough to time at n = 4096: X W_xh + b for every step in one product, then
// one (1, d_h)·(d_h, d_h) product and f per step. Same checks and result as ElmanRnn within float32
// rounding (the sums run in another order). x: (n, d_in) -> hidden: (n, d_h)
Status ElmanRnnFast(const ElmanRnnParams& params, const Matrix& x, Matrix* hidden);

// max |λ| over the eigenvalues of a square matrix w (d, d), in double (Gelfand's formula, ‖Wᵏ‖^(1/k)).
Status SpectralRadius(const Matrix& w, double* radius);
// w · ρ / SpectralRadius(w): the same matrix, scaled to spectral radius ρ (finite, >= 0).
// kOutOfRange when ρ is negative or not finite, or when w's radius is 0 (nothing to scale).
// w_radius, when given: SpectralRadius(w), measured on the way.
Status ScaleToSpectralRadius(const Matrix& w, float rho, Matrix* out, double* w_radius = nullptr);

// Per-token fully connected layer: h_i = tanh(x_i W + b), the RNN without its recurrence.
struct FullyConnectedParams {
  Matrix weight;  // (d_in, d_out)
  Matrix bias;    // (1, d_out)
};

// x: (n, d_in) -> h: (n, d_out)
Status FullyConnected(const FullyConnectedParams& params, const Matrix& x, Matrix* h);

// ---------------------------------------------------------------------------------------------
// A sequence layer L, then attention over its hidden states H (docs/concepts.md §12):
//   H = L(X),  s_ij = scale · h_i·h_j,  a_i = softmax(s_i),  c_i = Σ_j a_ij h_j,  z_i = [h_i; c_i].
enum class SequenceLayerKind { kRnn, kConv1d, kFullyConnected };

// "rnn", "conv1d", "fully_connected"
const char* SequenceLayerName(SequenceLayerKind kind);

struct SequenceAttentionConfig {
  SequenceLayerKind layer = SequenceLayerKind::kRnn;
  ElmanRnnParams rnn;          // used when layer == kRnn
  Conv1dParams conv;           // used when layer == kConv1d
  FullyConnectedParams dense;  // used when layer == kFullyConnected
  float scale = 0.0f;          // 0 means 1/√d_h; otherwise finite and > 0
};

struct SequenceAttentionResult {
  Matrix pre_activations;  // (n, d_h)  the RNN's a_t; empty for the other layers
  Matrix hidden;           // (n, d_h)  H
  Matrix scores;           // (n, n)    scale · H Hᵀ
  Matrix weights;          // (n, n)    row softmax; rows sum to 1
  Matrix context;          // (n, d_h)  C = weights · H
  Matrix combined;         // (n, 2·d_h)  [H, C] side by side
};

// x: (n, d_in) -> every intermediate above
Status SequenceAttention(const SequenceAttentionConfig& config, const Matrix& x,
                         SequenceAttentionResult* out);

}  // namespace lessons
