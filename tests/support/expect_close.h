// Matrix comparison with a tolerance that scales with the values: |a - b| <= atol + rtol·|b|.
// Reports the shape, the number of mismatches and the first few with their indices. BitsEqual:
// the same to the bit, for pinned seeded values.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <sstream>

#include "attn/matrix.h"

namespace attn::testing {

template <typename A, typename B>
::testing::AssertionResult AllClose(const A& actual, const B& expected, double rtol, double atol) {
  if (actual.rows() != expected.rows() || actual.cols() != expected.cols()) {
    return ::testing::AssertionFailure() << "shape (" << actual.rows() << ", " << actual.cols()
                                         << ") != expected (" << expected.rows() << ", "
                                         << expected.cols() << ")";
  }
  std::ostringstream first;
  int bad = 0;
  double worst = 0;
  for (Eigen::Index i = 0; i < actual.rows(); ++i) {
    for (Eigen::Index j = 0; j < actual.cols(); ++j) {
      const double a = static_cast<double>(actual(i, j)), e = static_cast<double>(expected(i, j));
      const bool same_inf = std::isinf(a) && std::isinf(e) && (a > 0) == (e > 0);
      const double err = std::fabs(a - e);
      if (same_inf || err <= atol + rtol * std::fabs(e)) continue;
      worst = std::isnan(err) ? err : std::max(worst, err);
      if (bad++ < 5) first << "\n  (" << i << ", " << j << "): " << a << " vs expected " << e;
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << actual.size() << " elements differ (max abs "
                                       << worst << ", rtol " << rtol << ", atol " << atol << ")"
                                       << first.str();
}

// Every entry of `got` (row-major) equal to `want`'s, written as hex floats in the tests.
inline ::testing::AssertionResult BitsEqual(const Matrix& got, std::initializer_list<float> want) {
  if (got.size() != static_cast<Eigen::Index>(want.size()))
    return ::testing::AssertionFailure() << got.size() << " entries, expected " << want.size();
  Eigen::Index i = 0;
  for (float w : want) {
    if (!(got.data()[i] == w)) {
      return ::testing::AssertionFailure() << std::hexfloat << "entry " << i << ": " << got.data()[i] << ", pinned "
                                           << w;
    }
    ++i;
  }
  return ::testing::AssertionSuccess();
}

}  // namespace attn::testing
