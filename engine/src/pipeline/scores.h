// From one head's q and k to the scores the normaliser sees: relevance, scale, softcap, masks and
// position bias (order: attn/config.h).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "attn/attention.h"
#include "attn/positions.h"
#include "attn/validate.h"
#include "pipeline/dims.h"

namespace attn::pipeline {

// Additive (Bahdanau) relevance: raw_ij = Σ_a v_a tanh(qa_ia + ka_ja).
// qa: (n, d_a) = q W_q, ka: (M, d_a) = k W_k, v: (1, d_a) -> raw: (n, M)
template <typename T>
void AdditiveScores(const MatrixT<T>& qa, const MatrixT<T>& ka, const MatrixT<T>& v, MatrixT<T>* raw) {
  raw->resize(qa.rows(), ka.rows());
  for (Eigen::Index i = 0; i < qa.rows(); ++i) {
    for (Eigen::Index j = 0; j < ka.rows(); ++j) {
      T sum = 0;
      for (Eigen::Index a = 0; a < qa.cols(); ++a) sum += v(0, a) * std::tanh(qa(i, a) + ka(j, a));
      (*raw)(i, j) = sum;
    }
  }
}

// Rows of x divided by their norms (zero rows stay zero: a zero vector is similar to nothing), and
// the norms. Eigen's stableNorm scales by the largest entry, so |x| ~ 1e20 neither overflows nor
// turns the cosine into inf/inf.   x: (r, d)
template <typename T>
MatrixT<T> UnitRows(const MatrixT<T>& x, std::vector<T>* norms) {
  MatrixT<T> unit = x;
  norms->resize(x.rows());
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    (*norms)[i] = x.row(i).stableNorm();
    if ((*norms)[i] > 0) unit.row(i) /= (*norms)[i];
  }
  return unit;
}

// W_q and W_k of query head `head`'s additive score, (d_k, d_a) each. [q; k] W = q W[:d_k] + k W[d_k:],
// so kAdditiveConcat's W split by rows shares the additive computation (and its backward pass).
template <typename T>
void AdditiveWeights(const AttentionConfig& config, const AttentionParametersT<T>& params, int head,
                     Eigen::Index d_k, MatrixT<T>* wq, MatrixT<T>* wk) {
  if (config.score == ScoreFunction::kAdditiveConcat) {
    *wq = params.additive_concat[head].topRows(d_k);
    *wk = params.additive_concat[head].bottomRows(d_k);
  } else {
    *wq = params.additive_wq[head];
    *wk = params.additive_wk[head];
  }
}

// raw_ij = relevance(q_i, k_j) for query head `head` before scale.
// q: (n, d_k), k: (M, d_k) -> raw: (n, M)
template <typename T, typename Ops>
void Relevance(const AttentionConfig& config, const AttentionParametersT<T>& params, int head,
               const MatrixT<T>& q, const MatrixT<T>& k, MatrixT<T>* raw) {
  const MatrixT<T> no_bias;
  switch (config.score) {
    case ScoreFunction::kBilinear: {
      MatrixT<T> qw;  // (n, d_k)
      Ops::Project(q, params.bilinear[head], no_bias, &qw);
      Ops::QueryKeyScores(qw, k, raw);
      return;
    }
    case ScoreFunction::kAdditive:
    case ScoreFunction::kAdditiveConcat: {
      MatrixT<T> wq, wk, qa, ka;
      AdditiveWeights(config, params, head, q.cols(), &wq, &wk);
      Ops::Project(q, wq, no_bias, &qa);
      Ops::Project(k, wk, no_bias, &ka);
      AdditiveScores(qa, ka, params.additive_v[head], raw);
      return;
    }
    case ScoreFunction::kCosine: {  // q̂ k̂ᵀ on unit rows: no |q|·|k| or q·k that could overflow
      std::vector<T> q_norms, k_norms;
      Ops::QueryKeyScores(UnitRows(q, &q_norms), UnitRows(k, &k_norms), raw);
      return;
    }
    default:  // kDot, kScaledDot
      Ops::QueryKeyScores(q, k, raw);
      return;
  }
}

template <typename T>
MatrixT<T> Softcap(const MatrixT<T>& s, T cap) {
  if (cap <= 0) return s;
  return s.unaryExpr([cap](T v) { return cap * std::tanh(v / cap); });
}

