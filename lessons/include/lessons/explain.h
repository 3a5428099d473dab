// Small computations the explorer shows beside the attention layer, kept in the engine so that the
// page computes no math of its own.
#pragma once

#include <string>
#include <vector>

#include "lessons/common.h"

namespace lessons {

// The terms of one output row: row j = w[query, j] · v_j, so their column sums are output[query].
// weights: (n, M), v: (M, d_v) -> (M, d_v)
Status WeightedTerms(const Matrix& weights, const Matrix& v, int query, Matrix* terms);

// out.row(i) = m.row(order[i]); `order` must be a permutation of 0..rows-1.
Status PermuteRows(const Matrix& m, const std::vector<int>& order, Matrix* out);

// A seeded shuffle of 0..n-1 (Fisher-Yates on mt19937's raw output: the same everywhere).
// seed 0 gives the identity.
std::vector<int> SeededPermutation(int n, unsigned seed);

// max |a − b| over all entries; kShapeMismatch if the shapes differ.
Status MaxAbsDifference(const Matrix& a, const Matrix& b, float* out);

// One row of weights in words, for a screen reader: "weights of 'it' (9): animal 0.31, street 0.12,
// it 0.1". The `top` largest entries, largest first (ties: the earlier word); `labels` names rows and
// columns (a missing label reads as the 1-based index). Empty when `row` is outside the matrix.
// weights: (n, m), labels: n or m names
std::string DescribeWeightsRow(const Matrix& weights, int row, const std::vector<std::string>& labels, int top);

}  // namespace lessons
