// Entry point: checks the input, then dispatches to the kernel variant the config names.
#include "attn/attention.h"

#include <cmath>

#include "attn/reference.h"
#include "kernels/softmax_eigen.h"
#include "validate.h"

namespace attn {
namespace {

void SelfAttentionEigen(const Matrix& x, float scale, float temperature, HeadIntermediates* h) {
  h->raw_scores.noalias() = x * x.transpose();  // (n, n)
  h->scores = h->raw_scores * scale;
  eigen::SoftmaxRows(h->scores, temperature, &h->weights);
  h->output.noalias() = h->weights * x;  // (n, d)
}

}  // namespace

float EffectiveScale(const AttentionConfig& config, int d_k) {
  return config.scale != 0.0f ? config.scale : 1.0f / std::sqrt(static_cast<float>(d_k));
}

Status SelfAttention(const AttentionConfig& config, const Matrix& x, AttentionResult* out) {
  ATTN_RETURN_IF_ERROR(validate::NonEmpty("x", x));
  ATTN_RETURN_IF_ERROR(validate::AllFinite("x", x));
  if (config.scale != 0.0f) ATTN_RETURN_IF_ERROR(validate::Positive("scale", config.scale));
  ATTN_RETURN_IF_ERROR(validate::Positive("temperature", config.temperature));

  const float scale = EffectiveScale(config, static_cast<int>(x.cols()));
  HeadIntermediates h;
  h.q = x;
  h.k = x;
  h.v = x;
  switch (config.kernel) {
    case KernelId::kReference:
      reference::SelfAttention<float>(x, scale, config.temperature, &h.raw_scores, &h.scores,
                                      &h.weights, &h.output);
      break;
    case KernelId::kEigen:
      SelfAttentionEigen(x, scale, config.temperature, &h);
      break;
    default:
      return Status(StatusCode::kUnknownOption,
                    "kernel: expected one of AvailableKernels(), got " +
                        std::to_string(static_cast<int>(config.kernel)));
  }
  // Finite inputs can still overflow float32 in x·xᵀ (|x| ~ 1e19); report it instead of drawing NaN.
  ATTN_RETURN_IF_ERROR(validate::AllFinite("scores (x·xᵀ overflowed float32; scale x down)", h.scores));
  out->output = h.output;
  out->heads.assign(1, std::move(h));
  return Status::Ok();
}

Status Forward(const AttentionConfig&, const AttentionInputs&, const AttentionParameters&,
               AttentionResult*) {
  return Status(StatusCode::kUnknownOption, "Forward: not implemented yet");
}

Status Forward(const AttentionConfig& config, const AttentionInputs& inputs, AttentionResult* out) {
  return Forward(config, inputs, AttentionParameters(), out);
}

Status InitializeParameters(const AttentionConfig&, int, int, int, AttentionParameters*) {
  return Status(StatusCode::kUnknownOption, "InitializeParameters: not implemented yet");
}

}  // namespace attn
