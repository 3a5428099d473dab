// Entry points: check the input, complete the parameters, then run the pipeline with the kernel
// variant the config names.
#include "attn/attention.h"

#include "attn/reference/ops.h"
#include "attn/validate.h"
#include "kernels/eigen_ops.h"
#include "kernels/simd_ops.h"
#include "pipeline/forward.h"
#include "validate_attention.h"

namespace attn {

float EffectiveScale(const AttentionConfig& config, int d_k) {
  return static_cast<float>(pipeline::ResolveScale(config, d_k));
}

namespace simd {

const KernelTable*& ActiveKernelTable() {
  static thread_local const KernelTable* table = nullptr;
  return table;
}

}  // namespace simd

Status Forward(const AttentionConfig& config, const AttentionInputs& inputs, const AttentionParameters& params,
               AttentionResult* out) {
  pipeline::AttentionDims d;
  AttentionParameters complete;
  ATTN_RETURN_IF_ERROR(validate::PrepareCall(config, inputs, params, &d, &complete));

  AttentionResult result;
  if (config.kernel == KernelId::kReference) {
    pipeline::ForwardPipeline<float, reference::ReferenceOps<float>>(config, inputs, complete, &result);
  } else if (config.kernel == KernelId::kEigen) {
    pipeline::ForwardPipeline<float, eigen::EigenOps<float>>(config, inputs, complete, &result);
  } else {
    const simd::ScopedKernelTable use(simd::FindKernelTable(config.kernel));  // available: PrepareCall checked
    pipeline::ForwardPipeline<float, simd::SimdOps>(config, inputs, complete, &result);
  }
  // Finite inputs can still overflow float32 (|x| ~ 1e19 gives x·xᵀ = inf); report it instead of drawing NaN.
  ATTN_RETURN_IF_ERROR(validate::AllFinite("output (scores overflowed float32; scale the inputs down)", result.output));
  *out = std::move(result);
  return Status::Ok();
}

Status Forward(const AttentionConfig& config, const AttentionInputs& inputs, AttentionResult* out) {
  return Forward(config, inputs, AttentionParameters(), out);
}

Status SelfAttention(const AttentionConfig& config, const Matrix& x, AttentionResult* out) {
  AttentionInputs inputs;
  inputs.query = x;
  const Status status = Forward(config, inputs, out);
  if (status.ok() || status.message().rfind("query", 0) != 0) return status;
  // The first slice called its input x; keep naming it so.
  return Status(status.code(), "x" + status.message().substr(5));
}

}  // namespace attn
