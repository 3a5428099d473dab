// Self-attention with every intermediate returned, row-major, ready to draw.
//
//   X: (n, d)                      input, one row per token
//   Q = K = V = X                  (no projections in this slice)
//   raw_scores = Q Kᵀ              (n, n)
//   scores     = scale · raw       (n, n), scale = 1/√d unless given
//   weights    = softmax_rows(scores / temperature)   (n, n), rows sum to 1
//   output     = weights V         (n, d)
#pragma once

#include <vector>

#include "attn/kernels.h"
#include "attn/status.h"
#include "attn/tensor.h"

namespace attn {

struct AttentionConfig {
  // Multiplies QKᵀ. 0 means the default 1/√d_k; otherwise must be finite and > 0.
  float scale = 0.0f;
  // Softmax temperature τ in softmax(s/τ); finite and > 0.
  float temperature = 1.0f;
  KernelId kernel = KernelId::kEigen;
};

// Everything one head computes.
struct HeadIntermediates {
  Matrix q;           // (n, d_k)
  Matrix k;           // (n, d_k)
  Matrix v;           // (n, d_v)
  Matrix raw_scores;  // (n, n)  q_i · k_j
  Matrix scores;      // (n, n)  after scale
  Matrix weights;     // (n, n)  after the normaliser
  Matrix output;      // (n, d_v)
};

struct AttentionResult {
  std::vector<HeadIntermediates> heads;
  Matrix output;  // (n, d_v)
};

// Checks the input and config, then computes with config.kernel. On error `out` is untouched.
Status SelfAttention(const AttentionConfig& config, const Matrix& x, AttentionResult* out);

// The scale actually used for a head of width d_k under `config`.
float EffectiveScale(const AttentionConfig& config, int d_k);

}  // namespace attn
