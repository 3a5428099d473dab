// Single-head self-attention: every kernel against the float64 reference, properties, bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "attn/attention.h"
#include "attn/reference.h"
#include "support/expect_close.h"
#include "support/random.h"

namespace attn {

// Readable test names: "GetParam() = eigen" instead of raw bytes.
void PrintTo(KernelId id, std::ostream* os) { *os << KernelName(id); }

namespace {

using testing::AllClose;
using testing::RandomMatrix;

const int kSizes[] = {1, 3, 4, 5, 7, 8, 9, 16, 17, 35};

struct ReferenceD {
  MatrixD raw, scores, weights, output;
};

// The double-precision reference on the same input and config.
ReferenceD RunReferenceD(const Matrix& x, const AttentionConfig& config) {
  AttentionInputsD in;
  in.query = x.cast<double>();
  AttentionResultD got;
  reference::Forward(config, in, AttentionParametersD(), &got);
  const auto& h = got.heads.at(0);
  return {h.raw_scores, h.scores, h.weights, h.output};
}

class KernelTest : public ::testing::TestWithParam<KernelId> {};

TEST_P(KernelTest, MatchesFloat64ReferenceOnRandomShapes) {
  uint32_t seed = 1;
  for (int n : kSizes) {
    for (int d : kSizes) {
      const Matrix x = RandomMatrix(n, d, seed++, -2.0f, 2.0f);
      AttentionConfig config;
      config.kernel = GetParam();
      config.temperature = 0.7f;
      AttentionResult got;
      ASSERT_TRUE(SelfAttention(config, x, &got).ok());
      const ReferenceD want = RunReferenceD(x, config);
      const HeadIntermediates& h = got.heads.at(0);
      SCOPED_TRACE(::testing::Message() << "n=" << n << " d=" << d);
      // Float32 sums of d products of |x| <= 2: error grows with d·|x|².
      const double score_atol = 1e-6 * d * 4;
      EXPECT_TRUE(AllClose(h.raw_scores, want.raw, 1e-5, score_atol));
      EXPECT_TRUE(AllClose(h.scores, want.scores, 1e-5, score_atol));
      EXPECT_TRUE(AllClose(h.weights, want.weights, 1e-4, 1e-6));
      EXPECT_TRUE(AllClose(h.output, want.output, 1e-4, 1e-5));
      EXPECT_TRUE(AllClose(got.output, want.output, 1e-4, 1e-5));
    }
  }
}

TEST_P(KernelTest, WeightRowsAreDistributions) {
  const Matrix x = RandomMatrix(17, 9, 42, -3.0f, 3.0f);
  AttentionConfig config;
  config.kernel = GetParam();
  AttentionResult got;
  ASSERT_TRUE(SelfAttention(config, x, &got).ok());
  const Matrix& w = got.heads[0].weights;
  EXPECT_GE(w.minCoeff(), 0.0f);
  for (Eigen::Index i = 0; i < w.rows(); ++i) EXPECT_NEAR(w.row(i).sum(), 1.0f, 1e-5f) << "row " << i;
}

TEST_P(KernelTest, PermutingTokensPermutesOutputs) {
  const int n = 7;
  const Matrix x = RandomMatrix(n, 5, 7);
  Eigen::PermutationMatrix<Eigen::Dynamic> perm(n);
  perm.indices() << 3, 0, 6, 1, 5, 2, 4;
  const Matrix px = perm * x;
  AttentionConfig config;
  config.kernel = GetParam();
  AttentionResult a, b;
  ASSERT_TRUE(SelfAttention(config, x, &a).ok());
  ASSERT_TRUE(SelfAttention(config, px, &b).ok());
  const Matrix permuted_a = perm * a.output;
  EXPECT_TRUE(AllClose(b.output, permuted_a, 1e-5, 1e-6));
}

TEST_P(KernelTest, LowTemperatureApproachesArgmax) {
  Matrix x(3, 2);
  x << 3, 0,  //
      0, 1,   //
      1, 1;
  AttentionConfig config;
  config.kernel = GetParam();
  config.temperature = 1e-3f;
  AttentionResult got;
  ASSERT_TRUE(SelfAttention(config, x, &got).ok());
  // Row 0 scores (9, 0, 3)/√2: all weight on token 0, and no NaN despite exp of large numbers.
  EXPECT_NEAR(got.heads[0].weights(0, 0), 1.0f, 1e-6f);
  EXPECT_NEAR(got.heads[0].weights(0, 1), 0.0f, 1e-6f);
  EXPECT_TRUE(got.output.allFinite());
}

INSTANTIATE_TEST_SUITE_P(AllKernels, KernelTest, ::testing::ValuesIn(AvailableKernels()),
                         [](const ::testing::TestParamInfo<KernelId>& info) {
                           return std::string(KernelName(info.param));
                         });

TEST(SelfAttention, DefaultScaleIsInverseSqrtDk) {
  AttentionConfig config;
  EXPECT_FLOAT_EQ(EffectiveScale(config, 16), 0.25f);
  config.scale = 0.5f;
  EXPECT_FLOAT_EQ(EffectiveScale(config, 16), 0.5f);
}

struct BadInputCase {
  const char* name;
  Matrix x;
  AttentionConfig config;
  StatusCode code;
  const char* message_part;
};

TEST(SelfAttention, BadInputReturnsStatusAndLeavesOutputUntouched) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  Matrix with_nan = Matrix::Ones(3, 4);
  with_nan(1, 2) = nan;
  Matrix with_inf = Matrix::Ones(2, 2);
  with_inf(0, 1) = -inf;
  Matrix huge = Matrix::Constant(2, 3, 1e20f);
  AttentionConfig zero_t, neg_scale, nan_t, bad_kernel, three_heads;
  zero_t.temperature = 0.0f;
  neg_scale.scale = -1.0f;
  nan_t.temperature = nan;
  bad_kernel.kernel = static_cast<KernelId>(99);
  three_heads.num_heads = 3;
  const std::vector<BadInputCase> cases = {
      {"no tokens", Matrix(0, 4), {}, StatusCode::kEmptyInput, "x: expected a non-empty matrix, got (0, 4)"},
      {"no features", Matrix(3, 0), {}, StatusCode::kEmptyInput, "got (3, 0)"},
      {"nan", with_nan, {}, StatusCode::kNonFinite, "at (1, 2)"},
      {"-inf", with_inf, {}, StatusCode::kNonFinite, "at (0, 1)"},
      {"overflowing scores", huge, {}, StatusCode::kNonFinite, "overflowed"},
      {"zero temperature", Matrix::Ones(2, 2), zero_t, StatusCode::kOutOfRange, "temperature"},
      {"nan temperature", Matrix::Ones(2, 2), nan_t, StatusCode::kOutOfRange, "temperature"},
      {"negative scale", Matrix::Ones(2, 2), neg_scale, StatusCode::kOutOfRange, "scale"},
      {"unknown kernel", Matrix::Ones(2, 2), bad_kernel, StatusCode::kUnknownOption, "kernel"},
      // The input is called x wherever a message names it, not only at the start.
      {"heads not dividing x", Matrix::Ones(2, 4), three_heads, StatusCode::kShapeMismatch,
       "num_heads: expected a divisor of x.cols() = 4, got 3"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    AttentionResult out;
    out.output = Matrix::Constant(1, 1, 123.0f);
    const Status s = SelfAttention(c.config, c.x, &out);
    EXPECT_EQ(s.code(), c.code) << s.ToString();
    EXPECT_NE(s.message().find(c.message_part), std::string::npos) << s.message();
    EXPECT_EQ(out.output(0, 0), 123.0f);
    EXPECT_TRUE(out.heads.empty());
  }
}

TEST(SelfAttention, FullyMaskedRowSoftmaxIsZeroNotNan) {
  const float inf = std::numeric_limits<float>::infinity();
  Matrix s(2, 3);
  s << -inf, -inf, -inf,  //
      0, -inf, 1;
  Matrix w;
  reference::SoftmaxRows<float>(s, 1.0f, &w);
  EXPECT_TRUE(w.allFinite());
  EXPECT_EQ(w.row(0).sum(), 0.0f);
  EXPECT_NEAR(w.row(1).sum(), 1.0f, 1e-6f);
  EXPECT_EQ(w(1, 1), 0.0f);
}

}  // namespace
}  // namespace attn
