// What the training models' gradient checks share (model_gradient_test.cpp, lm_gradient_test.cpp):
// central differences, parameters moved off their initial values, and the float backward pass
// against the double one.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "attn/seeded_random.h"
#include "attn/train/model.h"
#include "support/expect_close.h"

namespace attn::train::testing {

// ∂loss/∂θ by central differences, h = 1e-6: they err by O(h²·f''') + O(ε·|f|/h) ≈ 1e-10 here, so
// analytic gradients must match to 1e-5 relative and 1e-7 absolute; a real mistake is O(gradient).
inline MatrixD NumericGradient(MatrixD* theta, const std::function<double()>& loss) {
  const double h = 1e-6;
  MatrixD numeric(theta->rows(), theta->cols());
  for (Eigen::Index i = 0; i < theta->size(); ++i) {
    const double saved = theta->data()[i];
    theta->data()[i] = saved + h;
    const double up = loss();
    theta->data()[i] = saved - h;
    const double down = loss();
    theta->data()[i] = saved;
    numeric.data()[i] = (up - down) / (2 * h);
  }
  return numeric;
}

// Two sequences of seq_len random ids in [0, vocab) and targets in [0, classes) (SeededRandom(11)),
// row r weighted weight(r) (0: not scored).
inline Batch RandomBatch(int seq_len, int vocab, int classes, const std::function<float(int)>& weight) {
  Batch b;
  b.size = 2;
  b.seq_len = seq_len;
  SeededRandom rng(11);
  for (int r = 0; r < b.size * b.seq_len; ++r) {
    b.ids.push_back(static_cast<int>(rng.Below(static_cast<uint32_t>(vocab))));
    b.targets.push_back(static_cast<int>(rng.Below(static_cast<uint32_t>(classes))));
    b.weights.push_back(weight(r));
  }
  return b;
}

// `p` in double, every value moved by 0.3·N(0, 1) (LayerNorm gains not 1 and biases not 0), so no
// gradient is zero by symmetry.
inline ModelParametersD Perturbed(const ModelParameters& p) {
  ModelParametersD d = ToDouble(p);
  SeededRandom rng(12);
  ForEachParameter(d, [&](const std::string&, MatrixD& m) {
    for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] += 0.3 * rng.Normal();
  });
  return d;
}

// Float rounding through a handful of layers of width ≤ 32: relative 1e-4 of the largest gradient
// entry is ~1000 ulps, far below any real mistake.
inline void ExpectFloatGradientsMatch(const ModelParameters& got, const ModelParametersD& want, const std::string& what) {
  ForEachParameterPair(got, want, [&](const std::string& name, const Matrix& g, const MatrixD& expected) {
    const double scale = expected.cwiseAbs().maxCoeff();
    EXPECT_TRUE(attn::testing::AllClose(g, expected, 1e-4, 1e-4 * scale + 1e-7)) << what << ": " << name;
  });
}

}  // namespace attn::train::testing
