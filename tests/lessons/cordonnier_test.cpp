// Multi-head self-attention can express any 1-D convolution (Cordonnier, Loukas & Jaggi, 2020).
// K heads: head h scores keys by the quadratic relative position −α(δ − Δ_h)², Δ_h = h − ⌊K/2⌋,
// so as α grows it attends only to the token at offset Δ_h. Giving head h the conv's tap for that
// offset as its value projection and summing the heads in the output projection rebuilds the
// convolution. Zero-padding the sequence by ⌊K/2⌋ tokens on each side gives the edge tokens the
// same zeros the convolution sees.
#include <gtest/gtest.h>

#include <cstdio>

#include "lessons/conv_attention.h"
#include "lessons/layers.h"
#include "support/random.h"
#include "lessons/random_conv.h"

namespace attn {
using namespace ::lessons;  // what these tests check lives in the lessons layer
namespace {

using testing::RandomConv1d;
using testing::RandomMatrix;

// max |attention − conv| over every output element.
float MaxError(const Conv1dParams& conv, const Matrix& x, float alpha) {
  Matrix expected;
  EXPECT_TRUE(Conv1d(conv, x, &expected).ok());
  ConvAsAttentionResult got;
  const Status status = ConvAsAttention(conv, x, alpha, &got);
  EXPECT_TRUE(status.ok()) << status.ToString();
  if (!status.ok()) return INFINITY;
  return (got.output - expected).cwiseAbs().maxCoeff();
}

TEST(Cordonnier, AttentionReproducesConvolutionAtHighSharpness) {
  for (int K : {3, 5, 7}) {
    const Conv1dParams conv = RandomConv1d(K, 3, 2, 10 * K);
    const Matrix x = RandomMatrix(9, 3, K);
    const float error = MaxError(conv, x, 50.0f);
    EXPECT_LT(error, 1e-5f) << "K = " << K;
    std::printf("K = %d, alpha = 50: max |attention - conv| = %.3g\n", K, error);
  }
}

TEST(Cordonnier, EachHeadLooksAtItsOffset) {
  const int K = 5, pad = K / 2;
  const Conv1dParams conv = RandomConv1d(K, 2, 2, 7);
  ConvAsAttentionResult got;
  ASSERT_TRUE(ConvAsAttention(conv, RandomMatrix(6, 2, 8), 50.0f, &got).ok());
  for (int h = 0; h < K; ++h) {
    for (int i = 0; i < 6; ++i) {
      const int j = i + h - pad;
      if (j < 0 || j >= 6) continue;  // that key is a padding token, cropped from the weights
      EXPECT_GT(got.weights[h](i, j), 1.0f - 1e-6f) << "head " << h << " row " << i;
    }
  }
}

TEST(Cordonnier, ErrorFallsAsSharpnessGrows) {
  for (int K : {3, 5, 7}) {
    const Conv1dParams conv = RandomConv1d(K, 3, 2, 20 * K);
    const Matrix x = RandomMatrix(9, 3, 3 * K);
    float previous = MaxError(conv, x, 0.25f);
    EXPECT_GT(previous, 1e-2f) << "blurry heads should be far from the convolution";
    std::printf("K = %d: alpha 0.25 -> %.3g", K, previous);
    for (float alpha : {0.5f, 1.0f, 2.0f, 4.0f, 8.0f}) {
      const float error = MaxError(conv, x, alpha);
      EXPECT_LT(error, previous) << "K = " << K << ", alpha = " << alpha;
      std::printf(", %g -> %.3g", alpha, error);
      previous = error;
    }
    std::printf("\n");
  }
}

}  // namespace
}  // namespace attn
