// Why 1/√d_k: softmax of unscaled dot products of random unit-variance q, k saturates as d_k grows
// (rows turn one-hot, their entropy falls to 0) and its gradient vanishes. The sweep measures both
// with the engine's own forward and backward passes.
#pragma once

#include <cstdint>

#include "lessons/common.h"

namespace lessons {

// (rows, cols) of independent N(0, 1) entries: Box-Muller on mt19937's raw output seeded with
// seed_seq{seed, stream}, the same on every platform.
Matrix RandomNormalMatrix(int rows, int cols, uint32_t seed, uint32_t stream);

// (n, 1): −Σ_j w_ij ln w_ij of each row (0 ln 0 = 0), in nats.
Matrix RowEntropy(const Matrix& weights);

struct SaturationCurves {
  Matrix log2_dk;        // (1, P): 1, 2, ..., P, i.e. d_k = 2 ... 2^P
  Matrix entropy;        // (2, P): mean row entropy of the weights (nats); row 0 q·k, row 1 q·k/√d_k
  Matrix gradient_norm;  // (2, P): median over rows of ‖∂L/∂scores_i‖ for a random ∂L/∂weights
};

// For d_k = 2, 4, ..., 2^max_log2_dk: `tokens` random queries and keys of width d_k, softmax
// attention with kDot (row 0) and kScaledDot (row 1), one-wide random values and a random
// ∂L/∂output, so ∂L/∂weights has unit-variance entries at every d_k and only softmax changes.
// kOutOfRange unless 2 <= tokens <= 1024 and 1 <= max_log2_dk <= 12.
Status SaturationSweep(int tokens, int max_log2_dk, uint32_t seed, SaturationCurves* out);
// One column of the sweep: d_k = 2^log2_dk (1 ≤ log2_dk ≤ curves->log2_dk.cols(), the tables sized by
// SaturationSweep's rule), the same numbers SaturationSweep writes there. For a job that computes the
// sweep a column at a time (lessons/views/relevance.h's SaturationJob).
Status SaturationColumn(int tokens, int log2_dk, uint32_t seed, SaturationCurves* curves);
// The (1, P) and (2, P) tables of a sweep to d_k = 2^max_log2_dk, NaN until computed; the same checks.
Status StartSaturationCurves(int tokens, int max_log2_dk, SaturationCurves* out);

}  // namespace lessons
