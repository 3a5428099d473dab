// Checks of one attention call: config, inputs, then the (completed) parameters. Every failure
// names the argument, the expected and the given value or shape.
#pragma once

#include <string>

#include "attn/attention.h"
#include "pipeline/dims.h"

namespace attn::validate {

Status AttentionConfigValid(const AttentionConfig& config);
// Assumes AttentionConfigValid. Messages call inputs.query `query_name` (SelfAttention's is "x").
Status AttentionInputsValid(const AttentionConfig& config, const AttentionInputs& in,
                            const std::string& query_name = "query");
// Assumes both of the above; `d` from pipeline::ResolveDims(config, in).
Status AttentionParametersValid(const AttentionConfig& config, const pipeline::AttentionDims& d,
                                const AttentionParameters& params);

// Assumes the three above; `d` from pipeline::ResolveDims(config, in). Checks that `forward` has the
// heads and shapes Forward gives on these arguments, at least for what the backward pass reads.
// Messages call it `name`.
Status ForwardResultMatches(const pipeline::AttentionDims& d, const AttentionResult& forward,
                            const std::string& name = "forward");

// What Forward and Backward both do first: check config and inputs, seed the parameters `params`
// leaves empty, check the completed set. Fills *dims and *complete only on success.
Status PrepareCall(const AttentionConfig& config, const AttentionInputs& inputs, const AttentionParameters& params,
                   pipeline::AttentionDims* dims, AttentionParameters* complete,
                   const std::string& query_name = "query");

}  // namespace attn::validate
