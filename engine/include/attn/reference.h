// The readable reference: the scalar loops of attn/reference/ops.h (ReferenceOps: MatMul,
// MatMulTransposedB, SoftmaxRows, …, never optimised: the documentation of the math) run through
// the one pipeline every kernel shares (engine/src/pipeline/). Every fast kernel is tested against
// it in double precision; these are the double-precision entry points.
#pragma once

#include "attn/attention.h"
#include "attn/grad.h"
#include "attn/reference/ops.h"

namespace attn::reference {

// The forward pass in double with the reference kernel, every intermediate. Nothing is checked:
// inputs must be valid and `params` complete (attn::Forward checks; InitializeParameters seeds).
void Forward(const AttentionConfig& config, const AttentionInputsD& inputs, const AttentionParametersD& params,
             AttentionResultD* out);

// The backward pass in double with the reference kernel; `fwd` from Forward on the same arguments.
void Backward(const AttentionConfig& config, const AttentionInputsD& inputs, const AttentionParametersD& params,
              const AttentionResultD& fwd, const MatrixD& d_output, AttentionGradientsD* out);

// Exact float -> double copies, to run the reference on what the float engine saw.
AttentionInputsD ToDouble(const AttentionInputs& inputs);
AttentionParametersD ToDouble(const AttentionParameters& params);

}  // namespace attn::reference
