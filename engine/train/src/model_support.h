// What the training models (model.cpp, lm_model.cpp) share, private to attn::train: the engine's
// attention layer in each precision and the statuses they return.
#pragma once

#include <string>
#include <vector>

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
// One vectorised sum (AllFiniteEntries): Eigen's allFinite() was 4% of GPT-2-small's prefill, on its
// 128 × 50257 logits.
template <typename T>
Status CheckFinite(const char* where, const Mat<T>& m) {
  if (AllFiniteEntries(m)) return Status::Ok();
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

// The attention sublayer over a batch, one engine call per sequence (each attends only within
// itself): x.middleRows(b·T, T) += Attention(ln.middleRows(b·T, T)).
// ln, x: (R, d); results: B entries kept for the backward pass
template <typename T>
Status AttentionSublayerForward(const AttentionConfig& config, const AttentionParametersT<T>& params, const Mat<T>& ln,
                                int batch_size, int seq_len, std::vector<AttentionResultT<T>>* results, Mat<T>* x) {
  results->resize(static_cast<size_t>(batch_size));
  for (int b = 0; b < batch_size; ++b) {
    AttentionInputsT<T> in;
    in.query = ln.middleRows(b * seq_len, seq_len);
    ATTN_RETURN_IF_ERROR(EngineAttention<T>::Forward(config, in, params, &(*results)[static_cast<size_t>(b)]));
    x->middleRows(b * seq_len, seq_len) += (*results)[static_cast<size_t>(b)].output;
  }
  return Status::Ok();
}
// d: (R, d) the gradient of the sublayer's output -> d_ln: (R, d); the parameters' gradients added to
template <typename T>
Status AttentionSublayerBackward(const AttentionConfig& config, const AttentionParametersT<T>& params, const Mat<T>& ln,
                                 int batch_size, int seq_len, const std::vector<AttentionResultT<T>>& results,
                                 const Mat<T>& d, Mat<T>* d_ln, AttentionParametersT<T>* grads) {
  d_ln->resize(d.rows(), d.cols());
  for (int b = 0; b < batch_size; ++b) {
    AttentionInputsT<T> in;
    in.query = ln.middleRows(b * seq_len, seq_len);
    AttentionGradientsT<T> ag;
    ATTN_RETURN_IF_ERROR(EngineAttention<T>::Backward(config, in, params, results[static_cast<size_t>(b)],
                                                      Mat<T>(d.middleRows(b * seq_len, seq_len)), &ag));
    d_ln->middleRows(b * seq_len, seq_len) = ag.d_query;
    grads->wq += ag.d_wq, grads->wk += ag.d_wk, grads->wv += ag.d_wv, grads->wo += ag.d_wo;
    grads->bq += ag.d_bq, grads->bk += ag.d_bk, grads->bv += ag.d_bv, grads->bo += ag.d_bo;
  }
  return Status::Ok();
}

}  // namespace attn::train
