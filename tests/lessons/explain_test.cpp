#include <gtest/gtest.h>

#include <algorithm>

#include "attn/attention.h"
#include "lessons/explain.h"
#include "support/expect_close.h"
#include "support/random.h"

namespace attn {
using namespace ::lessons;  // what these tests check lives in the lessons layer
namespace {

TEST(WeightedTerms, SumToTheOutputRow) {
  const Matrix x = testing::RandomMatrix(5, 4, 3);
  AttentionResult r;
  ASSERT_TRUE(SelfAttention(AttentionConfig{}, x, &r).ok());
  for (int q = 0; q < 5; ++q) {
    Matrix terms;
    ASSERT_TRUE(WeightedTerms(r.heads[0].weights, r.heads[0].v, q, &terms).ok());
    EXPECT_TRUE(testing::AllClose(terms.colwise().sum(), r.output.row(q), 1e-5, 1e-6)) << "query " << q;
    EXPECT_FLOAT_EQ(terms(2, 1), r.heads[0].weights(q, 2) * x(2, 1));
  }
  Matrix terms;
  EXPECT_EQ(WeightedTerms(r.heads[0].weights, r.heads[0].v, 5, &terms).code(), StatusCode::kOutOfRange);
  EXPECT_EQ(WeightedTerms(r.heads[0].weights, Matrix(4, 4), 0, &terms).code(), StatusCode::kShapeMismatch);
}

TEST(PermuteRows, PermutesAndRejectsNonPermutations) {
  Matrix m(3, 1);
  m << 10, 20, 30;
  Matrix out;
  ASSERT_TRUE(PermuteRows(m, {2, 0, 1}, &out).ok());
  EXPECT_EQ(out(0, 0), 30);
  EXPECT_EQ(out(1, 0), 10);
  EXPECT_EQ(PermuteRows(m, {0, 0, 1}, &out).code(), StatusCode::kOutOfRange);
  EXPECT_EQ(PermuteRows(m, {0, 1}, &out).code(), StatusCode::kShapeMismatch);
}

TEST(SeededPermutation, IsAPermutationAndDeterministic) {
  EXPECT_EQ(SeededPermutation(4, 0), (std::vector<int>{0, 1, 2, 3}));
  const std::vector<int> p = SeededPermutation(12, 7);
  EXPECT_EQ(p, SeededPermutation(12, 7));
  EXPECT_NE(p, SeededPermutation(12, 8));
  std::vector<int> sorted = p;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, SeededPermutation(12, 0));
}

TEST(MaxAbsDifference, MeasuresAndChecksShapes) {
  Matrix a = Matrix::Zero(2, 2), b = Matrix::Zero(2, 2);
  b(1, 0) = -0.5f;
  float d = -1;
  ASSERT_TRUE(MaxAbsDifference(a, b, &d).ok());
  EXPECT_EQ(d, 0.5f);
  EXPECT_EQ(MaxAbsDifference(a, Matrix(2, 3), &d).code(), StatusCode::kShapeMismatch);
}

}  // namespace
}  // namespace attn

#include "attn/config_names.h"

namespace attn {
using namespace ::lessons;  // what these tests check lives in the lessons layer
namespace {

TEST(ConfigNames, RoundTripAndRejectUnknownNames) {
  for (int i = 0; i <= static_cast<int>(ScoreFunction::kCosine); ++i) {
    ScoreFunction f{};
    ASSERT_TRUE(ParseScoreFunction(ScoreFunctionName(static_cast<ScoreFunction>(i)), &f).ok());
    EXPECT_EQ(static_cast<int>(f), i);
  }
  for (int i = 0; i <= static_cast<int>(Normalizer::kNone); ++i) {
    Normalizer n{};
    ASSERT_TRUE(ParseNormalizer(NormalizerName(static_cast<Normalizer>(i)), &n).ok());
    EXPECT_EQ(static_cast<int>(n), i);
  }
  for (int i = 0; i <= static_cast<int>(PositionEncoding::kQuadraticRelative); ++i) {
    PositionEncoding p{};
    ASSERT_TRUE(ParsePositionEncoding(PositionEncodingName(static_cast<PositionEncoding>(i)), &p).ok());
    EXPECT_EQ(static_cast<int>(p), i);
  }
  Normalizer n{};
  const Status s = ParseNormalizer("softmx", &n);
  EXPECT_EQ(s.code(), StatusCode::kUnknownOption);
  EXPECT_NE(s.message().find("expected one of softmax, sparsemax"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace attn

namespace lessons {
namespace {

TEST(DescribeWeightsRow, NamesTheLargestWeightsOfARowInOrder) {
  Matrix w(2, 3);
  w << 0.2f, 0.5f, 0.3f,
       0.1f, 0.1f, 0.8f;
  const std::vector<std::string> words = {"the", "cat", "sat"};
  EXPECT_EQ(DescribeWeightsRow(w, 0, words, 2), "weights of 'the' (1): 'cat' 0.5, 'sat' 0.3");
  EXPECT_EQ(DescribeWeightsRow(w, 1, words, 3), "weights of 'cat' (2): 'sat' 0.8, 'the' 0.1, 'cat' 0.1");  // ties: earlier first
  EXPECT_EQ(DescribeWeightsRow(w, 1, {}, 1), "weights of 2 (2): 3 0.8");
  EXPECT_EQ(DescribeWeightsRow(w, 2, words, 2), "");
  EXPECT_EQ(DescribeWeightsRow(w, -1, words, 2), "");
}

}  // namespace
}  // namespace lessons
