// The attention layer with every intermediate returned, row-major, ready to draw.
// Options and the order of operations: attn/config.h. Formulas and conventions: docs/engine.md.
//
// Shapes: n query tokens, m new key tokens, p past (cached) key tokens, M = p + m keys in all;
// d_model = query.cols(), d_kv_model = key.cols(); h query heads, h_kv key/value heads;
// d_k, d_v per-head widths.
//
//   query: (n, d_model)  key: (m, d_kv_model)  value: (m, d_kv_model or d_v·h_kv)
//   Q_h = query Wq[:, h d_k : (h+1) d_k] (+bq)    (n, d_k)
//   K_g = [past_key_g; key Wk[...] (+bk)]         (M, d_k)    g = h / (h / h_kv)
//   V_g = [past_value_g; value Wv[...] (+bv)]     (M, d_v)
//   weights_h = normaliser(scores_h / τ)          (n, M)
//   output_h  = weights_h V_g                     (n, d_v)
//   concat    = [output_0 … output_{h-1}]         (n, h d_v)
//   output    = concat Wo (+bo)                   (n, d_out), or concat without Wo
#pragma once

#include <optional>
#include <vector>

#include "attn/config.h"
#include "attn/kernels.h"
#include "attn/matrix.h"
#include "attn/status.h"

