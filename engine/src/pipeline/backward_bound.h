// A bound on every matrix BackwardPipeline computes in float, stage by stage, in double from the
// magnitudes of what every kernel shares: the inputs after positions, the parameters, d_output and
// the shapes, with float32's rounding. A kernel's own products (q, k, v, the scores, ∂L/∂weights, …)
// do not enter it: where large terms cancel, each kernel's order of summation leaves its own
// rounding error, which later products carry on (backward_fuzz: the softmax backward's
// w·(d_w − Σ w·d_w), exactly 0, came out 1.8e11 on reference and eigen and 0 on avx2, and ×|k|·|query|
// ≈ 1e37 later only the former overflowed dWq). So the bound comes out alike on every kernel and
// holds for each one's rounding, and grad.cpp lets it decide which calls the reference kernel runs.
// Three values that nothing bounds from above are the forward pass's own: sparsemax's weights,
// ReLU-normalised's sums, the cosine's row norms. Mirrors backward.h: a stage added there needs its
// bound here.
#pragma once

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>
#include <vector>

#include "attn/attention.h"
#include "pipeline/dims.h"

namespace attn::pipeline {

// The largest of the stages' bounds and the matrix it bounds ("d_wq", "d_scores", …); +inf when a
// bound overflowed double or was lost (inf·0).
struct BackwardBound {
  double largest = 0;
  std::string stage;
};

namespace bound {

// Float's roundings along a sum of k products: every partial sum within (1 + 2⁻²⁴)^(k+1) ≤
// exp((k + 1)·2⁻²⁴) of the sum of the magnitudes, whatever the order or blocking of the sum.
inline double Rounded(double k) { return std::exp((k + 1) * std::ldexp(1.0, -24)); }

// A sum of k products of magnitudes at most a and b, as float computes it.
inline double Sum(double k, double a, double b) { return k * a * b * Rounded(k); }

// Out of line: some thirty calls, each an unrolled SIMD reduction when inlined (the npm package's
// wasm grew by 30 KB that way).
[[gnu::noinline]] inline double MaxAbs(const Matrix& m) {
  return m.size() ? static_cast<double>(m.cwiseAbs().maxCoeff()) : 0.0;
}

[[gnu::noinline]] inline double MaxAbs(const std::vector<Matrix>& list) {
  double most = 0;
  for (const Matrix& m : list) most = std::max(most, MaxAbs(m));
  return most;
}

// Over the finite entries: a float mask's −inf entries mask, they add nothing to a score.
[[gnu::noinline]] inline double FiniteMaxAbs(const std::vector<Matrix>& list) {
  double most = 0;
  for (const Matrix& m : list) {
    if (m.size() == 0) continue;
    most = std::max(most, static_cast<double>(m.array().isFinite().select(m.array().abs(), 0.0f).maxCoeff()));
  }
  return most;
}

// The farthest a key lies from a query, max |p_k − p_q|: ALiBi's bias is its slope (< 1) times it,
// the quadratic relative bias grows with its square.
inline double Farthest(const AttentionDims& d) {
  return std::max(std::abs(static_cast<double>(d.query_offset) + d.n - 1),
                  std::abs(static_cast<double>(d.keys) - 1 - d.query_offset));
}

// |scores|: the relevance's bound scaled, capped, plus the float mask and the position bias. Only
// kNone's weights (the scores themselves) need it.
inline double Scores(const AttentionConfig& config, const AttentionInputs& in, const AttentionParameters& params,
                     const AttentionDims& d, double q, double k) {
  double raw = 0;
  switch (config.score) {
    case ScoreFunction::kBilinear: raw = Sum(d.d_k, Sum(d.d_k, q, MaxAbs(params.bilinear)), k); break;
    case ScoreFunction::kCosine: raw = Rounded(d.d_k + 2); break;  // unit rows: |q̂·k̂| ≤ 1
    case ScoreFunction::kAdditive:
    case ScoreFunction::kAdditiveConcat: raw = Sum(d.d_a, MaxAbs(params.additive_v), 1); break;  // |tanh| ≤ 1
    default: raw = Sum(d.d_k, q, k); break;
  }
  double bias = FiniteMaxAbs(in.float_mask);
  if (config.position == PositionEncoding::kAlibi) bias += Farthest(d);
  if (config.position == PositionEncoding::kQuadraticRelative) {
    const double off = Farthest(d) + MaxAbs(params.relative_center);
    bias += MaxAbs(params.relative_sharpness) * off * off;
  }
  const double scaled = raw * std::abs(d.scale) * Rounded(1);
  const double cap = config.softcap;
  if (cap > 0 && config.softcap_order == SoftcapOrder::kAfterMask && bias > 0) return cap * Rounded(2);
  return ((cap > 0 ? cap : scaled) + bias) * Rounded(3);
}

}  // namespace bound

// Inputs as BackwardPipeline takes them (float), `fwd` Forward's result on them.
inline BackwardBound BoundBackward(const AttentionConfig& config, const AttentionInputs& in,
                                   const AttentionParameters& params, const AttentionResult& fwd,
                                   const Matrix& d_output) {
  using bound::MaxAbs;
  using bound::Rounded;
  using bound::Sum;
  const AttentionDims d = ResolveDims(config, in);
  BackwardBound b;
  const auto note = [&b](const char* stage, double value) {
    if (std::isnan(value)) value = HUGE_VAL;
    if (value > b.largest) {
      b.largest = value;
      b.stage = stage;
    }
    return value;
  };
  const bool project = config.project_inputs, bias = config.use_bias;
  const double n = d.n, keys = d.keys, temperature = config.temperature;

  // What the forward pass computed, bounded from its inputs: q, k and v are products, so each
  // kernel's |q| may differ where terms cancel; the inputs after positions are added alike on all.
  const double x_q = MaxAbs(fwd.query_in), x_k = MaxAbs(fwd.key_in), x_v = MaxAbs(fwd.value_in);
  const double w_q = MaxAbs(params.wq), w_k = MaxAbs(params.wk), w_v = MaxAbs(params.wv);
  // RoPE: |a cos − b sin| ≤ |a| + |b|.
  const double turn = config.position == PositionEncoding::kRope ? 2 * Rounded(2) : 1;
  const double q = (project ? Sum(d.d_model, x_q, w_q) + (bias ? MaxAbs(params.bq) : 0) : x_q) * turn;
  const double k = std::max((project ? Sum(d.d_kv_model, x_k, w_k) + (bias ? MaxAbs(params.bk) : 0) : x_k) * turn,
                            MaxAbs(in.past_key));
  const double v = std::max(project ? Sum(d.d_value_model, x_v, w_v) + (bias ? MaxAbs(params.bv) : 0) : x_v,
                            MaxAbs(in.past_value));
  // The weights: at most 1 under the normalisers onto the simplex and the sigmoid; kNone's are the
  // scores over τ. `rows` bounds a row's Σ|w|. Sparsemax's threshold, rounded at scores past 2^24,
  // can leave weights above 1: there the forward's own are taken.
  double weight = 1, rows = Rounded(keys);
  if (config.normalizer == Normalizer::kSparsemax) {
    for (const HeadIntermediates& h : fwd.heads) weight = std::max(weight, MaxAbs(h.weights));
    rows = keys * weight * Rounded(keys);
  } else if (config.normalizer == Normalizer::kSigmoid) {
    rows = keys * Rounded(keys);
  } else if (config.normalizer == Normalizer::kNone) {
    weight = bound::Scores(config, in, params, d, q, k) / temperature * Rounded(1);
    rows = keys * weight * Rounded(keys);
  }
  const double concat = v * rows;  // weights · v

  // Output projection.
  const double d_out = MaxAbs(d_output);
  double d_concat = d_out;
  if (config.project_output) {
    d_concat = note("d_concat", Sum(d.d_out, d_out, MaxAbs(params.wo)));
    note("d_wo", Sum(n, concat, d_out));
    if (bias) note("d_bo", Sum(n, d_out, 1));
  }

  // One head (every head alike: the bounds above are over all of them).
  const double d_weights = note("d_weights", Sum(d.d_v, d_concat, v));
  const double d_v_head = note("d_v", Sum(n, weight, d_concat));
  const double row_dot = note("d_scores", d_weights * rows);  // Σ_j d_w·w
  double d_z = 0;
  switch (config.normalizer) {
    case Normalizer::kSoftmax: d_z = weight * (d_weights + row_dot) * Rounded(2); break;
    case Normalizer::kSparsemax:  // d_w − (Σ over the support)/support
      note("d_scores", Sum(keys, d_weights, 1));
      d_z = (d_weights + d_weights * Rounded(keys + 1)) * Rounded(1);
      break;
    case Normalizer::kReluNormalized: {
      // Over Σ_j relu(s_ij/τ), which no bound from above limits: the smallest nonzero one of the
      // forward's own scores (masked −inf gives 0). Summed, then divided by τ once (one vectorised
      // pass), it is within Rounded(keys)² of NormalizeBackward's sum of the quotients (each sum's
      // rounding); a sum past FLT_MAX counts as FLT_MAX.
      double least = HUGE_VAL;
      for (const HeadIntermediates& h : fwd.heads) {
        const Eigen::VectorXf sums = h.scores.cwiseMax(0.0f).rowwise().sum();
        for (Eigen::Index i = 0; i < sums.size(); ++i)
          if (sums(i) > 0) least = std::min(least, std::min<double>(sums(i), FLT_MAX));
      }
      d_z = (d_weights + row_dot) * temperature / least * Rounded(keys) * Rounded(keys) * Rounded(2);
      break;
    }
    case Normalizer::kSigmoid: d_z = d_weights * weight * (1 + weight) * Rounded(3); break;
    default: d_z = d_weights; break;  // kNone
  }
  const double d_scores = note("d_scores", d_z / temperature * Rounded(1));
  // The softcap's derivative 1 − (capped/c)² is in [0, 1] up to rounding.
  const double d_raw = note("d_scores", d_scores * std::abs(d.scale) * Rounded(3));
  if (config.position == PositionEncoding::kQuadraticRelative) {
    const double off = bound::Farthest(d) + MaxAbs(params.relative_center), pairs = n * keys;
    note("d_relative_center", Sum(pairs, d_scores, 2 * MaxAbs(params.relative_sharpness) * off));
    note("d_relative_sharpness", Sum(pairs, d_scores, off * off));
  }

  double d_q = 0, d_k = 0;  // RelevanceBackward's
  switch (config.score) {
    case ScoreFunction::kBilinear: {
      const double w = MaxAbs(params.bilinear);
      const double qw = note("qw", Sum(d.d_k, q, w));
      const double d_qw = note("d_qw", Sum(keys, d_raw, k));
      d_q = note("d_q", Sum(d.d_k, d_qw, w));
      d_k = note("d_k", Sum(n, d_raw, qw));
      note("d_bilinear", Sum(n, q, d_qw));
      break;
    }
    case ScoreFunction::kCosine: {
      // (d_u − (d_u·u) u)/|x| per row, with |d_u·u| ≤ √d_k·max|d_u| (u a unit row), over the
      // smallest nonzero row norm, which no bound from above limits: the forward's own rows'.
      // Norms in double: a float's square cannot overflow there (Eigen's stableNorm, the same
      // answer, was most of this bound's code in the npm package's wasm).
      const auto least_norm = [](const Matrix& m, double least) {
        for (Eigen::Index i = 0; i < m.rows(); ++i) {
          double squares = 0;
          for (Eigen::Index c = 0; c < m.cols(); ++c) squares += static_cast<double>(m(i, c)) * m(i, c);
          if (squares > 0) least = std::min(least, std::sqrt(squares));
        }
        return least;
      };
      double least_q = HUGE_VAL, least_k = HUGE_VAL;
      for (const HeadIntermediates& h : fwd.heads) least_q = least_norm(h.q, least_q), least_k = least_norm(h.k, least_k);
      const double unit = (1 + std::sqrt(static_cast<double>(d.d_k))) * Rounded(d.d_k + 3);
      d_q = note("d_q", Sum(keys, d_raw, 1) * unit / least_q);
      d_k = note("d_k", Sum(n, d_raw, 1) * unit / least_k);
      break;
    }
    case ScoreFunction::kAdditive:
    case ScoreFunction::kAdditiveConcat: {
      const double wq = MaxAbs(params.additive_wq) + MaxAbs(params.additive_concat);
      const double wk = MaxAbs(params.additive_wk) + MaxAbs(params.additive_concat);
      const double qa = note("qa", Sum(d.d_k, q, wq)), ka = note("ka", Sum(d.d_k, k, wk));
      note("qa + ka", (qa + ka) * Rounded(1));
      const double g = d_raw * MaxAbs(params.additive_v) * Rounded(4);  // d_raw·v_a·(1 − t²)
      const double d_qa = note("d_qa", Sum(keys, g, 1)), d_ka = note("d_ka", Sum(n, g, 1));
      note("d_additive_v", Sum(n * keys, d_raw, 1));
      d_q = note("d_q", Sum(d.d_a, d_qa, wq));
      d_k = note("d_k", Sum(d.d_a, d_ka, wk));
      note(config.score == ScoreFunction::kAdditive ? "d_additive_wq" : "d_additive_concat", Sum(n, q, d_qa));
      note(config.score == ScoreFunction::kAdditive ? "d_additive_wk" : "d_additive_concat", Sum(keys, k, d_ka));
      break;
    }
    default:  // kDot, kScaledDot
      d_q = note("d_q", Sum(keys, d_raw, k));
      d_k = note("d_k", Sum(n, d_raw, q));
      break;
  }
  // RoPE's inverse rotation, then the query heads of a group summed into their key/value head's.
  const double d_q_all = note("d_q", d_q * turn);
  const double d_k_new = note("d_k", d_k * turn * d.group * Rounded(d.group));
  const double d_v_new = note("d_v", d_v_head * d.group * Rounded(d.group));

  // Input projections.
  double d_query_in = d_q_all, d_key_in = d_k_new, d_value_in = d_v_new;
  if (project) {
    d_query_in = note("d_query", Sum(static_cast<double>(d.heads) * d.d_k, d_q_all, w_q));
    d_key_in = note("d_key", Sum(static_cast<double>(d.kv_heads) * d.d_k, d_k_new, w_k));
    d_value_in = note("d_value", Sum(static_cast<double>(d.kv_heads) * d.d_v, d_v_new, w_v));
    note("d_wq", Sum(n, x_q, d_q_all));
    note("d_wk", Sum(d.m, x_k, d_k_new));
    note("d_wv", Sum(d.m, x_v, d_v_new));
    if (bias) {
      note("d_bq", Sum(n, d_q_all, 1));
      note("d_bk", Sum(d.m, d_k_new, 1));
      note("d_bv", Sum(d.m, d_v_new, 1));
    }
  }
  if (in.value.size() == 0) d_key_in = note("d_key", (d_key_in + d_value_in) * Rounded(1));
  if (config.position == PositionEncoding::kLearned)
    note("d_position_table", (d_query_in + d_key_in) * Rounded(2));
  if (in.key.size() == 0) note("d_query", (d_query_in + d_key_in) * Rounded(1));
  return b;
}

}  // namespace attn::pipeline