// Entry of a per-head list that holds one shared entry or one per head.
template <typename T>
bool IsMaskedScore(T s) {
  return s == -std::numeric_limits<T>::infinity();
}

template <typename M>
const M& ForHead(const std::vector<M>& list, int head) {
  return list.size() == 1 ? list[0] : list[head];
}

// Keys [first, last] the position masks (causal, sliding window) allow query row i; first > last:
// none. 64-bit positions: p_q + window_right cannot overflow.
inline void AllowedKeys(const AttentionConfig& config, const AttentionDims& d, int64_t i, int64_t* first,
                        int64_t* last) {
  const int64_t p_q = d.query_offset + i;
  *first = 0;
  *last = d.keys - 1;
  if (config.window_left >= 0) *first = std::max<int64_t>(*first, p_q - config.window_left);
  if (config.causal) *last = std::min(*last, p_q);
  if (config.window_right >= 0) *last = std::min<int64_t>(*last, p_q + config.window_right);
}

// Sets scores to −inf where query i must not see key j: causal, sliding window, bool mask, key
// padding.   scores: (n, M)
template <typename T>
void BlockPairs(const AttentionConfig& config, const AttentionInputsT<T>& in, const AttentionDims& d, int head,
                MatrixT<T>* scores) {
  const T blocked = -std::numeric_limits<T>::infinity();
  const Eigen::Index keys = d.keys;
  for (Eigen::Index i = 0; i < d.n; ++i) {
    int64_t first = 0, last = 0;
    AllowedKeys(config, d, i, &first, &last);
    for (Eigen::Index j = 0; j < std::min<int64_t>(first, keys); ++j) (*scores)(i, j) = blocked;
    for (Eigen::Index j = std::max<int64_t>(last + 1, 0); j < keys; ++j) (*scores)(i, j) = blocked;
  }
  if (!in.bool_mask.empty()) {
    const BoolMatrix& mask = ForHead(in.bool_mask, head);
    const bool true_blocks = in.bool_mask_meaning == BoolMaskMeaning::kTrueMeansBlock;
    for (Eigen::Index k = 0; k < mask.size(); ++k)
      if (mask.data()[k] == true_blocks) scores->data()[k] = blocked;
  }
  for (Eigen::Index j = 0; j < in.key_padding.size(); ++j)
    if (in.key_padding(0, j)) scores->col(j).setConstant(blocked);
}

// Float mask plus the score bias of the position encoding (ALiBi, quadratic relative); empty when
// there is neither.   -> (n, M) or (0, 0)
template <typename T>
MatrixT<T> ScoreBias(const AttentionConfig& config, const AttentionInputsT<T>& in,
                     const AttentionParametersT<T>& params, const AttentionDims& d, int head) {
  const bool alibi = config.position == PositionEncoding::kAlibi;
  const bool quadratic = config.position == PositionEncoding::kQuadraticRelative;
  if (in.float_mask.empty() && !alibi && !quadratic) return MatrixT<T>();
  MatrixT<T> bias = MatrixT<T>::Zero(d.n, d.keys);
  if (!in.float_mask.empty()) bias += ForHead(in.float_mask, head);
  if (alibi) bias += AlibiBias<T>(d.n, d.keys, d.query_offset, AlibiSlope<T>(d.heads, head));
  if (quadratic)
    bias += QuadraticRelativeBias<T>(d.n, d.keys, d.query_offset, params.relative_center(0, head),
                                     params.relative_sharpness(0, head));
  return bias;
}

// Fills h->raw_scores … h->scores from h->q and h->k.
template <typename T, typename Ops>
void HeadScores(const AttentionConfig& config, const AttentionInputsT<T>& in,
                const AttentionParametersT<T>& params, const AttentionDims& d, int head,
                HeadIntermediatesT<T>* h) {
  Relevance<T, Ops>(config, params, head, h->q, h->k, &h->raw_scores);
  h->scaled_scores = h->raw_scores * static_cast<T>(d.scale);
  const MatrixT<T> bias = ScoreBias(config, in, params, d, head);
  const T cap = static_cast<T>(config.softcap);
  if (config.softcap_order == SoftcapOrder::kBeforeMask || bias.size() == 0) {
    h->capped_scores = Softcap(h->scaled_scores, cap);
    h->scores = bias.size() ? MatrixT<T>(h->capped_scores + bias) : h->capped_scores;
  } else {
    h->capped_scores = Softcap<T>(h->scaled_scores + bias, cap);
    h->scores = h->capped_scores;
  }
  BlockPairs(config, in, d, head, &h->scores);
}

}  // namespace attn::pipeline

