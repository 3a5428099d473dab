// The attention forward pass, written once for every kernel: `Ops` supplies the hot spots
// (projection GEMM, QKᵀ, softmax, weights·V), everything else is plain code shared by all kernels.
// attn::Forward instantiates it in float for each kernel; attn::reference::Forward (attn/reference.h)
// in double with the scalar loops of attn/reference/ops.h. Inputs must be valid (attn::Forward
// checks them) and parameters complete.
#pragma once

#include <vector>

#include "attn/attention.h"
#include "attn/positions.h"
#include "pipeline/dims.h"
#include "pipeline/normalizers.h"
#include "pipeline/scores.h"

namespace attn::pipeline {

// x plus the additive position encoding of rows at positions first_position, first_position+1, …
// (unchanged for encodings that act on q, k or the scores).   x: (rows, d) -> (rows, d)
template <typename T>
MatrixT<T> WithPositions(const AttentionConfig& config, const AttentionParametersT<T>& params,
                         const MatrixT<T>& x, Eigen::Index first_position) {
  if (config.position == PositionEncoding::kSinusoidal)
    return x + SinusoidalEncoding<T>(x.rows(), x.cols(), first_position, static_cast<T>(config.position_base));
  if (config.position == PositionEncoding::kLearned)
    return x + params.position_table.middleRows(first_position, x.rows());
  return x;
}

// x W + b, or x itself when the config has no input projections.
template <typename T, typename Ops>
MatrixT<T> ProjectIf(bool project, bool use_bias, const MatrixT<T>& x, const MatrixT<T>& w,
                     const MatrixT<T>& b) {
  if (!project) return x;
  MatrixT<T> out;
  Ops::Project(x, w, use_bias ? b : MatrixT<T>(), &out);
  return out;
}

// [past; new rows], RoPE applied to the new rows only (the cache is stored rotated).
// past: (p, d) or empty, fresh: (m, d) -> (p + m, d)
template <typename T>
MatrixT<T> AppendToCache(const AttentionConfig& config, const std::vector<MatrixT<T>>& past, int group_index,
                         MatrixT<T> fresh, bool rotate, Eigen::Index first_position) {
  if (rotate) ApplyRope(&fresh, first_position, static_cast<T>(config.position_base));
  if (past.empty()) return fresh;
  const MatrixT<T>& old = past[group_index];
  MatrixT<T> all(old.rows() + fresh.rows(), fresh.cols());
  all << old, fresh;
  return all;
}

// Everything before the heads: additive positions, the Q/K/V projections, and the key/value cache
// per key/value head (RoPE applied to keys). Fills out->query_in, key_in, value_in, present_key,
// present_value; returns all query heads side by side.   -> (n, h d_k), RoPE not yet applied
template <typename T, typename Ops>
MatrixT<T> ProjectInputs(const AttentionConfig& config, const AttentionInputsT<T>& in,
                         const AttentionParametersT<T>& params, const AttentionDims& d, AttentionResultT<T>* out) {
  const MatrixT<T>& key_source = in.key.size() ? in.key : in.query;
  const bool rope = config.position == PositionEncoding::kRope;
  const bool project = config.project_inputs, bias = config.use_bias;

  out->query_in = WithPositions(config, params, in.query, d.query_offset);  // (n, d_model)
  out->key_in = WithPositions(config, params, key_source, d.past);          // (m, d_kv_model)
  out->value_in = in.value.size() ? in.value : out->key_in;                 // (m, d_value_model)

  MatrixT<T> q_all = ProjectIf<T, Ops>(project, bias, out->query_in, params.wq, params.bq);       // (n, h d_k)
  const MatrixT<T> k_new = ProjectIf<T, Ops>(project, bias, out->key_in, params.wk, params.bk);    // (m, h_kv d_k)
  const MatrixT<T> v_new = ProjectIf<T, Ops>(project, bias, out->value_in, params.wv, params.bv);  // (m, h_kv d_v)

  out->present_key.resize(d.kv_heads);
  out->present_value.resize(d.kv_heads);
  for (int g = 0; g < d.kv_heads; ++g) {
    out->present_key[g] = AppendToCache<T>(config, in.past_key, g, k_new.middleCols(g * d.d_k, d.d_k), rope, d.past);
    out->present_value[g] = AppendToCache<T>(config, in.past_value, g, v_new.middleCols(g * d.d_v, d.d_v), false, 0);
  }
  return q_all;
}

// Query head `head`'s slice of q_all, rotated when the config uses RoPE.   -> (n, d_k)
template <typename T>
MatrixT<T> HeadQuery(const AttentionConfig& config, const AttentionDims& d, const MatrixT<T>& q_all, int head) {
  MatrixT<T> q = q_all.middleCols(head * d.d_k, d.d_k);
  if (config.position == PositionEncoding::kRope) ApplyRope(&q, d.query_offset, static_cast<T>(config.position_base));
  return q;
}

// Order of operations: attn/config.h; shapes: attn/attention.h.
template <typename T, typename Ops>
void ForwardPipeline(const AttentionConfig& config, const AttentionInputsT<T>& in,
                     const AttentionParametersT<T>& params, AttentionResultT<T>* out) {
  const AttentionDims d = ResolveDims(config, in);
  const MatrixT<T> q_all = ProjectInputs<T, Ops>(config, in, params, d, out);  // (n, h d_k)

  out->heads.resize(d.heads);
  out->concat.resize(d.n, d.heads * d.d_v);
  for (int head = 0; head < d.heads; ++head) {
    HeadIntermediatesT<T>& h = out->heads[head];
    const int g = head / d.group;  // grouped-query: consecutive query heads share a key/value head
    h.q = HeadQuery(config, d, q_all, head);
    h.k = out->present_key[g];
    h.v = out->present_value[g];
    HeadScores<T, Ops>(config, in, params, d, head, &h);
    Normalize<T, Ops>(config.normalizer, h.scores, static_cast<T>(config.temperature), &h.weights);
    Ops::WeightedSum(h.weights, h.v, &h.output);
    out->concat.middleCols(head * d.d_v, d.d_v) = h.output;
  }
  out->output = ProjectIf<T, Ops>(config.project_output, config.use_bias, out->concat, params.wo, params.bo);
  // out->parameters: the caller's (attn::Forward moves its checked copy in: no second copy of the weights)
}

}  // namespace attn::pipeline
