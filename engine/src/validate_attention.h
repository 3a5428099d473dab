// Checks of one attention call: config, inputs, then the (completed) parameters. Every failure
// names the argument, the expected and the given value or shape.
#pragma once

#include <string>

#include "attn/attention.h"
#include "call_budget.h"
#include "pipeline/dims.h"

namespace attn::validate {

// Every int of the config within its domain and at most Limits::max_dimension (so no product or
// sum of them overflows the engine's int arithmetic).
Status ConfigIntegersValid(const AttentionConfig& config);
// The widths `d` derives (h·d_k, h_kv·d_v, d_out, M) at most Limits::max_dimension.
Status WidthsValid(const pipeline::AttentionDims& d);

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

// Config and inputs valid, and a call of `kind` on them within attn::Limits: nothing allocated yet.
Status CheckCallFits(budget::CallKind kind, const AttentionConfig& config, const AttentionInputs& inputs,
                     const std::string& query_name = "query");

// kNonFinite when a value row (after projection) overflowed float32: a masked key's value would
// still turn its zero weight into NaN on the materialised path and not on the fused one.
Status ValuesFinite(const std::vector<Matrix>& present_value);
// kNonFinite "scores (head h) overflowed float32…" when a pair no mask blocks has a non-finite
// score at some stage (pipeline::AllowedScoresFinite); the fused kernel reports the same.
Status HeadScoresFinite(const AttentionConfig& config, const AttentionInputs& inputs,
                        const pipeline::AttentionDims& d, const AttentionResult& result);
Status ScoresOverflowed(int head);

// What Forward and Backward both do first: check config and inputs, check that a call of `kind`
// fits attn::Limits (before anything is allocated), seed the parameters `params` leaves empty, check
// the completed set. Fills *dims and *complete only on success.
Status PrepareCall(budget::CallKind kind, const AttentionConfig& config, const AttentionInputs& inputs,
                   const AttentionParameters& params, pipeline::AttentionDims* dims, AttentionParameters* complete,
                   const std::string& query_name = "query");

}  // namespace attn::validate
