// The attention backward pass, written once for every kernel like forward.h (same Ops): given the forward
// result and ∂L/∂output, the gradients with respect to the inputs, every parameter (projections, the
// score functions' own, the learned position table, the quadratic relative Δ and α) and the scores.
#pragma once

#include <cmath>
#include <vector>

#include "attn/grad.h"
#include "attn/positions.h"
#include "pipeline/dims.h"
#include "pipeline/forward.h"
#include "pipeline/normalizers.h"
#include "pipeline/scores.h"

namespace attn::pipeline {

// Backward of y = x W + b (or y = x without projection): ∂L/∂x, ∂L/∂W, ∂L/∂b from ∂L/∂y.
// x: (r, d_in), w: (d_in, d_y), d_y: (r, d_y) -> d_x: (r, d_in), d_w: (d_in, d_y), d_b: (1, d_y)
template <typename T, typename Ops>
void ProjectBackward(bool project, bool use_bias, const MatrixT<T>& x, const MatrixT<T>& w,
                     const MatrixT<T>& d_y, MatrixT<T>* d_x, MatrixT<T>* d_w, MatrixT<T>* d_b) {
  if (!project) {
    *d_x = d_y;
    return;
  }
  Ops::ProductTransposedB(d_y, w, d_x);
  Ops::TransposedProduct(x, d_y, d_w);
  if (use_bias) *d_b = d_y.colwise().sum();
}

// Backward of x -> x/|x| per row: d_x = (d_u − (d_u·u) u) / |x|, 0 for zero rows.
template <typename T>
MatrixT<T> UnitRowsBackward(const MatrixT<T>& unit, const std::vector<T>& norms, const MatrixT<T>& d_unit) {
  MatrixT<T> d_x = MatrixT<T>::Zero(unit.rows(), unit.cols());
  for (Eigen::Index i = 0; i < unit.rows(); ++i)
    if (norms[i] > 0) d_x.row(i) = (d_unit.row(i) - d_unit.row(i).dot(unit.row(i)) * unit.row(i)) / norms[i];
  return d_x;
}

// Empty per-head gradient lists, one entry per query head, for the parameters `score` uses; the
// others stay empty. RelevanceBackward fills the entries.
template <typename T>
void AddScoreParameterGradients(ScoreFunction score, int heads, AttentionGradientsT<T>* grad) {
  switch (score) {
    case ScoreFunction::kBilinear: grad->d_bilinear.resize(heads); return;
    case ScoreFunction::kAdditive:
      grad->d_additive_wq.resize(heads);
      grad->d_additive_wk.resize(heads);
      grad->d_additive_v.resize(heads);
      return;
    case ScoreFunction::kAdditiveConcat:
      grad->d_additive_concat.resize(heads);
      grad->d_additive_v.resize(heads);
      return;
    default: return;  // parameter-free score functions
  }
}

// Backward of Relevance: ∂L/∂q and ∂L/∂k from ∂L/∂raw, and ∂L/∂(head's score-function parameters)
// into grad's per-head lists (AddScoreParameterGradients sized them).
// q: (n, d_k), k: (M, d_k), d_raw: (n, M) -> d_q: (n, d_k), d_k: (M, d_k)
template <typename T, typename Ops>
void RelevanceBackward(const AttentionConfig& config, const AttentionParametersT<T>& params, int head,
                       const MatrixT<T>& q, const MatrixT<T>& k, const MatrixT<T>& d_raw, MatrixT<T>* d_q,
                       MatrixT<T>* d_k, AttentionGradientsT<T>* grad) {
  const MatrixT<T> no_bias;
  switch (config.score) {
    case ScoreFunction::kBilinear: {  // raw = (q W) kᵀ
      const MatrixT<T>& w = params.bilinear[head];
      MatrixT<T> qw, d_qw;  // (n, d_k)
      Ops::Project(q, w, no_bias, &qw);
      Ops::Product(d_raw, k, &d_qw);
      Ops::ProductTransposedB(d_qw, w, d_q);
      Ops::TransposedProduct(d_raw, qw, d_k);
      Ops::TransposedProduct(q, d_qw, &grad->d_bilinear[head]);  // (d_k, d_k)
      return;
    }
    case ScoreFunction::kCosine: {  // raw = q̂ k̂ᵀ with unit rows
      std::vector<T> q_norms, k_norms;
      const MatrixT<T> q_unit = UnitRows(q, &q_norms), k_unit = UnitRows(k, &k_norms);
      MatrixT<T> d_q_unit, d_k_unit;
      Ops::Product(d_raw, k_unit, &d_q_unit);
      Ops::TransposedProduct(d_raw, q_unit, &d_k_unit);
      *d_q = UnitRowsBackward(q_unit, q_norms, d_q_unit);
      *d_k = UnitRowsBackward(k_unit, k_norms, d_k_unit);
      return;
    }
    case ScoreFunction::kAdditive:
    case ScoreFunction::kAdditiveConcat: {  // raw_ij = Σ_a v_a tanh(qa_ia + ka_ja)
      MatrixT<T> wq, wk, qa, ka;  // (d_k, d_a) twice, (n, d_a), (M, d_a)
      AdditiveWeights(config, params, head, q.cols(), &wq, &wk);
      const MatrixT<T>& v = params.additive_v[head];
      Ops::Project(q, wq, no_bias, &qa);
      Ops::Project(k, wk, no_bias, &ka);
      MatrixT<T> d_qa = MatrixT<T>::Zero(qa.rows(), qa.cols()), d_ka = MatrixT<T>::Zero(ka.rows(), ka.cols());
      MatrixT<T>& d_v = grad->d_additive_v[head];  // (1, d_a)
      d_v = MatrixT<T>::Zero(1, qa.cols());
      for (Eigen::Index i = 0; i < qa.rows(); ++i) {
        for (Eigen::Index j = 0; j < ka.rows(); ++j) {
          for (Eigen::Index a = 0; a < qa.cols(); ++a) {
            const T t = std::tanh(qa(i, a) + ka(j, a));
            const T g = d_raw(i, j) * v(0, a) * (1 - t * t);
            d_qa(i, a) += g;
            d_ka(j, a) += g;
            d_v(0, a) += d_raw(i, j) * t;
          }
        }
      }
      Ops::ProductTransposedB(d_qa, wq, d_q);
      Ops::ProductTransposedB(d_ka, wk, d_k);
      MatrixT<T> d_wq, d_wk;  // (d_k, d_a) each
      Ops::TransposedProduct(q, d_qa, &d_wq);
      Ops::TransposedProduct(k, d_ka, &d_wk);
      if (config.score == ScoreFunction::kAdditiveConcat) {
        MatrixT<T>& d_w = grad->d_additive_concat[head];  // (2 d_k, d_a): the rows AdditiveWeights split
        d_w.resize(d_wq.rows() + d_wk.rows(), d_wq.cols());
        d_w << d_wq, d_wk;
      } else {
        grad->d_additive_wq[head] = std::move(d_wq);
        grad->d_additive_wk[head] = std::move(d_wk);
      }
      return;
    }
    default:  // kDot, kScaledDot: raw = q kᵀ
      Ops::Product(d_raw, k, d_q);
      Ops::TransposedProduct(d_raw, q, d_k);
      return;
  }
}

// Fills *grad (every earlier content dropped) from the forward result `fwd` of the same arguments.
template <typename T, typename Ops>
void BackwardPipeline(const AttentionConfig& config, const AttentionInputsT<T>& in,
                      const AttentionParametersT<T>& params, const AttentionResultT<T>& fwd,
                      const MatrixT<T>& d_output, AttentionGradientsT<T>* grad) {
  const AttentionDims d = ResolveDims(config, in);
  const bool rope = config.position == PositionEncoding::kRope;
  const bool quadratic = config.position == PositionEncoding::kQuadraticRelative;
  const T base = static_cast<T>(config.position_base), cap = static_cast<T>(config.softcap);
  const T temperature = static_cast<T>(config.temperature), scale = static_cast<T>(d.scale);
  *grad = AttentionGradientsT<T>();  // gradients of unused parameters stay empty even when *grad is reused

  MatrixT<T> d_concat;  // (n, h d_v)
  ProjectBackward<T, Ops>(config.project_output, config.use_bias, fwd.concat, params.wo, d_output, &d_concat,
                          &grad->d_wo, &grad->d_bo);

  MatrixT<T> d_q_all = MatrixT<T>::Zero(d.n, d.heads * d.d_k);     // (n, h d_k)
  MatrixT<T> d_k_new = MatrixT<T>::Zero(d.m, d.kv_heads * d.d_k);  // (m, h_kv d_k)
  MatrixT<T> d_v_new = MatrixT<T>::Zero(d.m, d.kv_heads * d.d_v);  // (m, h_kv d_v)
  grad->d_scores.resize(d.heads);
  grad->d_weights.resize(d.heads);
  AddScoreParameterGradients(config.score, d.heads, grad);
  if (quadratic) {
    grad->d_relative_center.resize(1, d.heads);
    grad->d_relative_sharpness.resize(1, d.heads);
  }
  for (int head = 0; head < d.heads; ++head) {
    const HeadIntermediatesT<T>& h = fwd.heads[head];
    const int g = head / d.group;
    const MatrixT<T> d_out_h = d_concat.middleCols(head * d.d_v, d.d_v);  // (n, d_v)
    Ops::ProductTransposedB(d_out_h, h.v, &grad->d_weights[head]);         // (n, M)
    MatrixT<T> d_v;                                                       // (M, d_v)
    Ops::TransposedProduct(h.weights, d_out_h, &d_v);
    d_v_new.middleCols(g * d.d_v, d.d_v) += d_v.bottomRows(d.m);

    NormalizeBackward(config.normalizer, h.scores, h.weights, temperature, grad->d_weights[head],
                      &grad->d_scores[head]);
    // 0 at masked pairs (NormalizeBackward), so nothing below flows through them.
    const MatrixT<T>& d_scores = grad->d_scores[head];  // (n, M)
    // ∂L/∂(softcap's input): softcap c·tanh(u/c) has derivative 1 − (capped/c)².
    MatrixT<T> d_uncapped = d_scores;  // (n, M)
    if (cap > 0) d_uncapped.array() *= 1 - (h.capped_scores.array() / cap).square();
    const MatrixT<T> d_raw = d_uncapped * scale;  // (n, M)
    if (quadratic) {  // the bias is added to the capped scores, or under kAfterMask capped with them
      const MatrixT<T>& d_bias = config.softcap_order == SoftcapOrder::kAfterMask ? d_uncapped : d_scores;
      QuadraticRelativeBiasBackward(d.query_offset, params.relative_center(0, head),
                                    params.relative_sharpness(0, head), d_bias, &grad->d_relative_center(0, head),
                                    &grad->d_relative_sharpness(0, head));
    }

    MatrixT<T> d_q, d_k;  // (n, d_k), (M, d_k)
    RelevanceBackward<T, Ops>(config, params, head, h.q, h.k, d_raw, &d_q, &d_k, grad);
    MatrixT<T> d_k_fresh = d_k.bottomRows(d.m);
    if (rope) {  // the rotation is orthogonal: its backward is the inverse rotation
      ApplyRope(&d_q, d.query_offset, base, -1);
      ApplyRope(&d_k_fresh, d.past, base, -1);
    }
    d_q_all.middleCols(head * d.d_k, d.d_k) += d_q;
    d_k_new.middleCols(g * d.d_k, d.d_k) += d_k_fresh;
  }

  MatrixT<T> d_query_in, d_key_in, d_value_in;
  const bool project = config.project_inputs, bias = config.use_bias;
  ProjectBackward<T, Ops>(project, bias, fwd.query_in, params.wq, d_q_all, &d_query_in, &grad->d_wq, &grad->d_bq);
  ProjectBackward<T, Ops>(project, bias, fwd.key_in, params.wk, d_k_new, &d_key_in, &grad->d_wk, &grad->d_bk);
  ProjectBackward<T, Ops>(project, bias, fwd.value_in, params.wv, d_v_new, &d_value_in, &grad->d_wv, &grad->d_bv);
  if (in.value.size() == 0) {
    d_key_in += d_value_in;  // value was the key input (after positions)
  } else {
    grad->d_value = d_value_in;
  }
  if (config.position == PositionEncoding::kLearned) {
    // query_in = query + E[query_offset …] and key_in = key + E[past …] (key = query for
    // self-attention): each table row gains the gradients of the rows it was added to.
    grad->d_position_table = MatrixT<T>::Zero(params.position_table.rows(), params.position_table.cols());
    grad->d_position_table.middleRows(d.query_offset, d.n) += d_query_in;
    grad->d_position_table.middleRows(d.past, d.m) += d_key_in;
  }
  // The additive terms of the position encodings do not depend on the inputs: gradients pass straight through.
  if (in.key.size() == 0) {
    grad->d_query = d_query_in + d_key_in;  // key was the query input
  } else {
    grad->d_query = d_query_in;
    grad->d_key = d_key_in;
  }
}

}  // namespace attn::pipeline
