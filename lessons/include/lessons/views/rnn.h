// View 9: an RNN beside self-attention on the shared sentence (docs/concepts.md §12): how far
// information travels (path length), how the gradient of one word's state with respect to every
// input falls or grows with distance (backpropagation through time against attention's backward
// pass), sequential steps against parallel work (timed in the page), and attention over the hidden
// states of an RNN, a 1-D CNN or a per-token layer.
#pragma once

#include <map>
#include <string>

#include "attn/attention.h"
#include "lessons/common.h"
#include "lessons/layers.h"
#include "lessons/timing_job.h"
#include "lessons/view_state.h"
#include "lessons/views/sentence.h"

namespace lessons {

struct RnnModel {
  int n = 0;
  int target = 0, source = 0;  // the pair (i, j), inside the sentence
  int rnn_path = 0;            // steps from x_j to h_i along the RNN's chain: |i − j|
  int attention_path = 1;      // one: every output reads every input directly

  // The RNN: W_xh seeded uniform in ±1/√d_in (as attention's projections), W_hh seeded N(0, 1) and
  // scaled to spectral radius ρ, no bias, h_{-1} = 0.
  ElmanRnnParams rnn;
  double seeded_radius = 0;  // W_hh's spectral radius before the scaling
  double radius = 0;         // after it (ρ, up to rounding)
  Matrix hidden;             // (n, d_h) h_t; empty when the RNN overflowed
  std::string rnn_error;     // "" or why the RNN's forward or backward overflowed (then the curve is NaN)

  // One self-attention head over the same x: q, k, v of width d_h, no output projection.
  attn::AttentionConfig attention_config;
  attn::AttentionParameters attention;  // wq, wk, wv (d_in, d_h), seeded by the engine
  Matrix attention_output;              // (n, d_h) y
  Matrix attention_weights;             // (n, n)

  // ‖∂h_i/∂x_j‖_F and ‖∂y_i/∂x_j‖_F for every j (the Frobenius norm of the (d_h, d_in) Jacobian):
  // (n, 1) each, from one backward pass per output unit. The RNN's is exactly 0 for j > i.
  Matrix rnn_gradient, attention_gradient;
  // At the pair: norms at j, and their ratio to the norm at j = i (the word's own input).
  float rnn_at_source = 0, attention_at_source = 0;
  float rnn_ratio = 0, attention_ratio = 0;
};

// The sentence's vectors through both layers. Sentences of one word work; the overflow of a linear
// RNN is reported in rnn_error, not as an error of the whole model.
Status ComputeRnn(const Sentence& sentence, const RnnState& state, RnnModel* out);

// ‖∂h_i/∂x_j‖_F for every j: (n, 1), from d_h backward passes through time (ElmanRnnBackward).
Status RnnJacobianNorms(const ElmanRnnParams& params, const Matrix& x, const ElmanRnnResult& forward, int i,
                        Matrix* norms);
// ‖∂y_i/∂x_j‖_F for every j: (n, 1), from d_out backward passes of attn::Backward on `forward`.
Status AttentionJacobianNorms(const attn::AttentionConfig& config, const Matrix& x,
                              const attn::AttentionResult& forward, int i, Matrix* norms);

// The last part: H = L(X), attention over H, [H; C], and the next layer L on [H; C].
struct RnnCombinationModel {
  SequenceLayerKind layer = SequenceLayerKind::kRnn;
  SequenceAttentionResult stages;  // hidden (n, d_h), weights (n, n), context (n, d_h), combined (n, 2 d_h)
  Matrix next;                     // (n, d_h) the next layer's output on [H; C]
  // The next layer's parameters, published for the tests: w (2 d_h, d_h) or the conv's taps stacked
  // (3 · 2 d_h, d_h); w_hh (d_h, d_h) for the RNN only.
  Matrix next_w, next_w_hh;
};

// The first layer L is the RNN of ComputeRnn (the same W_xh, W_hh, ρ) or a seeded 1-D convolution
// (kernel 3) or per-token layer of width d_h; the next layer is of the same kind on [H; C].
Status ComputeRnnCombination(const Sentence& sentence, const RnnState& state, RnnCombinationModel* out);

// Sequential steps against parallel work: both layers of width kWidth, timed through the engine.
class RnnSpeedLab {
 public:
  static constexpr int kWidth = 64;  // d_in = d_h of the RNN; d_model = d_k = d_v of attention
  static constexpr int kMinLog2N = 4, kMaxLog2N = 12;  // n = 16 … 4096

  // The RNN: n·(2·d_in·d_h + 2·d_h²) FLOPs (a multiply-add counts 2), in n steps one after another.
  static double RnnFlops(int n);
  // One attention head with Wq, Wk, Wv, Wᵒ: 2·n·d²·4 + 4·n²·d FLOPs, in one step (every row at once).
  static double AttentionFlops(int n);
  static int RnnSteps(int n) { return n; }
  static int AttentionSteps(int) { return 1; }
  // The attention layer timed: one head, projections in and out, attn::FastestKernel().
  static attn::AttentionConfig AttentionLayer();

  // Runs forwards for at least min_ms (one at least); *us = µs per forward.
  Status TimeRnn(int n, double min_ms, double* us);
  Status TimeAttention(int n, double min_ms, double* us);

 private:
  const Matrix& Input(int n);
  ElmanRnnParams rnn_;                 // seeded once, ρ = 0.9
  attn::AttentionParameters attention_;  // seeded once
  std::map<int, Matrix> inputs_;       // x per n, seeded
  Matrix output_;
};

// View 9's timing, a job (lessons/timing_job.h): the RNN and the attention layer at n = 2^kMinLog2N …
// 2^kMaxLog2N, kRepeats batches of ≥ kBatchMs each, round by round (TimingSweep). The panel starts it
// (and "Time again") and draws it.
class RnnTimingJob : public TimingJob {
 public:
  static constexpr int kPoints = RnnSpeedLab::kMaxLog2N - RnnSpeedLab::kMinLog2N + 1;
  static constexpr int kRepeats = 3;
  static constexpr double kBatchMs = 8.0;  // one forward at n ≥ 2048 is long enough alone

  void Start();
  float progress() const override { return sweep_.progress(); }
  const TimingSweep& sweep() const { return sweep_; }
  // (kPoints, 1) µs per token of layer 0 (the RNN) or 1 (attention) at n = 2^(kMinLog2N + row): the
  // median of its batches so far; NaN before the first. Empty before Start.
  const Matrix& us_per_token(int layer) const { return us_per_token_[layer]; }

 protected:
  bool Next(Named* next) const override;
  void Took(const Named& named, const std::string& error, const TimingResult& result) override;

 private:
  TimingSweep sweep_;  // series 0 the RNN, 1 attention
  Matrix us_per_token_[2];
};

}  // namespace lessons
