// Backward entry points: same checks as Forward, plus d_output and the forward result, then the
// backward pipeline on the reference loops (kReference) or on Eigen (every other kernel, the SIMD
// variants included).
#include "attn/grad.h"

#include <cfloat>
#include <new>
#include <string>

#include "attn/reference.h"
#include "attn/limits.h"
#include "attn/reference/ops.h"
#include "attn/validate.h"
#include "call_budget.h"
#include "kernels/eigen_ops.h"
#include "pipeline/backward.h"
#include "validate_attention.h"

namespace attn {

namespace {

// A float gradient this close to FLT_MAX (or past it) is checked in double: below it, the float
// kernels' rounding (relative n·2⁻²⁴ of the terms' magnitudes, far below the factor 4) cannot carry
// the exact gradient past FLT_MAX, so every kernel's answer is finite exactly when the exact one is.
constexpr float kNearFloatMax = FLT_MAX / 4;

// The first gradient with an entry past kNearFloatMax or not finite ("" when none).
std::string FirstGradientNearOverflow(const AttentionGradients& g) {
  std::string first;
  ForEachGradient(g, [&](const std::string& name, const Matrix& m) {
    if (first.empty() && m.size() && (!validate::NoInfOrNan(m) || m.cwiseAbs().maxCoeff() > kNearFloatMax)) first = name;
  });
  return first;
}

// The backward pass in double on the same arguments (the readable reference), rounded to float:
// what every kernel answers when its float gradients came near FLT_MAX, so the status is the same
// on every kernel. kNonFinite naming the first gradient whose exact value is past float32;
// kResourceExhausted when the double pass (twice the float call's bytes) would pass the limit.
Status BackwardInDouble(const AttentionConfig& config, const AttentionInputs& inputs, const AttentionParameters& complete,
                        const pipeline::AttentionDims& d, const Matrix& d_output, const std::string& near,
                        AttentionGradients* grad) {
  const int64_t bytes = budget::Mul(2, budget::EstimatedBytes(budget::CallKind::kForwardBackward, config, d));
  if (bytes > Limits::max_call_bytes)
    return Status(StatusCode::kResourceExhausted,
                  near + ": the gradients came within 4× of float32's limit, and checking them in float64 needs " +
                      budget::Bytes(bytes) + ", over the limit of " + budget::Bytes(Limits::max_call_bytes) +
                      " (scale the inputs or d_output down)");
  const AttentionInputsD in = reference::ToDouble(inputs);
  const AttentionParametersD p = reference::ToDouble(complete);
  AttentionResultD forward;
  reference::Forward(config, in, p, &forward);
  AttentionGradientsD exact;
  reference::Backward(config, in, p, forward, d_output.cast<double>(), &exact);
  forward = AttentionResultD();
  AttentionGradients rounded;
  Status finite = Status::Ok();
  ForEachGradientPair(exact, rounded, [&](const std::string& name, const MatrixD& x, Matrix& y) {
    y = x.cast<float>();
    if (finite.ok()) finite = validate::AllFinite(name + " (the gradients overflow float32; scale the inputs or d_output down)", y);
  });
  ATTN_RETURN_IF_ERROR(finite);
  *grad = std::move(rounded);
  return Status::Ok();
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
    pipeline::BackwardPipeline<float, eigen::EigenOps<float>>(config, inputs, complete, forward, d_output, &grad);
  }
  const std::string near = FirstGradientNearOverflow(grad);
  if (!near.empty()) ATTN_RETURN_IF_ERROR(BackwardInDouble(config, inputs, complete, d, d_output, near, &grad));
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
