// Every size of one attention call, resolved once from the config and the input shapes, so the
// validation, the forward and the backward pass agree on them.
#pragma once

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <optional>

#include "attn/attention.h"

namespace attn::pipeline {

struct AttentionDims {
  int n = 0;              // query tokens
  int m = 0;              // new key tokens
  int past = 0;           // cached key tokens (p)
  int keys = 0;           // M = past + m
  int d_model = 0;        // query.cols()
  int d_kv_model = 0;     // key.cols() (query.cols() for self-attention)
  int d_value_model = 0;  // value.cols() (key's for value = key)
  int heads = 1;          // h
  int kv_heads = 1;       // h_kv
  int group = 1;          // h / h_kv query heads per key/value head
  int d_k = 0;
  int d_v = 0;
  int d_a = 0;            // additive hidden width
  int d_out = 0;
  int query_offset = 0;   // absolute position of query row 0
  double scale = 1;       // multiplies the relevance
};

// The scale used for a head of width d_k: the given one, else the score function's default;
// kCosine also divides by cosine_temperature.
inline double ResolveScale(const AttentionConfig& config, int d_k) {
  double scale = config.scale;
  if (scale == 0) scale = config.score == ScoreFunction::kScaledDot ? 1.0 / std::sqrt(static_cast<double>(d_k)) : 1.0;
  if (config.score == ScoreFunction::kCosine) scale /= config.cosine_temperature;
  return scale;
}

// a·b for a, b >= 0, clamped to INT_MAX: validation then refuses the width (it is over
// Limits::max_dimension) instead of the product overflowing int first.
inline int ClampedProduct(int a, int b) {
  const int64_t product = static_cast<int64_t>(a) * b;
  return product > INT_MAX ? INT_MAX : static_cast<int>(product);
}

// Sizes implied by the config and the input sizes; not validated (validation compares them with
// the inputs). An unset query_offset means `past`.
inline AttentionDims ResolveDims(const AttentionConfig& config, int n, int m, int past, int d_model,
                                 int d_kv_model, int d_value_model, std::optional<int> query_offset) {
  AttentionDims d;
  d.n = n;
  d.m = m;
  d.past = past;
  d.keys = static_cast<int>(std::min<int64_t>(static_cast<int64_t>(past) + m, INT_MAX));
  d.d_model = d_model;
  d.d_kv_model = d_kv_model;
  d.d_value_model = d_value_model;
  d.heads = config.num_heads;
  d.kv_heads = config.num_kv_heads > 0 ? config.num_kv_heads : config.num_heads;
  d.group = d.kv_heads > 0 ? d.heads / d.kv_heads : 1;
  if (config.project_inputs) {
    d.d_k = config.head_dim > 0 ? config.head_dim : (d.heads > 0 ? d.d_model / d.heads : 0);
    d.d_v = config.value_head_dim > 0 ? config.value_head_dim : d.d_k;
  } else {
    d.d_k = d.heads > 0 ? d.d_model / d.heads : 0;
    d.d_v = d.kv_heads > 0 ? d.d_value_model / d.kv_heads : 0;
  }
  d.d_a = config.additive_dim > 0 ? config.additive_dim : d.d_k;
  d.d_out = config.project_output ? (config.output_dim > 0 ? config.output_dim : d.d_model) : ClampedProduct(d.heads, d.d_v);
  d.query_offset = query_offset.value_or(past);
  d.scale = ResolveScale(config, d.d_k);
  return d;
}

template <typename T>
AttentionDims ResolveDims(const AttentionConfig& config, const AttentionInputsT<T>& in) {
  const MatrixT<T>& key = in.key.size() ? in.key : in.query;
  const MatrixT<T>& value = in.value.size() ? in.value : key;
  const int past = in.past_key.empty() ? 0 : static_cast<int>(in.past_key[0].rows());
  return ResolveDims(config, static_cast<int>(in.query.rows()), static_cast<int>(key.rows()), past,
                     static_cast<int>(in.query.cols()), static_cast<int>(key.cols()),
                     static_cast<int>(value.cols()), in.query_offset);
}

}  // namespace attn::pipeline
