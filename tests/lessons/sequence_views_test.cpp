// The engine functions behind views 7 and 8: seeded signals, the moving average as a box
// convolution, the attention smoother, and the convolution rebuilt by attention.
#include <gtest/gtest.h>

#include <cmath>

#include "lessons/conv_attention.h"
#include "lessons/explain.h"
#include "lessons/signals.h"
#include "lessons/smoothing.h"

namespace attn {
using namespace ::lessons;  // what these tests check lives in the lessons layer
namespace {

TEST(Signals, SeededAndReproducible) {
  const Matrix a = SeededSequence(24, 3, 5), b = SeededSequence(24, 3, 5), c = SeededSequence(24, 3, 6);
  ASSERT_EQ(a.rows(), 24);
  ASSERT_EQ(a.cols(), 3);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_LT(a.cwiseAbs().maxCoeff(), 2.0f);
  const Conv1dParams p = SeededConv1d(3, 3, 2, 1);
  ASSERT_EQ(p.taps.size(), 3u);
  EXPECT_EQ(p.taps[0].rows(), 3);
  EXPECT_EQ(p.bias.cols(), 2);
}

TEST(Signals, NoiseHasTheRequestedSpread) {
  const Matrix zero = Matrix::Zero(4000, 1);
  Matrix noisy;
  ASSERT_TRUE(AddSeededNoise(zero, 2.0f, 9, &noisy).ok());
  const float mean = noisy.mean();
  const float sd = std::sqrt((noisy.array() - mean).square().mean());
  EXPECT_NEAR(mean, 0.0f, 0.15f);
  EXPECT_NEAR(sd, 2.0f, 0.1f);
  ASSERT_TRUE(AddSeededNoise(zero, 0.0f, 9, &noisy).ok());
  EXPECT_EQ(noisy, zero);
  EXPECT_EQ(AddSeededNoise(zero, -1.0f, 9, &noisy).code(), StatusCode::kOutOfRange);
  Matrix relative, absolute;
  const Matrix prices = Matrix::Constant(3, 1, 50.0f);
  ASSERT_TRUE(AddSeededRelativeNoise(prices, 0.1f, 4, &relative).ok());
  ASSERT_TRUE(AddSeededNoise(Matrix::Zero(3, 1), 0.1f, 4, &absolute).ok());
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(relative(i, 0), 50.0f * (1.0f + absolute(i, 0)), 1e-4f);
}

TEST(MovingAverage, AveragesTheWindowAndOnlyWhatItSeesAtTheEnds) {
  Matrix x(5, 1);
  x << 1, 2, 3, 4, 10;
  Matrix y;
  ASSERT_TRUE(MovingAverage(x, 3, &y).ok());
  EXPECT_NEAR(y(0, 0), 1.5f, 1e-6f);  // (1 + 2) / 2: the zero padding does not pull it down
  EXPECT_NEAR(y(2, 0), 3.0f, 1e-6f);
  EXPECT_NEAR(y(4, 0), 7.0f, 1e-6f);
  ASSERT_TRUE(MovingAverage(x, 1, &y).ok());
  EXPECT_EQ(y, x);
  EXPECT_EQ(MovingAverage(x, 2, &y).code(), StatusCode::kOutOfRange);
  x(1, 0) = NAN;
  EXPECT_EQ(MovingAverage(x, 3, &y).code(), StatusCode::kNonFinite);
}

TEST(AttentionSmoother, WeightsAreAGaussianKernelInValueAndTime) {
  Matrix x(6, 1);
  x << 1, 5, 2, 8, 3, 3;
  SmootherConfig config;
  config.value_weight = 0.7f;
  config.time_weight = 1.3f;
  config.steps_per_unit = 4.0f;
  config.temperature = 0.8f;
  SmootherResult r;
  ASSERT_TRUE(AttentionSmoother(x, config, &r).ok());
  const double sd = std::sqrt((x.array() - x.mean()).square().mean());
  for (int i = 0; i < 6; ++i) {
    double total = 0, smoothed = 0;
    std::vector<double> e(6);
    for (int j = 0; j < 6; ++j) {
      const double dv = 0.7 * (x(i, 0) - x(j, 0)) / sd, dt = 1.3 * (i - j) / 4.0;
      e[j] = std::exp(-(dv * dv + dt * dt) / 0.8);
      total += e[j];
    }
    for (int j = 0; j < 6; ++j) {
      EXPECT_NEAR(r.weights(i, j), e[j] / total, 1e-5) << i << "," << j;
      smoothed += e[j] / total * x(j, 0);
    }
    EXPECT_NEAR(r.smoothed(i, 0), smoothed, 1e-4);
  }
  config.temperature = 0.0f;
  EXPECT_FALSE(AttentionSmoother(x, config, &r).ok());
}

TEST(ConvAsAttention, MatchesTheConvolutionAsAlphaGrows) {
  const Matrix x = SeededSequence(12, 3, 2);
  const Conv1dParams conv = SeededConv1d(5, 3, 2, 4);
  Matrix expected;
  ASSERT_TRUE(Conv1d(conv, x, &expected).ok());
  float previous = INFINITY;
  for (float alpha : {0.1f, 1.0f, 10.0f, 100.0f}) {
    ConvAsAttentionResult r;
    ASSERT_TRUE(ConvAsAttention(conv, x, alpha, &r).ok());
    ASSERT_EQ(r.weights.size(), 5u);
    EXPECT_EQ(r.weights[0].rows(), 12);
    float diff = 0;
    ASSERT_TRUE(MaxAbsDifference(r.output, expected, &diff).ok());
    EXPECT_LT(diff, previous);
    previous = diff;
  }
  EXPECT_LT(previous, 1e-5f);
  ConvAsAttentionResult r;
  EXPECT_EQ(ConvAsAttention(SeededConv1d(4, 3, 2, 1), x, 1.0f, &r).code(), StatusCode::kOutOfRange);
  EXPECT_EQ(ConvAsAttention(conv, x, 0.0f, &r).code(), StatusCode::kOutOfRange);
}

}  // namespace
}  // namespace attn
