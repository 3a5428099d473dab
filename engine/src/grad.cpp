// Backward entry point: same checks as Forward, then the forward and backward pipelines on the
// reference loops (kReference) or on Eigen (every other kernel, the SIMD variants included).
#include "attn/grad.h"

#include "attn/reference/ops.h"
#include "attn/validate.h"
#include "kernels/eigen_ops.h"
#include "pipeline/backward.h"
#include "validate_attention.h"

namespace attn {
namespace {

template <typename Ops>
void RunForwardBackward(const AttentionConfig& config, const AttentionInputs& inputs, const AttentionParameters& params,
                        const Matrix& d_output, AttentionGradients* grad) {
  AttentionResult fwd;
  pipeline::ForwardPipeline<float, Ops>(config, inputs, params, &fwd);
  pipeline::BackwardPipeline<float, Ops>(config, inputs, params, fwd, d_output, grad);
}

}  // namespace

Status Backward(const AttentionConfig& config, const AttentionInputs& inputs, const AttentionParameters& params,
                const Matrix& d_output, AttentionGradients* out) {
  pipeline::AttentionDims d;
  AttentionParameters complete;
  ATTN_RETURN_IF_ERROR(validate::PrepareCall(config, inputs, params, &d, &complete));
  ATTN_RETURN_IF_ERROR(validate::HasShape("d_output", d_output.rows(), d_output.cols(), d.n, d.d_out, "(n, d_out)"));
  ATTN_RETURN_IF_ERROR(validate::AllFinite("d_output", d_output));

  AttentionGradients grad;
  if (config.kernel == KernelId::kReference) {
    RunForwardBackward<reference::ReferenceOps<float>>(config, inputs, complete, d_output, &grad);
  } else {
    RunForwardBackward<eigen::EigenOps<float>>(config, inputs, complete, d_output, &grad);
  }
  ATTN_RETURN_IF_ERROR(validate::AllFinite("d_query (gradients overflowed float32)", grad.d_query));
  *out = std::move(grad);
  return Status::Ok();
}

}  // namespace attn
