#include "lessons/saturation.h"

#include <gtest/gtest.h>

#include "lessons/views/relevance.h"

#include <cmath>

namespace attn {
using namespace ::lessons;  // what these tests check lives in the lessons layer
namespace {

TEST(RandomNormalMatrix, UnitVarianceAndDeterministic) {
  const Matrix m = RandomNormalMatrix(200, 100, 3, 1);
  const double mean = m.mean();
  const double var = (m.array() - mean).square().mean();
  EXPECT_NEAR(mean, 0.0, 0.02);
  EXPECT_NEAR(var, 1.0, 0.03);
  EXPECT_EQ(m, RandomNormalMatrix(200, 100, 3, 1));
  EXPECT_NE(m, RandomNormalMatrix(200, 100, 3, 2));
}

TEST(RowEntropy, UniformIsLogNOneHotIsZero) {
  Matrix w(2, 4);
  w << 0.25f, 0.25f, 0.25f, 0.25f, 0, 1, 0, 0;
  const Matrix h = RowEntropy(w);
  EXPECT_NEAR(h(0, 0), std::log(4.0), 1e-6);
  EXPECT_EQ(h(1, 0), 0.0f);
}

TEST(SaturationSweep, UnscaledSaturatesScaledDoesNot) {
  SaturationCurves c;
  ASSERT_TRUE(SaturationSweep(64, 10, 1, &c).ok());
  ASSERT_EQ(c.entropy.cols(), 10);
  EXPECT_EQ(c.log2_dk(0, 9), 10.0f);
  // d_k = 1024: unscaled scores have standard deviation 32, so rows are nearly one-hot.
  EXPECT_LT(c.entropy(0, 9), 0.3f);
  EXPECT_LT(c.gradient_norm(0, 9), 0.1f * c.gradient_norm(1, 9));
  // Scaled: the score variance stays 1 and so does the entropy, whatever d_k.
  for (int p = 0; p < 10; ++p) EXPECT_GT(c.entropy(1, p), 3.0f) << "d_k = 2^" << p + 1;
  EXPECT_NEAR(c.entropy(1, 9), c.entropy(1, 2), 0.15f);
  // Unscaled entropy falls as d_k grows.
  EXPECT_GT(c.entropy(0, 1), c.entropy(0, 9) + 2.0f);
  SaturationCurves again;
  ASSERT_TRUE(SaturationSweep(64, 10, 1, &again).ok());
  EXPECT_EQ(again.entropy, c.entropy);
  EXPECT_EQ(SaturationSweep(1, 10, 1, &again).code(), StatusCode::kOutOfRange);
  EXPECT_EQ(SaturationSweep(64, 13, 1, &again).code(), StatusCode::kOutOfRange);
}

// View 4 computes the sweep as a job, a d_k a piece: the same bits as the sweep in one call.
TEST(SaturationJob, OneColumnAStepGivesTheSweepsBits) {
  SaturationJob job;
  EXPECT_FALSE(job.running()) << "nothing until the view starts it";
  job.Start();
  int steps = 0;
  while (job.running()) {
    ASSERT_TRUE(job.Step(0.0).ok());  // a budget of 0: one column, the least a step does
    ++steps;
    EXPECT_FLOAT_EQ(job.progress(), steps / 10.0f);
    if (!job.done()) EXPECT_TRUE(std::isnan(job.model().curves.entropy(0, 9))) << "not computed yet";
  }
  EXPECT_EQ(steps, SaturationModel::kMaxLog2Dk);
  ASSERT_TRUE(job.done());
  EXPECT_EQ(job.error(), "");
  SaturationCurves whole;
  ASSERT_TRUE(SaturationSweep(SaturationModel::kTokens, SaturationModel::kMaxLog2Dk, SaturationModel::kSeed, &whole).ok());
  EXPECT_EQ(job.model().curves.log2_dk, whole.log2_dk);
  EXPECT_EQ(job.model().curves.entropy, whole.entropy);
  EXPECT_EQ(job.model().curves.gradient_norm, whole.gradient_norm);
  EXPECT_GT(job.model().ms, 0.0);
  SaturationCurves curves;
  ASSERT_TRUE(StartSaturationCurves(8, 3, &curves).ok());
  EXPECT_EQ(SaturationColumn(8, 4, 1, &curves).message(), "log2_dk: expected 1..3, got 4");
}

}  // namespace
}  // namespace attn
