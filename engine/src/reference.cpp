// The double-precision reference of attn/reference.h: the shared pipeline instantiated once, here,
// with the scalar kernel, so callers (the tests) see what it computes and not how it is written.
#include "attn/reference.h"

#include "pipeline/backward.h"
#include "pipeline/cast.h"
#include "pipeline/forward.h"

namespace attn::reference {

void Forward(const AttentionConfig& config, const AttentionInputsD& inputs, const AttentionParametersD& params,
             AttentionResultD* out) {
  pipeline::ForwardPipeline<double, ReferenceOps<double>>(config, inputs, params, out);
  out->parameters = params;
}

void Backward(const AttentionConfig& config, const AttentionInputsD& inputs, const AttentionParametersD& params,
              const AttentionResultD& fwd, const MatrixD& d_output, AttentionGradientsD* out) {
  pipeline::BackwardPipeline<double, ReferenceOps<double>>(config, inputs, params, fwd, d_output, out);
}

AttentionInputsD ToDouble(const AttentionInputs& inputs) { return pipeline::CastInputs<double>(inputs); }

AttentionParametersD ToDouble(const AttentionParameters& params) { return pipeline::CastParameters<double>(params); }

}  // namespace attn::reference
