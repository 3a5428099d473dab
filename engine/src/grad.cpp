// Backward entry points: same checks as Forward, plus d_output and the forward result, then the
// backward pipeline on the reference loops (kReference) or on Eigen (every other kernel, the SIMD
// variants included).
#include "attn/grad.h"

#include <new>

#include "attn/reference/ops.h"
#include "attn/validate.h"
#include "call_budget.h"
#include "kernels/eigen_ops.h"
#include "pipeline/backward.h"
#include "validate_attention.h"

namespace attn {

namespace {

Status BackwardChecked(const AttentionConfig& config, const AttentionInputs& inputs, const AttentionParameters& params,
                       const AttentionResult& forward, const Matrix& d_output, AttentionGradients* out) {
  pipeline::AttentionDims d;
  AttentionParameters complete;  // forward.parameters when forward is Forward's: both seed the same way
  ATTN_RETURN_IF_ERROR(validate::PrepareCall(budget::CallKind::kBackward, config, inputs, params, &d, &complete));
  ATTN_RETURN_IF_ERROR(validate::HasShape("d_output", d_output.rows(), d_output.cols(), d.n, d.d_out, "(n, d_out)"));
  ATTN_RETURN_IF_ERROR(validate::AllFinite("d_output", d_output));
  ATTN_RETURN_IF_ERROR(validate::ForwardResultMatches(d, forward));

  AttentionGradients grad;
  if (config.kernel == KernelId::kReference) {
    pipeline::BackwardPipeline<float, reference::ReferenceOps<float>>(config, inputs, complete, forward, d_output, &grad);
  } else {
    pipeline::BackwardPipeline<float, eigen::EigenOps<float>>(config, inputs, complete, forward, d_output, &grad);
  }
  ATTN_RETURN_IF_ERROR(validate::AllFinite("d_query (gradients overflowed float32)", grad.d_query));
  *out = std::move(grad);
  return Status::Ok();
}

}  // namespace

Status Backward(const AttentionConfig& config, const AttentionInputs& inputs, const AttentionParameters& params,
                const AttentionResult& forward, const Matrix& d_output, AttentionGradients* out) {
  try {
    return BackwardChecked(config, inputs, params, forward, d_output, out);
  } catch (const std::bad_alloc&) {
    return budget::AllocationFailed("Backward");
  }
}

Status Backward(const AttentionConfig& config, const AttentionInputs& inputs, const AttentionParameters& params,
                const Matrix& d_output, AttentionGradients* out) {
  // Forward's result stays alive during the backward pass: both must fit at once.
  ATTN_RETURN_IF_ERROR(validate::CheckCallFits(budget::CallKind::kForwardBackward, config, inputs));
  AttentionResult forward;
  ATTN_RETURN_IF_ERROR(Forward(config, inputs, params, &forward));
  return Backward(config, inputs, forward.parameters, forward, d_output, out);
}

}  // namespace attn
