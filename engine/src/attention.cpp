// Entry points: check the input, complete the parameters, then run the pipeline with the kernel
// variant the config names.
#include "attn/attention.h"

#include <new>
#include <string>

#include "attn/reference/ops.h"
#include "attn/validate.h"
#include "call_budget.h"
#include "kernels/eigen_ops.h"
#include "kernels/simd_ops.h"
#include "pipeline/forward.h"
#include "validate_attention.h"

namespace attn {

float EffectiveScale(const AttentionConfig& config, int d_k) {
  return static_cast<float>(pipeline::ResolveScale(config, d_k));
}

namespace {

// Forward, with messages that call inputs.query `query_name`.
Status ForwardNamed(const AttentionConfig& config, const AttentionInputs& inputs, const AttentionParameters& params,
                    const std::string& query_name, AttentionResult* out) {
  try {
    pipeline::AttentionDims d;
    AttentionParameters complete;
    ATTN_RETURN_IF_ERROR(
        validate::PrepareCall(budget::CallKind::kForward, config, inputs, params, &d, &complete, query_name));

    AttentionResult result;
    if (config.kernel == KernelId::kReference) {
      pipeline::ForwardPipeline<float, reference::ReferenceOps<float>>(config, inputs, complete, &result);
    } else if (config.kernel == KernelId::kEigen) {
      pipeline::ForwardPipeline<float, eigen::EigenOps<float>>(config, inputs, complete, &result);
    } else {
      const simd::ScopedKernelTable use(simd::FindKernelTable(config.kernel));  // available: PrepareCall checked
      pipeline::ForwardPipeline<float, simd::SimdOps>(config, inputs, complete, &result);
    }
    result.parameters = std::move(complete);  // the parameters used: PrepareCall's checked (and seeded) copy
    // Finite inputs can still overflow float32 (|x| ~ 1e20 gives x·xᵀ = inf): the same checks as
    // ForwardOutput's fused kernel, so both paths give the same status (policy: attn/attention.h).
    ATTN_RETURN_IF_ERROR(validate::ValuesFinite(result.present_value));
    ATTN_RETURN_IF_ERROR(validate::HeadScoresFinite(config, inputs, d, result));
    ATTN_RETURN_IF_ERROR(
        validate::AllFinite("output (scores overflowed float32; scale the inputs down)", result.output));
    *out = std::move(result);
    return Status::Ok();
  } catch (const std::bad_alloc&) {
    return budget::AllocationFailed("Forward");
  }
}

}  // namespace

Status Forward(const AttentionConfig& config, const AttentionInputs& inputs, const AttentionParameters& params,
               AttentionResult* out) {
  return ForwardNamed(config, inputs, params, "query", out);
}

Status Forward(const AttentionConfig& config, const AttentionInputs& inputs, AttentionResult* out) {
  return Forward(config, inputs, AttentionParameters(), out);
}

Status SelfAttention(const AttentionConfig& config, const Matrix& x, AttentionResult* out) {
  AttentionInputs inputs;
  inputs.query = x;
  return ForwardNamed(config, inputs, AttentionParameters(), "x", out);  // the first slice calls its input x
}

}  // namespace attn
