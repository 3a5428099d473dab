// ForwardOutput: the output without the intermediates. On a SIMD kernel and a config the fused
// kernel covers, the fused pipeline (fused_forward.h: FlashAttention per head, memory O(n·d));
// otherwise it is Forward's output.
#include "attn/attention.h"

#include <new>
#include <utility>

#include "attn/validate.h"
#include "call_budget.h"
#include "fused_forward.h"
#include "kernels/simd/kernel_table.h"
#include "validate_attention.h"

namespace attn {

bool FusedKernelCovers(const AttentionConfig& config, const AttentionInputs& inputs) {
  const bool additive_or_rope = config.position == PositionEncoding::kNone ||
                                config.position == PositionEncoding::kSinusoidal ||
                                config.position == PositionEncoding::kLearned || config.position == PositionEncoding::kRope;
  return simd::FindKernelTable(config.kernel) != nullptr &&
         (config.score == ScoreFunction::kDot || config.score == ScoreFunction::kScaledDot) &&
         config.normalizer == Normalizer::kSoftmax && config.softcap == 0.0f && additive_or_rope &&
         inputs.float_mask.empty() && inputs.bool_mask.empty() && inputs.key_padding.size() == 0;
}

namespace {

// The fused pipeline (fused_forward.h) on a layer built for this call alone: the weights packed
// here, then the same Run a PreparedAttention runs, so the two agree to the bit.
Status FusedForwardOutput(const AttentionConfig& config, const AttentionInputs& inputs, const AttentionParameters& params,
                          Matrix* output) {
  pipeline::AttentionDims d;
  AttentionParameters complete;
  ATTN_RETURN_IF_ERROR(validate::PrepareCall(budget::CallKind::kFusedForward, config, inputs, params, &d, &complete));
  fused::Layer layer;
  fused::BuildLayer(config, std::move(complete), &layer);
  fused::Workspace workspace;
  return fused::Run(layer, fused::InputsOf(inputs), d, &workspace, output);
}

}  // namespace

Status ForwardOutput(const AttentionConfig& config, const AttentionInputs& inputs, const AttentionParameters& params,
                     Matrix* output) {
  if (!FusedKernelCovers(config, inputs)) {
    AttentionResult result;
    ATTN_RETURN_IF_ERROR(Forward(config, inputs, params, &result));  // has its own safety net
    *output = std::move(result.output);
    return Status::Ok();
  }
  try {
    return FusedForwardOutput(config, inputs, params, output);
  } catch (const std::bad_alloc&) {
    return budget::AllocationFailed("ForwardOutput");
  }
}

}  // namespace attn
