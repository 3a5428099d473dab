// The fused forward pass, written once for both of its callers: ForwardOutput on a SIMD kernel
// (forward_output.cpp), which builds a Layer for one call, and attn::PreparedAttention
// (prepared_attention.cpp), which builds it once and keeps it. Both then run the same Run, so they
// agree to the bit.
//
// A Layer holds what does not change between calls: the config, the kernel's table, the projection
// weights packed for the kernel's GEMM (KernelTable::pack_b) and the biases and position table.
// A Workspace holds every per-call matrix; Run resizes them to the call's shape, so a second call
// of the same shape allocates nothing (Eigen's resize keeps the buffer when the size is unchanged,
// and the SIMD kernels' scratch is a grow-only block per thread).
//
// Shapes as in attn/attention.h: n queries, m new keys, p past keys, M = p + m.
#pragma once

#include <cstddef>
#include <vector>

#include "attn/attention.h"
#include "kernels/simd/kernel_table.h"
#include "pipeline/dims.h"

namespace attn::fused {

// One projection x W (+ b): W (k, n) packed for the kernel's gemm_packed, at `offset` floats into
// Layer's packed storage; bias (1, n) or empty.
struct PackedProjection {
  int k = 0, n = 0;
  std::size_t offset = 0;
  Matrix bias;  // (1, n) or empty
};

struct Layer {
  AttentionConfig config;
  const simd::KernelTable* table = nullptr;
  PackedProjection wq;     // (d_model, h d_k)         when config.project_inputs
  PackedProjection wk;     // (d_kv_model, h_kv d_k)   when config.project_inputs
  PackedProjection wv;     // (d_value_model, h_kv d_v) when config.project_inputs
  PackedProjection wo;     // (h d_v, d_out)           when config.project_output
  Matrix position_table;   // (max_positions, d_model) when config.position is kLearned
  std::vector<float> packed;  // the packed weights; starts 64-byte aligned at packed_start
  std::size_t packed_start = 0;

  const float* Weights(const PackedProjection& w) const { return packed.data() + packed_start + w.offset; }
};

// Packs `complete`'s weights for config.kernel (which must have a KernelTable) and keeps its biases
// and position table. `complete` validated for `config` (validate::PrepareCall).
void BuildLayer(const AttentionConfig& config, AttentionParameters complete, Layer* layer);


// One call's inputs, by pointer (nothing is copied): the query, the key (null: the query) and the
// value (null: the key), the caches (empty or h_kv entries each) and the resolved dims.
struct CallInputs {
  const Matrix* query = nullptr;               // (n, d_model)
  const Matrix* key = nullptr;                 // (m, d_kv_model) or null
  const Matrix* value = nullptr;               // (m, d_value_model) or null
  const std::vector<Matrix>* past_key = nullptr;    // h_kv × (p, d_k), or null
  const std::vector<Matrix>* past_value = nullptr;  // h_kv × (p, d_v), or null
};

// The CallInputs of a validated AttentionInputs (pointers into it).
CallInputs InputsOf(const AttentionInputs& inputs);

// Every per-call matrix, kept between calls.
struct Workspace {
  Matrix query_positions, key_positions;  // sinusoidal tables for the rows of this call's shape
  long long query_positions_first = -1, key_positions_first = -1;  // first position each table holds
  Matrix query_in, key_in;                // inputs after additive positions   (n, d_model), (m, d_kv_model)
  Matrix q_all, k_new, v_new;             // projections   (n, h d_k), (m, h_kv d_k), (m, h_kv d_v)
  std::vector<Matrix> present_key, present_value;  // h_kv × (M, d_k), (M, d_v): only with a cache or RoPE
  Matrix rotated;                         // one head's query after RoPE   (n, d_k)
  Matrix concat;                          // (n, h d_v)
  std::vector<int> value_shift;           // (h_kv d_v) per value column: the power of two it is scaled down by
  std::vector<float> value_max;           // (h_kv d_v) per value column: its largest |v|
  Matrix scaled_value;                    // v_new with those columns scaled (only when one is)
  Matrix output;                          // (n, d_out), swapped into the caller's matrix
};

// The output, (n, d_out). Statuses as ForwardOutput documents them (kNonFinite on overflow); on
// error *output is untouched. With the same shapes as the previous call on `ws`, and an *output of
// the right size, allocates nothing.
Status Run(const Layer& layer, const CallInputs& in, const pipeline::AttentionDims& d, Workspace* ws,
           Matrix* output);

}  // namespace attn::fused
