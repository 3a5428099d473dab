// A self-attention layer prepared once and called many times, as onnxruntime prepares a session
// and PyTorch keeps a module: Prepare checks the config and the parameters, seeds the ones left
// empty (from config.seed, as every entry point does) and packs the projection weights for the
// kernel's GEMM, once. Forward then checks only what depends on the input and runs.
//
// On a SIMD kernel (wasm_simd128, avx2, avx512) with a config the fused kernel covers
// (attn::FusedKernelCovers), Forward runs the fused pipeline on the packed weights and a workspace
// kept in the object: a call with the same n as the previous one, into the same `out`, allocates
// nothing and copies no parameter (tests/engine/prepared_alloc_test.cpp counts the allocations).
// ForwardOutput runs that same pipeline, so the two agree to the bit. Other kernels and configs
// run ForwardOutput with the completed parameters (checked once, but the call copies x and
// allocates as ForwardOutput does).
//
// Shapes: x (n, d_model) -> out (n, d_out); d_out = config.output_dim or d_model with the output
// projection, h·d_v without. Self-attention only: queries, keys and values all come from x.
// One object serves one thread at a time (Forward writes its workspace).
#pragma once

#include <memory>

#include "attn/attention.h"
#include "attn/config.h"
#include "attn/matrix.h"
#include "attn/status.h"

namespace attn {

class PreparedAttention;

// Checks `config` and `params` for self-attention over inputs of width d_model (1 ..
// Limits::max_dimension, else kOutOfRange naming d_model), seeds what `params` leaves empty and
// packs the weights. Errors as ForwardOutput(config, {query: a (1, d_model) x}, params) gives them;
// on error *prepared is untouched.
Status Prepare(const AttentionConfig& config, int d_model, const AttentionParameters& params,
               PreparedAttention* prepared);

class PreparedAttention {
 public:
  PreparedAttention();
  ~PreparedAttention();
  PreparedAttention(PreparedAttention&&) noexcept;
  PreparedAttention& operator=(PreparedAttention&&) noexcept;
  PreparedAttention(const PreparedAttention&) = delete;
  PreparedAttention& operator=(const PreparedAttention&) = delete;

  // The layer on x, bit for bit ForwardOutput(config, {query: x}, params) with Prepare's arguments,
  // and the same status for the same x. x: (n, d_model) -> *out: (n, d_out). Also kShapeMismatch
  // when x's width is not d_model, and kInvalidArgument before Prepare. On error *out is untouched.
  // *out's buffer may be exchanged with the workspace's (that is how a call copies nothing).
  Status Forward(const Matrix& x, Matrix* out);

  bool prepared() const { return state_ != nullptr; }
  // Whether Forward runs the fused, allocation-free pipeline (see the header comment).
  bool fused() const;
  int d_model() const;  // 0 before Prepare
  int d_out() const;    // 0 before Prepare
  const AttentionConfig& config() const;

 private:
  friend Status Prepare(const AttentionConfig&, int, const AttentionParameters&, PreparedAttention*);
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace attn
