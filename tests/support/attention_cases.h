// Helpers for attention tests: run the float64 reference on exactly what the float engine saw,
// and compare every intermediate with a tolerance that scales with the values.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "attn/attention.h"
#include "attn/reference.h"
#include "support/expect_close.h"

namespace attn::testing {

// Parameters the engine would seed for this call, so the double reference can use the same ones.
inline AttentionParameters CompletedParameters(const AttentionConfig& config, const AttentionInputs& in,
                                               AttentionParameters params = {}) {
  // Self-attention takes the key from the query, and the value from the key.
  const int d_model = static_cast<int>(in.query.cols());
  const int d_kv_model = in.key.size() ? static_cast<int>(in.key.cols()) : d_model;
  const int d_value_model = in.value.size() ? static_cast<int>(in.value.cols()) : d_kv_model;
  EXPECT_TRUE(InitializeParameters(config, d_model, d_kv_model, d_value_model, &params).ok());
  return params;
}

// reference::Forward in double precision on the float inputs and parameters.
inline AttentionResultD RunReferenceDouble(const AttentionConfig& config, const AttentionInputs& in,
                                           const AttentionParameters& params = {}) {
  AttentionResultD out;
  reference::Forward(config, reference::ToDouble(in), reference::ToDouble(CompletedParameters(config, in, params)),
                     &out);
  return out;
}

// Largest |value| of a matrix, ignoring ±inf (masked scores); at least 1.
template <typename M>
double Magnitude(const M& m) {
  double most = 1;
  for (Eigen::Index i = 0; i < m.size(); ++i) {
    const double v = std::fabs(static_cast<double>(m.data()[i]));
    if (std::isfinite(v)) most = std::max(most, v);
  }
  return most;
}

// Float32 against float64: relative 1e-4, absolute `slack`·1e-6 times the matrix's magnitude
// (sums of many products lose digits in proportion to the largest terms).
template <typename A, typename B>
::testing::AssertionResult CloseToReference(const A& got, const B& want, double slack = 10) {
  return AllClose(got, want, 1e-4, slack * 1e-6 * Magnitude(want));
}

// Largest |got − want| over finite entries, for reporting.
template <typename A, typename B>
double MaxAbsError(const A& got, const B& want) {
  double worst = 0;
  for (Eigen::Index i = 0; i < want.size(); ++i) {
    const double e = static_cast<double>(want.data()[i]), g = static_cast<double>(got.data()[i]);
    if (std::isfinite(e)) worst = std::max(worst, std::fabs(g - e));
  }
  return worst;
}

}  // namespace attn::testing
