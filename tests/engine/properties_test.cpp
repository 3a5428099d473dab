// Properties the attention layer must have whatever the numbers: distributions, equivariance,
// masks, invariances, the 1/√d_k variance argument, sparsemax zeros, KV-cache consistency.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "attn/attention.h"
#include "attn/positions.h"
#include "support/expect_close.h"
#include "support/random.h"

namespace attn {
namespace {

using testing::AllClose;
using testing::RandomMatrix;

AttentionInputs SelfInputs(const Matrix& x) {
  AttentionInputs in;
  in.query = x;
  return in;
}

AttentionResult RunForward(const AttentionConfig& config, const AttentionInputs& in) {
  AttentionResult out;
  const Status status = Forward(config, in, &out);
  EXPECT_TRUE(status.ok()) << status.ToString();
  return out;
}

AttentionConfig Projected(int heads, int head_dim) {
  AttentionConfig c;
  c.project_inputs = c.project_output = c.use_bias = true;
  c.num_heads = heads;
  c.head_dim = head_dim;
  c.seed = 11;
  return c;
}

class PropertyTest : public ::testing::TestWithParam<KernelId> {
 protected:
  AttentionConfig Config() const {
    AttentionConfig c;
    c.kernel = GetParam();
    return c;
  }
};

TEST_P(PropertyTest, SoftmaxAndSparsemaxRowsSumToOne) {
  const Matrix x = RandomMatrix(9, 5, 1, -2, 2);
  for (Normalizer norm : {Normalizer::kSoftmax, Normalizer::kSparsemax}) {
    AttentionConfig c = Config();
    c.normalizer = norm;
    const Matrix w = RunForward(c, SelfInputs(x)).heads[0].weights;
    EXPECT_GE(w.minCoeff(), 0.0f);
    for (Eigen::Index i = 0; i < w.rows(); ++i) EXPECT_NEAR(w.row(i).sum(), 1.0f, 1e-5f) << "row " << i;
  }
}

TEST_P(PropertyTest, SparsemaxGivesExactZeros) {
  Matrix x = RandomMatrix(12, 4, 2, -3, 3);
  AttentionConfig c = Config();
  c.normalizer = Normalizer::kSparsemax;
  const Matrix w = RunForward(c, SelfInputs(x)).heads[0].weights;
  const long zeros = (w.array() == 0.0f).count();
  EXPECT_GT(zeros, w.size() / 4) << w;  // well separated scores: most keys get exactly 0
}

TEST_P(PropertyTest, PermutingTokensPermutesOutputsWithoutPositions) {
  const int n = 7;
  const Matrix x = RandomMatrix(n, 6, 3);
  Eigen::PermutationMatrix<Eigen::Dynamic> perm(n);
  perm.indices() << 3, 0, 6, 1, 5, 2, 4;
  AttentionConfig c = Projected(2, 3);
  c.kernel = GetParam();
  const Matrix permuted_input = perm * x;
  const Matrix expected = perm * RunForward(c, SelfInputs(x)).output;
  EXPECT_TRUE(AllClose(RunForward(c, SelfInputs(permuted_input)).output, expected, 1e-5, 1e-5));
}

TEST_P(PropertyTest, PositionEncodingsBreakPermutationEquivariance) {
  const int n = 7;
  const Matrix x = RandomMatrix(n, 6, 4);
  Eigen::PermutationMatrix<Eigen::Dynamic> perm(n);
  perm.indices() << 3, 0, 6, 1, 5, 2, 4;
  for (PositionEncoding pos : {PositionEncoding::kSinusoidal, PositionEncoding::kLearned, PositionEncoding::kAlibi,
                               PositionEncoding::kRope, PositionEncoding::kQuadraticRelative}) {
    AttentionConfig c = Projected(2, 4);
    c.kernel = GetParam();
    c.position = pos;
    const Matrix permuted_input = perm * x;
    const Matrix permuted_output = perm * RunForward(c, SelfInputs(x)).output;
    const float difference = (RunForward(c, SelfInputs(permuted_input)).output - permuted_output).cwiseAbs().maxCoeff();
    EXPECT_GT(difference, 1e-3f) << "position " << static_cast<int>(pos);
  }
}

TEST_P(PropertyTest, CausalAndWindowMasksGiveZeroWeightOutside) {
  const int n = 9;
  const Matrix x = RandomMatrix(n, 4, 5);
  for (Normalizer norm : {Normalizer::kSoftmax, Normalizer::kSparsemax, Normalizer::kSigmoid, Normalizer::kNone}) {
    AttentionConfig c = Config();
    c.normalizer = norm;
    c.causal = true;
    c.window_left = 2;
    const Matrix w = RunForward(c, SelfInputs(x)).heads[0].weights;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        if (j > i || j < i - 2) EXPECT_EQ(w(i, j), 0.0f) << "(" << i << ", " << j << ")";
  }
  AttentionConfig c = Config();
  c.window_left = 1;
  c.window_right = 3;
  const Matrix w = RunForward(c, SelfInputs(x)).heads[0].weights;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      if (j < i - 1 || j > i + 3) {
        EXPECT_EQ(w(i, j), 0.0f) << "(" << i << ", " << j << ")";
      } else {
        EXPECT_GT(w(i, j), 0.0f) << "(" << i << ", " << j << ")";
      }
    }
}

TEST_P(PropertyTest, CausalOutputIgnoresLaterTokens) {
  Matrix x = RandomMatrix(6, 4, 6);
  AttentionConfig c = Projected(2, 2);
  c.kernel = GetParam();
  c.causal = true;
  const Matrix before = RunForward(c, SelfInputs(x)).output;
  x.row(5) *= -3.0f;  // change the last token only
  const Matrix after = RunForward(c, SelfInputs(x)).output;
  EXPECT_TRUE(AllClose(after.topRows(5), before.topRows(5), 0, 0));
  EXPECT_FALSE(AllClose(after.row(5), before.row(5), 1e-3, 1e-3));
}

TEST_P(PropertyTest, SoftmaxIgnoresAConstantAddedToScores) {
  const Matrix x = RandomMatrix(5, 3, 7);
  AttentionConfig c = Config();
  AttentionInputs shifted = SelfInputs(x);
  shifted.float_mask = {Matrix::Constant(5, 5, 12.5f)};
  const AttentionResult a = RunForward(c, SelfInputs(x)), b = RunForward(c, shifted);
  EXPECT_FALSE(AllClose(b.heads[0].scores, a.heads[0].scores, 1e-3, 1e-3));
  EXPECT_TRUE(AllClose(b.heads[0].weights, a.heads[0].weights, 1e-5, 1e-6));
}

TEST_P(PropertyTest, FullyMaskedRowsGiveZeroOutputNotNan) {
  const Matrix x = RandomMatrix(4, 3, 8);
  for (Normalizer norm : {Normalizer::kSoftmax, Normalizer::kSparsemax, Normalizer::kReluNormalized,
                          Normalizer::kSigmoid, Normalizer::kNone}) {
    AttentionConfig c = Config();
    c.normalizer = norm;
    AttentionInputs in = SelfInputs(x);
    in.bool_mask = {BoolMatrix::Constant(4, 4, true)};
    in.bool_mask[0].row(2).setConstant(false);  // ONNX meaning: row 2 may attend to nothing
    const AttentionResult r = RunForward(c, in);
    EXPECT_TRUE(r.output.allFinite());
    EXPECT_EQ(r.heads[0].weights.row(2).cwiseAbs().sum(), 0.0f);
    EXPECT_EQ(r.output.row(2).cwiseAbs().sum(), 0.0f);
    EXPECT_GT(r.output.row(1).cwiseAbs().sum(), 0.0f);
  }
}

TEST_P(PropertyTest, BoolMaskConventionsAreOpposites) {
  const Matrix x = RandomMatrix(5, 4, 9);
  BoolMatrix attend = (RandomMatrix(5, 5, 10, 0, 1).array() < 0.6f).matrix();
  attend.diagonal().setConstant(true);
  AttentionInputs onnx = SelfInputs(x), torch = SelfInputs(x);
  onnx.bool_mask = {attend};
  torch.bool_mask = {(!attend.array()).matrix()};
  torch.bool_mask_meaning = BoolMaskMeaning::kTrueMeansBlock;
  const Matrix w = RunForward(Config(), onnx).heads[0].weights;
  EXPECT_EQ(w, RunForward(Config(), torch).heads[0].weights);
  for (Eigen::Index i = 0; i < w.size(); ++i)
    if (!attend.data()[i]) EXPECT_EQ(w.data()[i], 0.0f);
}

TEST_P(PropertyTest, ScaleKeepsScoreVarianceNearOneForUnitVarianceInputs) {
  const int n = 64, d_k = 64;
  // Uniform in ±√3 has variance 1, so q·k sums d_k unit-variance products.
  AttentionInputs in;
  in.query = RandomMatrix(n, d_k, 12, -std::sqrt(3.0f), std::sqrt(3.0f));
  in.key = RandomMatrix(n, d_k, 13, -std::sqrt(3.0f), std::sqrt(3.0f));
  auto variance = [](const Matrix& s) { return (s.array() - s.mean()).square().mean(); };
  AttentionConfig scaled = Config();
  const AttentionResult r = RunForward(scaled, in);
  EXPECT_NEAR(variance(r.heads[0].scaled_scores), 1.0f, 0.15f);
  EXPECT_NEAR(variance(r.heads[0].raw_scores) / d_k, 1.0f, 0.15f);
  AttentionConfig dot = Config();
  dot.score = ScoreFunction::kDot;
  EXPECT_NEAR(variance(RunForward(dot, in).heads[0].scaled_scores) / d_k, 1.0f, 0.15f);
}

TEST_P(PropertyTest, KvCacheStepByStepEqualsFullCausalPass) {
  const int n = 6;
  const Matrix x = RandomMatrix(n, 8, 14);
  AttentionConfig c = Projected(4, 2);
  c.kernel = GetParam();
  c.num_kv_heads = 2;
  c.causal = true;
  c.position = PositionEncoding::kRope;
  const Matrix full = RunForward(c, SelfInputs(x)).output;
  // Decode one token at a time, feeding the present cache back as the past.
  std::vector<Matrix> past_key, past_value;
  for (int t = 0; t < n; ++t) {
    AttentionInputs step = SelfInputs(x.row(t));
    step.past_key = past_key;
    step.past_value = past_value;
    const AttentionResult r = RunForward(c, step);
    EXPECT_TRUE(AllClose(r.output, full.row(t), 1e-5, 1e-5)) << "token " << t;
    past_key = r.present_key;
    past_value = r.present_value;
  }
  EXPECT_EQ(past_key.at(0).rows(), n);
}

TEST_P(PropertyTest, GroupedQueryEqualsMultiHeadWithSharedKeyValueWeights) {
  const Matrix x = RandomMatrix(5, 6, 15);
  AttentionConfig gqa = Projected(4, 3);
  gqa.kernel = GetParam();
  gqa.num_kv_heads = 2;
  AttentionResult grouped = RunForward(gqa, SelfInputs(x));
  // Multi-head with each key/value head's weights copied to the query heads of its group.
  AttentionParameters mha_params = grouped.parameters;
  const Matrix wk = grouped.parameters.wk, wv = grouped.parameters.wv, bk = grouped.parameters.bk,
               bv = grouped.parameters.bv;
  mha_params.wk.resize(6, 12);
  mha_params.wv.resize(6, 12);
  mha_params.bk.resize(1, 12);
  mha_params.bv.resize(1, 12);
  for (int h = 0; h < 4; ++h) {
    mha_params.wk.middleCols(3 * h, 3) = wk.middleCols(3 * (h / 2), 3);
    mha_params.wv.middleCols(3 * h, 3) = wv.middleCols(3 * (h / 2), 3);
    mha_params.bk.middleCols(3 * h, 3) = bk.middleCols(3 * (h / 2), 3);
    mha_params.bv.middleCols(3 * h, 3) = bv.middleCols(3 * (h / 2), 3);
  }
  AttentionConfig mha = gqa;
  mha.num_kv_heads = 0;
  AttentionResult multi;
  ASSERT_TRUE(Forward(mha, SelfInputs(x), mha_params, &multi).ok());
  EXPECT_TRUE(AllClose(multi.output, grouped.output, 1e-5, 1e-6));
}

TEST_P(PropertyTest, SharpQuadraticRelativeHeadsActLikeAConvolution) {
  // Cordonnier et al.: with α large, head h attends only to the token at offset Δ_h.
  const int n = 8;
  AttentionConfig c = Projected(3, 2);
  c.kernel = GetParam();
  c.position = PositionEncoding::kQuadraticRelative;
  AttentionParameters p;
  p.relative_center = (Matrix(1, 3) << -1, 0, 2).finished();
  p.relative_sharpness = Matrix::Constant(1, 3, 50.0f);
  AttentionResult r;
  ASSERT_TRUE(Forward(c, SelfInputs(RandomMatrix(n, 6, 16)), p, &r).ok());
  const int offsets[] = {-1, 0, 2};
  for (int h = 0; h < 3; ++h)
    for (int i = 0; i < n; ++i)
      if (i + offsets[h] >= 0 && i + offsets[h] < n)
        EXPECT_NEAR(r.heads[h].weights(i, i + offsets[h]), 1.0f, 1e-4f) << "head " << h << " row " << i;
}

TEST_P(PropertyTest, AlibiPrefersNearbyKeysForEqualContent) {
  AttentionConfig c = Config();
  c.position = PositionEncoding::kAlibi;
  const Matrix w = RunForward(c, SelfInputs(Matrix::Ones(6, 2))).heads[0].weights;  // equal content
  for (int j = 1; j < 6; ++j) EXPECT_LT(w(0, j), w(0, j - 1));
  EXPECT_NEAR(AlibiSlopes<double>(8)[0], 0.5, 1e-12);  // 2^(−8/8)
  EXPECT_NEAR(AlibiSlopes<double>(8)[7], 1.0 / 256, 1e-12);
}

TEST_P(PropertyTest, SoftcapBoundsScores) {
  AttentionConfig c = Config();
  c.softcap = 1.5f;
  c.score = ScoreFunction::kDot;
  const AttentionResult r = RunForward(c, SelfInputs(RandomMatrix(6, 8, 17, -3, 3)));
  EXPECT_GT(r.heads[0].scaled_scores.cwiseAbs().maxCoeff(), 3.0f);
  EXPECT_LE(r.heads[0].capped_scores.cwiseAbs().maxCoeff(), 1.5f);
}

TEST_P(PropertyTest, CrossAttentionHasOneRowPerQueryAndColumnPerKey) {
  AttentionConfig c = Projected(2, 3);
  c.kernel = GetParam();
  AttentionInputs in;
  in.query = RandomMatrix(3, 4, 18);
  in.key = RandomMatrix(7, 5, 19);
  const AttentionResult r = RunForward(c, in);
  EXPECT_EQ(r.heads[1].weights.rows(), 3);
  EXPECT_EQ(r.heads[1].weights.cols(), 7);
  EXPECT_EQ(r.output.rows(), 3);
  EXPECT_EQ(r.output.cols(), 4);
}

TEST_P(PropertyTest, SeedsAreDeterministic) {
  const Matrix x = RandomMatrix(4, 6, 20);
  AttentionConfig c = Projected(2, 3);
  c.kernel = GetParam();
  const AttentionResult a = RunForward(c, SelfInputs(x)), b = RunForward(c, SelfInputs(x));
  EXPECT_EQ(a.parameters.wq, b.parameters.wq);
  c.seed = 12;
  EXPECT_NE(RunForward(c, SelfInputs(x)).parameters.wq, a.parameters.wq);
  // Bounds of the initialisation: ±1/√fan_in.
  EXPECT_LE(a.parameters.wq.cwiseAbs().maxCoeff(), 1.0f / std::sqrt(6.0f));
}

TEST_P(PropertyTest, ReluNormalizedRowOfNonPositiveScoresIsZero) {
  Matrix x(2, 1);
  x << 1, -1;  // scores x_i x_j: row 0 = (1, −1), row 1 = (−1, 1)
  AttentionConfig c = Config();
  c.normalizer = Normalizer::kReluNormalized;
  AttentionInputs in = SelfInputs(x);
  in.bool_mask = {(BoolMatrix(2, 2) << true, true, true, false).finished()};  // row 1 keeps only −1
  const Matrix w = RunForward(c, in).heads[0].weights;
  EXPECT_EQ(w(0, 0), 1.0f);
  EXPECT_EQ(w(0, 1), 0.0f);
  EXPECT_EQ(w.row(1).sum(), 0.0f);
}

TEST_P(PropertyTest, ConcatAdditiveEqualsAdditiveWithStackedWeights) {
  const Matrix x = RandomMatrix(5, 4, 21);
  AttentionConfig additive = Config();
  additive.score = ScoreFunction::kAdditive;
  additive.additive_dim = 3;
  const AttentionResult a = RunForward(additive, SelfInputs(x));
  AttentionParameters stacked;
  stacked.additive_concat = {Matrix(8, 3)};
  stacked.additive_concat[0] << a.parameters.additive_wq[0], a.parameters.additive_wk[0];  // [W_q; W_k]
  stacked.additive_v = a.parameters.additive_v;
  AttentionConfig concat = additive;
  concat.score = ScoreFunction::kAdditiveConcat;
  AttentionResult b;
  ASSERT_TRUE(Forward(concat, SelfInputs(x), stacked, &b).ok());
  EXPECT_TRUE(AllClose(b.heads[0].raw_scores, a.heads[0].raw_scores, 1e-6, 1e-6));
}

TEST_P(PropertyTest, CosineScoresAreBoundedByInverseTemperature) {
  AttentionConfig c = Config();
  c.score = ScoreFunction::kCosine;
  c.cosine_temperature = 0.25f;
  const AttentionResult r = RunForward(c, SelfInputs(RandomMatrix(6, 5, 22, -4, 4)));
  EXPECT_LE(r.heads[0].raw_scores.cwiseAbs().maxCoeff(), 1.0f + 1e-6f);
  EXPECT_NEAR(r.heads[0].scaled_scores(2, 2), 4.0f, 1e-5f);  // a token is at cosine 1 with itself
}

INSTANTIATE_TEST_SUITE_P(AllKernels, PropertyTest, ::testing::ValuesIn(AvailableKernels()),
                         [](const ::testing::TestParamInfo<KernelId>& info) {
                           return std::string(KernelName(info.param));
                         });

}  // namespace
}  // namespace attn
