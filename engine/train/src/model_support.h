// What the training models (model.cpp, lm_model.cpp) share, private to attn::train: the engine's
// attention layer in each precision and the statuses they return.
#pragma once

#include <string>

#include "attn/attention.h"
#include "attn/grad.h"
#include "attn/reference.h"
#include "attn/status.h"
#include "attn/train/layers.h"

namespace attn::train {

// "transformer: layers: expected 1–3, got 4"
inline Status OutOfRange(const std::string& what, int value, const char* range) {
  return Status(StatusCode::kOutOfRange, what + ": expected " + range + ", got " + std::to_string(value));
}

// kNonFinite naming `where` when a value of `m` is inf or NaN.
template <typename T>
Status CheckFinite(const char* where, const Mat<T>& m) {
  if (m.allFinite()) return Status::Ok();
  return Status(StatusCode::kNonFinite, std::string(where) + ": a value is not finite (training diverged?)");
}

// The engine's attention layer in each precision: float goes through the checked API (attn::Forward
// / attn::Backward, the page's own kernel); double through the readable reference, which trusts its
// arguments (the model built them).
template <typename T>
struct EngineAttention;

template <>
struct EngineAttention<float> {
  static Status Forward(const AttentionConfig& c, const AttentionInputs& in, const AttentionParameters& p,
                        AttentionResult* out) {
    ATTN_RETURN_IF_ERROR(attn::Forward(c, in, p, out));
    // Forward's copy of the parameters (4·d·h·d_k floats per sequence and layer: 4 MB at d = 512)
    // is the model's own block parameters again: kept for every sequence of a batch it was most of
    // a step's memory (TrainingBytes).
    out->parameters = AttentionParameters();
    return Status::Ok();
  }
  static Status Backward(const AttentionConfig& c, const AttentionInputs& in, const AttentionParameters& p,
                         const AttentionResult& fwd, const Matrix& d_out, AttentionGradients* grads) {
    return attn::Backward(c, in, p, fwd, d_out, grads);
  }
};

template <>
struct EngineAttention<double> {
  static Status Forward(const AttentionConfig& c, const AttentionInputsD& in, const AttentionParametersD& p,
                        AttentionResultD* out) {
    reference::Forward(c, in, p, out);
    return Status::Ok();
  }
  static Status Backward(const AttentionConfig& c, const AttentionInputsD& in, const AttentionParametersD& p,
                         const AttentionResultD& fwd, const MatrixD& d_out, AttentionGradientsD* grads) {
    reference::Backward(c, in, p, fwd, d_out, grads);
    return Status::Ok();
  }
};

}  // namespace attn::train
