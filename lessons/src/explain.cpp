#include "lessons/explain.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "attn/seeded_random.h"
#include "attn/validate.h"

namespace lessons {

Status WeightedTerms(const Matrix& weights, const Matrix& v, int query, Matrix* terms) {
  if (weights.cols() != v.rows())
    return Status(StatusCode::kShapeMismatch, "v: expected " + std::to_string(weights.cols()) + " rows (one per key), got " +
                                                  std::to_string(v.rows()));
  if (query < 0 || query >= weights.rows())
    return Status(StatusCode::kOutOfRange,
                  "query: expected 0.." + std::to_string(weights.rows() - 1) + ", got " + std::to_string(query));
  *terms = weights.row(query).transpose().asDiagonal() * v;  // (M, d_v): w_qj v_j
  return Status::Ok();
}

Status PermuteRows(const Matrix& m, const std::vector<int>& order, Matrix* out) {
  if (static_cast<Eigen::Index>(order.size()) != m.rows())
    return Status(StatusCode::kShapeMismatch, "order: expected " + std::to_string(m.rows()) + " entries, got " +
                                                  std::to_string(order.size()));
  std::vector<bool> seen(order.size(), false);
  for (int r : order) {
    if (r < 0 || r >= m.rows() || seen[r])
      return Status(StatusCode::kOutOfRange, "order: not a permutation of 0.." + std::to_string(m.rows() - 1));
    seen[r] = true;
  }
  Matrix result(m.rows(), m.cols());
  for (size_t i = 0; i < order.size(); ++i) result.row(static_cast<Eigen::Index>(i)) = m.row(order[i]);
  *out = std::move(result);
  return Status::Ok();
}

std::vector<int> SeededPermutation(int n, unsigned seed) {
  std::vector<int> order(static_cast<size_t>(std::max(n, 0)));
  for (int i = 0; i < n; ++i) order[i] = i;
  if (seed == 0) return order;
  attn::SeededRandom random(seed);
  for (int i = n - 1; i > 0; --i) std::swap(order[i], order[random.Below(static_cast<uint32_t>(i + 1))]);
  return order;
}

Status MaxAbsDifference(const Matrix& a, const Matrix& b, float* out) {
  if (a.rows() != b.rows() || a.cols() != b.cols())
    return Status(StatusCode::kShapeMismatch, "b: expected " + attn::validate::Shape(a.rows(), a.cols()) + ", got " +
                                                  attn::validate::Shape(b.rows(), b.cols()));
  *out = a.size() ? (a - b).cwiseAbs().maxCoeff() : 0.0f;
  return Status::Ok();
}

std::string DescribeWeightsRow(const Matrix& weights, int row, const std::vector<std::string>& labels, int top) {
  if (row < 0 || row >= weights.rows() || weights.cols() == 0) return "";
  const auto name = [&](int k) {
    return k < static_cast<int>(labels.size()) ? "'" + labels[k] + "'" : std::to_string(k + 1);
  };
  std::string out = "weights of " + name(row) + " (" + std::to_string(row + 1) + "):";
  const int cols = static_cast<int>(weights.cols());
  const int shown = std::min(std::max(top, 1), cols);
  // The `shown` largest, ties in column order (a stable sort's order), picked one by one: a row is
  // at most a sentence long, and the page's module carries no sort for it.
  std::vector<char> taken(static_cast<size_t>(cols), 0);
  for (int k = 0; k < shown; ++k) {
    int best = -1;
    for (int j = 0; j < cols; ++j)
      if (!taken[j] && (best < 0 || weights(row, j) > weights(row, best))) best = j;
    taken[best] = 1;
    char value[32];
    std::snprintf(value, sizeof(value), "%.2g", static_cast<double>(weights(row, best)));
    out += std::string(k ? ", " : " ") + name(best) + " " + value;
  }
  return out;
}

}  // namespace lessons
