// The one configuration object of the attention layer. Every option combines with every other;
// the defaults give the first slice: one head, no projections, scaled dot product, softmax.
//
// Order of operations (matches the ONNX Attention reference, opsets 23/24), per query head h:
//   Q, K, V          projections of the inputs (or the inputs themselves), + RoPE if chosen
//   raw_scores       relevance(q_i, k_j)                       e.g. q_i · k_j
//   scaled_scores    scale · raw_scores                        ONNX qk_matmul_output_mode 0
//   capped_scores    softcap · tanh(scaled / softcap)          ONNX mode 1 (= scaled without softcap)
//   scores           capped + float mask + position bias, -inf where a mask forbids   ONNX mode 2
//   weights          normaliser(scores / temperature)          ONNX mode 3
//   output           weights · V
// SoftcapOrder::kAfterMask instead caps (scaled + float mask + position bias), the order in the
// text of ONNX's Operators.md; -inf masks are always added after the cap so they stay -inf.
#pragma once

#include <cstdint>

#include "attn/kernels.h"

namespace attn {

// How a query and a key are compared (before `scale`).
enum class ScoreFunction {
  kDot,             // q · k                                      (Luong); default scale 1
  kScaledDot,       // q · k, default scale 1/√d_k                (Vaswani)
  kBilinear,        // qᵀ W k,  W: (d_k, d_k) per head            (Luong "general")
  kAdditive,        // wᵀ tanh(q W_q + k W_k),  W_q, W_k: (d_k, d_a), w: (d_a)   (Bahdanau)
  kAdditiveConcat,  // wᵀ tanh([q; k] W),  W: (2 d_k, d_a)       (Bahdanau, concat form)
  kCosine,          // (q · k) / (|q| |k|) / cosine_temperature; default scale 1
  kCount,           // how many there are (not a score function)
};

// Turns one row of scores into weights.
enum class Normalizer {
  kSoftmax,         // exp(s/τ) / Σ exp(s/τ); a fully masked row gives zeros
  kSparsemax,       // Euclidean projection of s/τ onto the simplex: exact zeros, sums to 1
  kReluNormalized,  // relu(s/τ) / Σ relu(s/τ); a zero row if the sum is 0
  kSigmoid,         // σ(s/τ) element-wise, does not sum to 1; masked entries give 0
  kNone,            // the scores themselves (masked entries give 0)
  kCount,           // how many there are (not a normaliser)
};

enum class PositionEncoding {
  kNone,               // order does not matter: permutation equivariant
  kSinusoidal,         // x_p += PE(p), PE(p)_{2t} = sin(p / base^{2t/d}), PE(p)_{2t+1} = cos(...)
  kLearned,            // x_p += E_p, E a table given in parameters or seeded (max_positions, d)
  kAlibi,              // score bias −m_h |p_q − p_k|, m_h the ALiBi slopes for num_heads heads
  kRope,               // rotate pairs (2t, 2t+1) of q and k by angle p / base^{2t/d_k}; d_k even
  kQuadraticRelative,  // score bias −α_h (δ − Δ_h)², δ = p_k − p_q (Cordonnier et al. 2020)
  kCount,              // how many there are (not an encoding)
};

// Where softcap sits relative to the float mask and position bias (see the header comment).
enum class SoftcapOrder {
  kBeforeMask,  // ONNX reference implementation and its test data (default)
  kAfterMask,   // ONNX Operators.md text: softcap(scaled + float mask + bias)
  kCount,       // how many there are (not an order)
};

// Meaning of `true` in a boolean attention mask.
enum class BoolMaskMeaning {
  kTrueMeansAttend,  // ONNX attn_mask
  kTrueMeansBlock,   // PyTorch attn_mask / key_padding_mask
  kCount,            // how many there are (not a meaning)
};

struct AttentionConfig {
  // Multiplies the relevance. 0 means the default of the score function (1/√d_k for kScaledDot,
  // 1 otherwise); otherwise finite and > 0.
  float scale = 0.0f;
  // Normaliser temperature τ: the normaliser sees scores / τ. Finite and > 0.
  float temperature = 1.0f;
  KernelId kernel = KernelId::kEigen;

  ScoreFunction score = ScoreFunction::kScaledDot;
  Normalizer normalizer = Normalizer::kSoftmax;
  // kCosine only: cos(q, k) / cosine_temperature. Finite and > 0.
  float cosine_temperature = 1.0f;
  // kAdditive / kAdditiveConcat hidden width d_a; 0 means d_k.
  int additive_dim = 0;

  // Heads. Query heads h; key/value heads h_kv (0 means h) must divide h: query head i uses
  // key/value head i / (h / h_kv) (grouped-query; h_kv = 1 is multi-query).
  int num_heads = 1;
  int num_kv_heads = 0;
  // Per-head widths d_k (queries and keys) and d_v (values). 0 means: with projections,
  // d_model / h; without projections, query.cols() / h and value.cols() / h_kv.
  int head_dim = 0;
  int value_head_dim = 0;

  // false: parameter-free, Q = query, K = key, V = value split into heads by columns
  // (Y = softmax(XXᵀ)X for one head). true: Q = query Wq (+bq), K = key Wk (+bk), V = value Wv (+bv).
  bool project_inputs = false;
  // Y = concat(heads) Wo (+bo); without it Y = concat(heads).
  bool project_output = false;
  // Add bq, bk, bv, bo when the matching projection is on.
  bool use_bias = false;
  // Width of the output projection; 0 means query.cols() (d_model).
  int output_dim = 0;
  // Seeds every parameter not given explicitly (mt19937, portable).
  uint32_t seed = 0;

  // Softcap c > 0: s -> c·tanh(s/c); 0 disables.
  float softcap = 0.0f;
  SoftcapOrder softcap_order = SoftcapOrder::kBeforeMask;

  // Masks (positions: query row i sits at p_q = query_offset + i, key row j at p_k = j, where the
  // keys include the past cache rows first).
  bool causal = false;  // key j allowed only if p_k <= p_q
  // Sliding window (ONNX opset 25 left_window_size / right_window_size): key j allowed only if
  // p_q − window_left <= p_k <= p_q + window_right (inclusive). −1 means unbounded on that side.
  int window_left = -1;
  int window_right = -1;

  // Threads ForwardOutput's fused path may use, 1..Limits::max_threads: the projections' rows and
  // the heads (and query tiles) of calls big enough to gain are spread over this many threads (the
  // caller and a pool kept by the engine); how big is learnt on this machine from the calls' own
  // times (attn/thread_choice.h). The output is bit-identical for every value. Every other path, and
  // builds without threads (the WebAssembly build), run on the calling thread alone whatever the value.
  int threads = 1;

  PositionEncoding position = PositionEncoding::kNone;
  // Sinusoidal and RoPE frequency base.
  float position_base = 10000.0f;
  // Rows of the seeded learned table (kLearned): positions must stay below it.
  int max_positions = 512;
};

}  // namespace attn