namespace attn::pipeline {

// True when no entry of the `count` values from p is ±inf or NaN: floats on the widest SIMD variant
// (validate::NoInfOrNan), doubles (the reference) through Eigen.
template <typename T>
bool RunFinite(const T* p, Eigen::Index count) {
  if constexpr (std::is_same_v<T, float>) return validate::NoInfOrNan(p, static_cast<std::size_t>(count));
  return AllFiniteEntries(Eigen::Map<const Eigen::Array<T, 1, Eigen::Dynamic>>(p, count));
}

// Whether every score of a pair no mask blocks is finite at every stage (raw, scaled, capped, with
// bias, and over the temperature as the normaliser sees it): false means float32 overflowed (the
// inputs are finite) and the weights would be NaN or silently zero. Masked pairs may overflow: the
// fused kernel never computes them. Run after HeadScores.
template <typename T>
bool AllowedScoresFinite(const AttentionConfig& config, const AttentionInputsT<T>& in, const AttentionDims& d,
                         int head, const HeadIntermediatesT<T>& h) {
  // Every stage finite and the largest |score| over τ finite (hence every score over τ: |s|/τ grows
  // with |s|; for τ ≥ 1, |s|/τ ≤ |s|, finite with s) on `count` entries from `first` of each stage
  // (row-major): a whole matrix or one row's run of keys, each in one vectorised pass.
  const T temperature = static_cast<T>(config.temperature);
  const auto finite = [&](Eigen::Index first, Eigen::Index count) {
    for (const MatrixT<T>* stage : {&h.raw_scores, &h.scaled_scores, &h.capped_scores, &h.scores})
      if (!RunFinite(stage->data() + first, count)) return false;
    if (count == 0 || temperature >= T(1)) return true;
    const Eigen::Map<const Eigen::Array<T, 1, Eigen::Dynamic>> scores(h.scores.data() + first, count);
    return static_cast<bool>(std::isfinite(scores.abs().maxCoeff() / temperature));
  };
  if (in.bool_mask.empty() && !in.key_padding.size() && in.float_mask.empty()) {
    // No mask or only bands (causal, a window): each row's allowed keys are one run [first, last]
    // (pair by pair, a causal prefill of GPT-2 spent 1.5% of its time here; through Eigen's row
    // segments, a fifth of its attention's time in wasm, where Eigen has no SIMD).
    for (Eigen::Index i = 0; i < d.n; ++i) {
      int64_t first = 0, last = 0;
      AllowedKeys(config, d, i, &first, &last);
      const Eigen::Index lo = std::max<int64_t>(first, 0), hi = std::min<int64_t>(last, d.keys - 1);
      if (hi >= lo && !finite(i * d.keys + lo, hi - lo + 1)) return false;
    }
    return true;
  }
  // Other masks: the common case first, every stage finite everywhere (no mask put −inf in), then
  // pair by pair.
  if (finite(0, h.scores.size())) return true;
  const bool true_blocks = in.bool_mask_meaning == BoolMaskMeaning::kTrueMeansBlock;
  for (Eigen::Index i = 0; i < d.n; ++i) {
    int64_t first = 0, last = 0;
    AllowedKeys(config, d, i, &first, &last);
    for (Eigen::Index j = std::max<int64_t>(first, 0); j <= std::min<int64_t>(last, d.keys - 1); ++j) {
      if (!in.bool_mask.empty() && ForHead(in.bool_mask, head)(i, j) == true_blocks) continue;
      if (in.key_padding.size() && in.key_padding(0, j)) continue;
      if (!in.float_mask.empty() && IsMaskedScore(ForHead(in.float_mask, head)(i, j))) continue;
      if (!std::isfinite(h.raw_scores(i, j)) || !std::isfinite(h.scaled_scores(i, j)) ||
          !std::isfinite(h.capped_scores(i, j)) || !std::isfinite(h.scores(i, j)) ||
          !std::isfinite(h.scores(i, j) / temperature)) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace attn::pipeline
