// How far a float32 computation may be from the exact answer: the C++ twin of
// tests/e2e/float_bounds.mjs, which derives every formula here (Higham, Accuracy and Stability of
// Numerical Algorithms, §2.2 and §3.1). In short, with u = 2⁻²⁴ and γ_k = k·u / (1 − k·u):
//   a sum of k products, in any order:  |fl(Σ a b) − Σ a b| ≤ Σ[(|a|+da)(|b|+db) − |a||b|] + γ_k Σ(|a|+da)(|b|+db)
//   a row softmax of scale·S/τ:         |w̃ − w| ≤ R·w + e⁻⁸⁰(1 + R),
//     R = e^{2δ}(1 + 4u)(1 + γ₂) / ((1 − 4u)(1 − γ_{M−1})) − 1,
//     δ = max_j (scale/τ)(E_j (1 + γ₆) + γ₆ (|S_j| + max_l |S_l|)).
// Each Bounded holds the float64 value and that bound per entry; tests compare with Within().
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "attn/matrix.h"

namespace attn::testing {

inline constexpr double kUnitRoundoff = 0x1p-24;
inline double Gamma(int k) { return k * kUnitRoundoff / (1 - k * kUnitRoundoff); }
inline double Gamma64(int k) { return k * 0x1p-53 / (1 - k * 0x1p-53); }

// A float64 answer and, per entry, how far a float32 computation of it may be.
struct Bounded {
  MatrixD value;
  MatrixD bound;
};

// Inputs held exactly (float32 data): bound 0.
inline Bounded Exact(const Matrix& m) { return {m.cast<double>(), MatrixD::Zero(m.rows(), m.cols())}; }

inline Bounded Columns(const Bounded& m, Eigen::Index first, Eigen::Index width) {
  return {m.value.middleCols(first, width), m.bound.middleCols(first, width)};
}

// a · b (b transposed if asked) + bias (1 × cols, when given), computed in float32.
inline Bounded Product(const Bounded& a, const Bounded& b, bool transpose_b = false, const Bounded* bias = nullptr) {
  const MatrixD bv = transpose_b ? MatrixD(b.value.transpose()) : b.value;
  const MatrixD bb = transpose_b ? MatrixD(b.bound.transpose()) : b.bound;
  const int terms = static_cast<int>(a.value.cols()) + (bias ? 1 : 0);
  Bounded out;
  out.value = a.value * bv;
  MatrixD absolute = a.value.cwiseAbs() * bv.cwiseAbs();
  MatrixD widened = (a.value.cwiseAbs() + a.bound) * (bv.cwiseAbs() + bb);
  if (bias) {
    out.value.rowwise() += bias->value.row(0);
    absolute.rowwise() += bias->value.row(0).cwiseAbs();
    widened.rowwise() += bias->value.row(0).cwiseAbs() + bias->bound.row(0);
  }
  out.bound = (widened - absolute) + Gamma(terms) * widened + Gamma64(terms) * absolute;
  return out;
}

// Row softmax of scale · S / τ over every key (S: the bounded raw dot products).
inline Bounded SoftmaxRows(const Bounded& s, double scale, double temperature) {
  const double factor = scale / temperature;
  const Eigen::Index keys = s.value.cols();
  Bounded out{MatrixD(s.value.rows(), keys), MatrixD(s.value.rows(), keys)};
  for (Eigen::Index i = 0; i < s.value.rows(); ++i) {
    const double largest = s.value.row(i).cwiseAbs().maxCoeff();
    double delta = 0;
    for (Eigen::Index j = 0; j < keys; ++j)
      delta = std::max(delta, factor * (s.bound(i, j) * (1 + Gamma(6)) + Gamma(6) * (std::abs(s.value(i, j)) + largest)));
    const Eigen::RowVectorXd scaled = factor * s.value.row(i);
    const Eigen::RowVectorXd e = (scaled.array() - scaled.maxCoeff()).exp();
    const double exp_relative = 4 * kUnitRoundoff;
    const double r = std::exp(2 * delta) * (1 + exp_relative) * (1 + Gamma(2)) /
                         ((1 - exp_relative) * (1 - Gamma(static_cast<int>(keys) - 1))) - 1;
    out.value.row(i) = e / e.sum();
    out.bound.row(i) = (r + Gamma64(static_cast<int>(keys) + 2)) * out.value.row(i).array() + std::exp(-80.0) * (1 + r);
  }
  return out;
}

// Every entry of `actual` within ref's bound; otherwise the count and the first few.
inline ::testing::AssertionResult Within(const Matrix& actual, const Bounded& ref) {
  if (actual.rows() != ref.value.rows() || actual.cols() != ref.value.cols())
    return ::testing::AssertionFailure() << "shape (" << actual.rows() << ", " << actual.cols() << ") != ("
                                         << ref.value.rows() << ", " << ref.value.cols() << ")";
  std::ostringstream first;
  int bad = 0;
  for (Eigen::Index i = 0; i < actual.rows(); ++i)
    for (Eigen::Index j = 0; j < actual.cols(); ++j) {
      const double err = std::abs(actual(i, j) - ref.value(i, j));
      if (err <= ref.bound(i, j)) continue;
      if (bad++ < 3) first << "\n  (" << i << ", " << j << "): " << actual(i, j) << " vs " << ref.value(i, j) << " ± " << ref.bound(i, j);
    }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << actual.size() << " entries outside the float32 error bound" << first.str();
}

}  // namespace attn::testing