namespace attn {

// Boolean matrices for masks; meaning of true given by BoolMaskMeaning.
using BoolMatrix = Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Learnable parameters, in the x·W convention (rows = input features). An empty matrix is filled
// from config.seed when the config needs it (see InitializeParameters).
template <typename T>
struct AttentionParametersT {
  MatrixT<T> wq;  // (d_model, h d_k)
  MatrixT<T> wk;  // (d_kv_model, h_kv d_k)
  MatrixT<T> wv;  // (d_kv_model, h_kv d_v)
  MatrixT<T> wo;  // (h d_v, d_out)
  MatrixT<T> bq;  // (1, h d_k)
  MatrixT<T> bk;  // (1, h_kv d_k)
  MatrixT<T> bv;  // (1, h_kv d_v)
  MatrixT<T> bo;  // (1, d_out)
  // Score-function parameters, one entry per query head.
  std::vector<MatrixT<T>> bilinear;         // kBilinear: (d_k, d_k)
  std::vector<MatrixT<T>> additive_wq;      // kAdditive: (d_k, d_a)
  std::vector<MatrixT<T>> additive_wk;      // kAdditive: (d_k, d_a)
  std::vector<MatrixT<T>> additive_concat;  // kAdditiveConcat: (2 d_k, d_a), rows for q then k
  std::vector<MatrixT<T>> additive_v;       // kAdditive, kAdditiveConcat: (1, d_a)
  // Positions.
  MatrixT<T> position_table;                // kLearned: (max_positions, d_model)
  MatrixT<T> relative_center;               // kQuadraticRelative: (1, h) Δ_h; default h − ⌊h_count/2⌋
  MatrixT<T> relative_sharpness;            // kQuadraticRelative: (1, h) α_h > 0; default 1
};
using AttentionParameters = AttentionParametersT<float>;
using AttentionParametersD = AttentionParametersT<double>;

template <typename T>
struct AttentionInputsT {
  MatrixT<T> query;  // (n, d_model)
  MatrixT<T> key;    // (m, d_kv_model); empty means self-attention: key = query
  MatrixT<T> value;  // (m, ·); empty means value = key
  // Key/value cache per key/value head, already projected (and rotated for RoPE); placed before
  // the new keys. Either empty or h_kv entries.
  std::vector<MatrixT<T>> past_key;    // h_kv × (p, d_k)
  std::vector<MatrixT<T>> past_value;  // h_kv × (p, d_v)
  // Additive float mask, added to the scores: empty, 1 entry (all heads) or h entries of (n, M).
  std::vector<MatrixT<T>> float_mask;
  // Boolean mask: empty, 1 entry (all heads) or h entries of (n, M).
  std::vector<BoolMatrix> bool_mask;
  BoolMaskMeaning bool_mask_meaning = BoolMaskMeaning::kTrueMeansAttend;
  // Keys to ignore (PyTorch key_padding_mask): empty or (1, M), true = padding, never attended.
  BoolMatrix key_padding;
  // Position of query row 0 among the keys; unset means p (the past length), as ONNX's causal mask
  // with a cache. May be negative (ONNX nonpad_kv_seqlen − q_len): rows before key 0 see nothing
  // under a causal mask.
  std::optional<int> query_offset;
};
using AttentionInputs = AttentionInputsT<float>;
using AttentionInputsD = AttentionInputsT<double>;

// Everything one query head computes.
template <typename T>
struct HeadIntermediatesT {
  MatrixT<T> q;              // (n, d_k)   after projection and RoPE
  MatrixT<T> k;              // (M, d_k)   past rows first (shared by the heads of a group)
  MatrixT<T> v;              // (M, d_v)
  MatrixT<T> raw_scores;     // (n, M)     relevance(q_i, k_j) before scale
  MatrixT<T> scaled_scores;  // (n, M)     scale · raw            (ONNX mode 0)
  MatrixT<T> capped_scores;  // (n, M)     after softcap          (ONNX mode 1)
  MatrixT<T> scores;         // (n, M)     + masks and position bias, −inf = masked (ONNX mode 2)
  MatrixT<T> weights;        // (n, M)     after the normaliser   (ONNX mode 3)
  MatrixT<T> output;         // (n, d_v)   weights · v
};
using HeadIntermediates = HeadIntermediatesT<float>;

template <typename T>
struct AttentionResultT {
  std::vector<HeadIntermediatesT<T>> heads;  // h entries
  MatrixT<T> query_in;                       // (n, d_model)   query after additive positions
  MatrixT<T> key_in;                         // (m, d_kv_model) key after additive positions
  MatrixT<T> value_in;                       // (m, ·)          value after additive positions
  MatrixT<T> concat;                         // (n, h d_v)
  MatrixT<T> output;                         // (n, d_out)
  std::vector<MatrixT<T>> present_key;       // h_kv × (M, d_k)  cache for the next step
  std::vector<MatrixT<T>> present_value;     // h_kv × (M, d_v)
  AttentionParametersT<T> parameters;        // the parameters used (given or seeded)
};
using AttentionResult = AttentionResultT<float>;
using AttentionResultD = AttentionResultT<double>;

// Limits (attn/limits.h): every entry point refuses, before it allocates anything, a config int or a
// dimension over Limits::max_dimension (kOutOfRange, e.g. "window_right: expected at most 16777216,
// got 2147483647") and a call whose estimated memory passes Limits::max_call_bytes or one matrix over
// Limits::max_tensor_elements (kResourceExhausted, naming the sizes, the limit and the way out:
// Forward publishes h·5 (n, M) matrices, ForwardOutput's fused path needs O(n·d)). An allocation that
// still fails becomes kResourceExhausted too (natively; the wasm build has no exceptions, so there
// the estimate is the only guard). Nothing throws.
//
// Float32 overflow: inputs are finite, but a score can still overflow. Every kernel and both paths
// (Forward; ForwardOutput's fused kernel) return kNonFinite when, for a pair (i, j) no mask blocks,
// a score is not finite at some stage (raw q·k, scaled, capped, plus bias, over the temperature as
// the normaliser sees it), when a value row after projection is not, or when the output is not.
// Pairs a mask blocks may overflow (the fused kernel never computes them). An ok status means a
// finite output within float32's error bound of the float64 answer. Only where a score lies within
// float32's rounding error of FLT_MAX (summation order decides) may two kernels differ
// (tests/fuzz/differential_fuzz.cpp states the bound).
//
// Checks config, inputs and parameters, then computes with config.kernel. Parameters that the
// config needs and `params` leaves empty are seeded from config.seed. On error `out` is untouched.
Status Forward(const AttentionConfig& config, const AttentionInputs& inputs,
               const AttentionParameters& params, AttentionResult* out);
// Same with every parameter seeded from config.seed.
Status Forward(const AttentionConfig& config, const AttentionInputs& inputs, AttentionResult* out);

// The first slice: self-attention of x with `config` (by default one head, Q = K = V = x).
Status SelfAttention(const AttentionConfig& config, const Matrix& x, AttentionResult* out);

// The output alone, for callers that do not draw the intermediates (benchmarks, long sequences).
// With a SIMD kernel (wasm_simd128, avx2, avx512) and a config FusedKernelCovers, each head runs the
// fused, tiled kernel with an online softmax: no (n, M) matrix, memory O(n·d). Otherwise it is
// Forward's output. Same checks and errors as Forward.
Status ForwardOutput(const AttentionConfig& config, const AttentionInputs& inputs,
                     const AttentionParameters& params, Matrix* output);
// Whether ForwardOutput fuses: a SIMD kernel, score kDot or kScaledDot, softmax, no softcap,
// positions none / sinusoidal / learned / RoPE, and no float, boolean or key-padding mask (causal
// and sliding-window masks are fused).
bool FusedKernelCovers(const AttentionConfig& config, const AttentionInputs& inputs);

// Fills every parameter the config needs and `params` leaves empty, deterministically from
// config.seed (uniform in ±1/√fan_in from mt19937's raw output). d_model = query.cols(),
// d_kv_model = key.cols(), d_value_model = value.cols() (the same for self-attention).
Status InitializeParameters(const AttentionConfig& config, int d_model, int d_kv_model,
                            int d_value_model, AttentionParameters* params);

// The scale actually used for a head of width d_k under `config`.
float EffectiveScale(const AttentionConfig& config, int d_k);

}  // namespace attn
