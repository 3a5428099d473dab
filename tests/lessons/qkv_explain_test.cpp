#include "lessons/qkv_explain.h"

#include <gtest/gtest.h>

#include "support/expect_close.h"
#include "support/random.h"

namespace attn {
using namespace ::lessons;  // what these tests check lives in the lessons layer
namespace {

TEST(ScaledProjections, ScaleMultipliesTheSeededWeights) {
  AttentionConfig config;
  config.head_dim = 3;
  config.value_head_dim = 2;
  config.seed = 11;
  AttentionParameters one, three;
  ASSERT_TRUE(ScaledProjections(config, 5, 1.0f, false, &one).ok());
  ASSERT_TRUE(ScaledProjections(config, 5, 3.0f, false, &three).ok());
  EXPECT_EQ(one.wq.rows(), 5);
  EXPECT_EQ(one.wq.cols(), 3);
  EXPECT_EQ(one.wv.cols(), 2);
  EXPECT_TRUE(testing::AllClose(three.wk, 3.0f * one.wk, 1e-6, 1e-6));
  // Scale 1 gives exactly the weights Forward seeds by itself.
  AttentionConfig forward_config = config;
  forward_config.project_inputs = true;
  AttentionResult r;
  ASSERT_TRUE(Forward(forward_config, {testing::RandomMatrix(4, 5, 2)}, &r).ok());
  EXPECT_EQ(r.parameters.wq, one.wq);
  AttentionParameters bad;
  EXPECT_EQ(ScaledProjections(config, 5, 0.0f, false, &bad).code(), StatusCode::kOutOfRange);
}

TEST(ScaledProjections, IdentityGivesBackTheParameterFreeLayer) {
  const Matrix x = testing::RandomMatrix(4, 6, 5);
  AttentionConfig config;
  config.project_inputs = true;
  AttentionParameters p;
  ASSERT_TRUE(ScaledProjections(config, 6, 1.0f, true, &p).ok());
  AttentionResult projected, plain;
  ASSERT_TRUE(Forward(config, {x}, p, &projected).ok());
  ASSERT_TRUE(SelfAttention(AttentionConfig{}, x, &plain).ok());
  EXPECT_TRUE(testing::AllClose(projected.output, plain.output, 1e-5, 1e-6));
  config.head_dim = 3;
  EXPECT_EQ(ScaledProjections(config, 6, 1.0f, true, &p).code(), StatusCode::kShapeMismatch);
}

TEST(PairProduct, SumsToTheRawScore) {
  const Matrix x = testing::RandomMatrix(4, 6, 9);
  AttentionConfig config;
  config.project_inputs = true;
  config.head_dim = 3;
  config.seed = 4;
  AttentionResult r;
  ASSERT_TRUE(Forward(config, {x}, &r).ok());
  const HeadIntermediates& h = r.heads[0];
  Matrix prod;
  ASSERT_TRUE(PairProduct(h.q, h.k, 2, 1, &prod).ok());
  ASSERT_EQ(prod.cols(), 3);
  EXPECT_NEAR(prod.sum(), h.raw_scores(2, 1), 1e-5);
  EXPECT_EQ(PairProduct(h.q, h.k, 4, 0, &prod).code(), StatusCode::kOutOfRange);
  EXPECT_EQ(PairProduct(h.q, Matrix(4, 2), 0, 0, &prod).code(), StatusCode::kShapeMismatch);
}

}  // namespace
}  // namespace attn
