// Backward entry points: same checks as Forward, plus d_output and the forward result, then the
// backward pipeline on the reference loops (kReference) or on Eigen (every other kernel, the SIMD
// variants included).
#include "attn/grad.h"

#include <cfloat>
#include <new>
#include <string>

#include "attn/attention.h"
#include "attn/limits.h"
#include "attn/reference/ops.h"
#include "attn/validate.h"
#include "call_budget.h"
#include "kernels/eigen_ops.h"
#include "pipeline/backward.h"
#include "pipeline/backward_bound.h"
#include "validate_attention.h"

namespace attn {

namespace {

// Where the backward pass's bound (pipeline/backward_bound.h) passes this, the reference kernel
// decides. The bound comes out alike on every kernel and holds for each one's rounding, so below it
// no kernel's gradient can reach FLT_MAX; the factor 4 is left for the forward values it reads where
// nothing bounds them from above (kSparsemax's weights, kReluNormalized's sums, kCosine's row
// norms), which differ between kernels by their rounding.
constexpr double kNearFloatMax = FLT_MAX / 4.0;

// One pass over every gradient: kNonFinite naming the first that is not finite.
Status CheckGradients(const AttentionGradients& g) {
  Status finite = Status::Ok();
  ForEachGradient(g, [&](const std::string& name, const Matrix& m) {
    if (m.size() == 0 || !finite.ok() || validate::NoInfOrNan(m)) return;
    finite = validate::AllFinite(name + " (the gradients overflow float32; scale the inputs or d_output down)", m);
  });
  return finite;
}

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
    // Near float32's limit the reference kernel decides, forward and backward, so every kernel gives
    // its status and answer. Decided from a bound, not from Eigen's gradients: where large terms
    // cancel, each order of summation leaves its own rounding error, which later products can carry
    // past FLT_MAX on one kernel and not on another (issue 26: dWq overflowed on eigen and not on
    // reference; the backward fuzz target: on reference and eigen and not on avx2). Its forward pass
    // is held beside the call's: both must fit.
    const pipeline::BackwardBound bound = pipeline::BoundBackward(config, inputs, complete, forward, d_output);
    if (!(bound.largest <= kNearFloatMax)) {
      const int64_t bytes = budget::Add(budget::EstimatedBytes(budget::CallKind::kForwardBackward, config, d),
                                        budget::EstimatedBytes(budget::CallKind::kForward, config, d));
      if (bytes > Limits::max_call_bytes)
        return Status(StatusCode::kResourceExhausted,
                      bound.stage + ": the backward pass may come within 4× of float32's limit (bounded by " +
                          validate::Number(bound.largest) + " from the magnitudes of the inputs, d_output and the "
                          "parameters; expected at most " + validate::Number(kNearFloatMax) +
                          "), and the reference kernel's check needs " + budget::Bytes(bytes) + ", over the limit of " +
                          budget::Bytes(Limits::max_call_bytes) + " (scale the inputs or d_output down)");
      AttentionConfig on_reference_kernel = config;
      on_reference_kernel.kernel = KernelId::kReference;
      AttentionResult reference_forward;
      ATTN_RETURN_IF_ERROR(Forward(on_reference_kernel, inputs, complete, &reference_forward));
      pipeline::BackwardPipeline<float, reference::ReferenceOps<float>>(config, inputs, complete, reference_forward,
                                                                        d_output, &grad);
    } else {
      pipeline::BackwardPipeline<float, eigen::EigenOps<float>>(config, inputs, complete, forward, d_output, &grad);
    }
  }
  ATTN_RETURN_IF_ERROR(CheckGradients(grad));  // every gradient, not d_query alone
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
  // d_output before the forward pass, which a wrong shape would waste (≈ 200 ms at n = 1024).
  const pipeline::AttentionDims d = pipeline::ResolveDims(config, inputs);
  ATTN_RETURN_IF_ERROR(validate::HasShape("d_output", d_output.rows(), d_output.cols(), d.n, d.d_out, "(n, d_out)"));
  ATTN_RETURN_IF_ERROR(validate::AllFinite("d_output", d_output));
  AttentionResult forward;
  ATTN_RETURN_IF_ERROR(Forward(config, inputs, params, &forward));
  return Backward(config, inputs, forward.parameters, forward, d_output, out);
}

}  // namespace attn
