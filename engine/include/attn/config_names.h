// Stable lower-case names of the configuration's enums, for the CLI, JavaScript and state strings.
// Kernel names: KernelName in attn/kernels.h.
#pragma once

#include <string>

#include "attn/config.h"
#include "attn/status.h"

namespace attn {

// "dot", "scaled_dot", "bilinear", "additive", "additive_concat", "cosine"
const char* ScoreFunctionName(ScoreFunction f);
// "softmax", "sparsemax", "relu", "sigmoid", "none"
const char* NormalizerName(Normalizer n);
// "none", "sinusoidal", "learned", "alibi", "rope", "quadratic_relative"
const char* PositionEncodingName(PositionEncoding p);

// kUnknownOption listing the valid names when `name` is not one of them.
Status ParseScoreFunction(const std::string& name, ScoreFunction* out);
Status ParseNormalizer(const std::string& name, Normalizer* out);
Status ParsePositionEncoding(const std::string& name, PositionEncoding* out);
// A KernelName() of a kernel available in this build on this CPU; otherwise kUnknownOption naming the
// available ones ("kernel: expected one of reference, eigen, avx2, got 'avx9000'", or "kernel: avx512
// is not available in this build on this CPU (available: reference, eigen, avx2)").
Status ParseKernel(const std::string& name, KernelId* out);

}  // namespace attn
