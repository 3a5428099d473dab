// The memory one call will need, estimated from its sizes before it allocates anything, against
// attn::Limits (attn/limits.h). Every product is saturating 64-bit arithmetic: sizes taken from
// the input can never overflow the estimate itself.
#pragma once

#include <cstdint>
#include <string>

#include "attn/attention.h"
#include "attn/status.h"
#include "pipeline/dims.h"

namespace attn::budget {

// a·b and a + b, saturated at INT64_MAX (both arguments >= 0).
int64_t Mul(int64_t a, int64_t b);
int64_t Add(int64_t a, int64_t b);

// What the call allocates, which decides the estimate.
enum class CallKind {
  kParameters,     // InitializeParameters: the seeded parameters alone
  kForward,        // Forward (and ForwardOutput off the fused path): every intermediate, h·5 (n, M) matrices
  kFusedForward,   // ForwardOutput on the fused kernel: O(n·d), never an (n, M) matrix
  kBackward,       // Backward given Forward's result: the gradients, 2 (n, M) matrices per head kept
  kForwardBackward,  // Backward without a forward result: Forward, then the above
};

// Ok, or kResourceExhausted naming the largest part, its sizes, the total, the limit it passes
// (attn::Limits::max_call_bytes or max_tensor_elements) and what to do instead. `d` must come from
// a validated call (every dimension at most Limits::max_dimension).
Status CallFits(CallKind kind, const AttentionConfig& config, const pipeline::AttentionDims& d);

// The bytes CallFits estimates for the call (saturated at INT64_MAX); for tests and fuzz targets.
int64_t EstimatedBytes(CallKind kind, const AttentionConfig& config, const pipeline::AttentionDims& d);

// Ok, or kResourceExhausted when a (rows, cols) result of `what` would pass the limits.
Status MatrixFits(const std::string& what, int64_t rows, int64_t cols);

// kResourceExhausted for a std::bad_alloc the estimate did not foresee (the safety net of every
// entry point): "Forward: out of memory although the call is within attn::Limits …".
Status AllocationFailed(const std::string& entry_point);

// "4.1 GB", "512 MiB"-style: a byte count for messages.
std::string Bytes(int64_t bytes);

}  // namespace attn::budget
