// Conv1d, receptive fields, the Elman RNN and attention over hidden states (layers.h).
#include "lessons/layers.h"

#include <gtest/gtest.h>

#include <cmath>

#include "support/expect_close.h"
#include "support/random.h"
#include "lessons/random_conv.h"

namespace attn {
using namespace ::lessons;  // what these tests check lives in the lessons layer
namespace {

using testing::AllClose;
using testing::RandomConv1d;
using testing::RandomMatrix;

TEST(Conv1d, HandComputedSamePadding) {
  // One channel, kernel [1, 2, 3] over x = [1, 2, 3, 4], bias 0.5:
  // y_i = 1·x_{i-1} + 2·x_i + 3·x_{i+1} + 0.5 with zeros outside.
  Conv1dParams p;
  for (float w : {1.0f, 2.0f, 3.0f}) p.taps.push_back(Matrix::Constant(1, 1, w));
  p.bias = Matrix::Constant(1, 1, 0.5f);
  Matrix x(4, 1);
  x << 1, 2, 3, 4;
  Matrix y;
  ASSERT_TRUE(Conv1d(p, x, &y).ok());
  Matrix expected(4, 1);
  expected << 0 + 2 + 6 + 0.5f, 1 + 4 + 9 + 0.5f, 2 + 6 + 12 + 0.5f, 3 + 8 + 0 + 0.5f;
  EXPECT_TRUE(AllClose(y, expected, 0, 1e-6));
}

TEST(Conv1d, MatchesShiftedMatrixProducts) {
  // Same padding as a sum of shifted matmuls: y = b + Σ_t shift(x, t - left) W_t.
  for (int kernel_size : {1, 2, 3, 4, 5}) {
    const Matrix x = RandomMatrix(7, 3, 1);
    const Conv1dParams p = RandomConv1d(kernel_size, 3, 2, 10);
    Matrix y;
    ASSERT_TRUE(Conv1d(p, x, &y).ok());
    Matrix expected = p.bias.replicate(7, 1);
    const int left = Conv1dLeftPadding(kernel_size);
    for (int t = 0; t < kernel_size; ++t) {
      Matrix shifted = Matrix::Zero(7, 3);
      for (int i = 0; i < 7; ++i) {
        const int j = i + t - left;
        if (j >= 0 && j < 7) shifted.row(i) = x.row(j);
      }
      expected += shifted * p.taps[t];
    }
    EXPECT_TRUE(AllClose(y, expected, 1e-5, 1e-6)) << "K = " << kernel_size;
  }
}

TEST(Conv1d, BadInputGivesStatus) {
  const Matrix x = RandomMatrix(5, 3, 1);
  Matrix y;
  Conv1dParams p = RandomConv1d(3, 3, 2, 1);
  EXPECT_EQ(Conv1d(p, Matrix(), &y).code(), StatusCode::kEmptyInput);
  EXPECT_EQ(Conv1d(p, RandomMatrix(5, 4, 1), &y).code(), StatusCode::kShapeMismatch);
  Matrix nan_x = x;
  nan_x(2, 1) = std::nanf("");
  EXPECT_EQ(Conv1d(p, nan_x, &y).code(), StatusCode::kNonFinite);
  EXPECT_EQ(Conv1d(Conv1dParams{{}, p.bias}, x, &y).code(), StatusCode::kEmptyInput);
  Conv1dParams ragged = p;
  ragged.taps[1] = RandomMatrix(3, 5, 2);
  EXPECT_EQ(Conv1d(ragged, x, &y).code(), StatusCode::kShapeMismatch);
  Conv1dParams bad_bias = p;
  bad_bias.bias = RandomMatrix(1, 3, 2);
  EXPECT_EQ(Conv1d(bad_bias, x, &y).code(), StatusCode::kShapeMismatch);
  std::vector<Matrix> outs;
  EXPECT_EQ(Conv1dStack({}, x, &outs).code(), StatusCode::kEmptyInput);
  const Status s = Conv1dStack({p, p}, x, &outs);  // layer 1 gets 2 channels, expects 3
  EXPECT_EQ(s.code(), StatusCode::kShapeMismatch);
  EXPECT_NE(s.message().find("layer 1"), std::string::npos);
}

TEST(ReceptiveField, SizeIsOnePlusLTimesKMinusOne) {
  EXPECT_EQ(ReceptiveFieldSize(0, 3), 1);
  EXPECT_EQ(ReceptiveFieldSize(1, 3), 3);
  EXPECT_EQ(ReceptiveFieldSize(3, 3), 7);
  EXPECT_EQ(ReceptiveFieldSize(2, 5), 9);
  EXPECT_EQ(ReceptiveFieldSize(4, 1), 1);
  EXPECT_EQ(ReceptiveFieldSize(-1, 3), 0);
}

TEST(ReceptiveField, RangeMatchesWhichInputsChangeAnOutput) {
  // Perturb one input at a time through a real stack; the outputs that move are exactly those
  // whose receptive field holds that input.
  const int n = 12;
  for (int kernel_size : {2, 3, 4, 5}) {
    for (int layers : {1, 2, 3}) {
      std::vector<Conv1dParams> stack;
      for (int l = 0; l < layers; ++l) stack.push_back(RandomConv1d(kernel_size, 2, 2, 50 + 7 * l));
      const Matrix x = RandomMatrix(n, 2, 3);
      std::vector<Matrix> base;
      ASSERT_TRUE(Conv1dStack(stack, x, &base).ok());
      ASSERT_EQ(base.size(), static_cast<size_t>(layers));
      for (int j = 0; j < n; ++j) {
        Matrix bumped = x;
        bumped.row(j).array() += 1.0f;
        std::vector<Matrix> out;
        ASSERT_TRUE(Conv1dStack(stack, bumped, &out).ok());
        for (int i = 0; i < n; ++i) {
          IndexRange range;
          ASSERT_TRUE(ReceptiveField(layers, kernel_size, n, i, &range).ok());
          const bool sees = j >= range.first && j <= range.last;
          const bool moved = (out.back().row(i) - base.back().row(i)).cwiseAbs().maxCoeff() > 1e-6f;
          EXPECT_EQ(moved, sees) << "K " << kernel_size << " L " << layers << " out " << i << " in "
                                 << j;
        }
      }
      IndexRange middle;
      ASSERT_TRUE(ReceptiveField(layers, kernel_size, 100, 50, &middle).ok());
      EXPECT_EQ(middle.size(), ReceptiveFieldSize(layers, kernel_size));
    }
  }
}

TEST(ReceptiveField, ClipsAtTheEdgesAndRejectsBadArguments) {
  IndexRange r;
  ASSERT_TRUE(ReceptiveField(2, 3, 10, 0, &r).ok());
  EXPECT_EQ(r.first, 0);
  EXPECT_EQ(r.last, 2);
  ASSERT_TRUE(ReceptiveField(2, 3, 10, 9, &r).ok());
  EXPECT_EQ(r.first, 7);
  EXPECT_EQ(r.last, 9);
  EXPECT_EQ(ReceptiveField(2, 3, 10, 10, &r).code(), StatusCode::kOutOfRange);
  EXPECT_EQ(ReceptiveField(2, 0, 10, 1, &r).code(), StatusCode::kOutOfRange);
  EXPECT_EQ(ReceptiveField(-1, 3, 10, 1, &r).code(), StatusCode::kOutOfRange);
}

ElmanRnnParams RandomRnn(int d_in, int d_h, uint32_t seed) {
  return {RandomMatrix(d_in, d_h, seed), RandomMatrix(d_h, d_h, seed + 1),
          RandomMatrix(1, d_h, seed + 2), Matrix()};
}

TEST(ElmanRnn, HandComputedTwoSteps) {
  // Scalar RNN: h_t = tanh(2 x_t + 0.5 h_{t-1} + 0.1), h_{-1} = 0.
  ElmanRnnParams p{Matrix::Constant(1, 1, 2), Matrix::Constant(1, 1, 0.5f),
                   Matrix::Constant(1, 1, 0.1f), Matrix()};
  Matrix x(2, 1);
  x << 0.3f, -0.2f;
  ElmanRnnResult r;
  ASSERT_TRUE(ElmanRnn(p, x, &r).ok());
  const float a0 = 2 * 0.3f + 0.1f, h0 = std::tanh(a0);
  const float a1 = 2 * -0.2f + 0.5f * h0 + 0.1f;
  EXPECT_NEAR(r.pre_activations(0, 0), a0, 1e-6);
  EXPECT_NEAR(r.hidden(0, 0), h0, 1e-6);
  EXPECT_NEAR(r.pre_activations(1, 0), a1, 1e-6);
  EXPECT_NEAR(r.hidden(1, 0), std::tanh(a1), 1e-6);
}

TEST(ElmanRnn, InitialStateCarriesThrough) {
  ElmanRnnParams p = RandomRnn(3, 4, 5);
  const Matrix x = RandomMatrix(6, 3, 6);
  ElmanRnnResult from_zero, from_h0;
  ASSERT_TRUE(ElmanRnn(p, x, &from_zero).ok());
  p.h0 = RandomMatrix(1, 4, 7);
  ASSERT_TRUE(ElmanRnn(p, x, &from_h0).ok());
  const Matrix first_step = (x.row(0) * p.w_xh + p.h0 * p.w_hh + p.bias).array().tanh().matrix();
  EXPECT_TRUE(AllClose(from_h0.hidden.row(0), first_step, 1e-5, 1e-6));
  EXPECT_GT((from_h0.hidden.row(0) - from_zero.hidden.row(0)).cwiseAbs().maxCoeff(), 1e-3f);
}

TEST(ElmanRnn, WithoutRecurrenceIsThePerTokenLayer) {
  ElmanRnnParams p = RandomRnn(3, 4, 8);
  p.w_hh.setZero();
  const Matrix x = RandomMatrix(5, 3, 9);
  ElmanRnnResult rnn;
  Matrix dense;
  ASSERT_TRUE(ElmanRnn(p, x, &rnn).ok());
  ASSERT_TRUE(FullyConnected({p.w_xh, p.bias}, x, &dense).ok());
  EXPECT_TRUE(AllClose(rnn.hidden, dense, 1e-6, 1e-7));
}

TEST(ElmanRnn, BadInputGivesStatus) {
  const ElmanRnnParams p = RandomRnn(3, 4, 1);
  ElmanRnnResult r;
  EXPECT_EQ(ElmanRnn(p, RandomMatrix(5, 2, 1), &r).code(), StatusCode::kShapeMismatch);
  EXPECT_EQ(ElmanRnn(p, Matrix(0, 3), &r).code(), StatusCode::kEmptyInput);
  ElmanRnnParams bad = p;
  bad.w_hh = RandomMatrix(4, 3, 1);
  EXPECT_EQ(ElmanRnn(bad, RandomMatrix(5, 3, 1), &r).code(), StatusCode::kShapeMismatch);
  bad = p;
  bad.h0 = RandomMatrix(1, 5, 1);
  EXPECT_EQ(ElmanRnn(bad, RandomMatrix(5, 3, 1), &r).code(), StatusCode::kShapeMismatch);
  bad = p;
  bad.bias(0, 0) = INFINITY;
  EXPECT_EQ(ElmanRnn(bad, RandomMatrix(5, 3, 1), &r).code(), StatusCode::kNonFinite);
  Matrix h;
  EXPECT_EQ(
      FullyConnected({RandomMatrix(3, 4, 1), RandomMatrix(1, 2, 1)}, RandomMatrix(5, 3, 1), &h)
          .code(),
      StatusCode::kShapeMismatch);
}

SequenceAttentionConfig ConfigFor(SequenceLayerKind kind) {
  SequenceAttentionConfig c;
  c.layer = kind;
  c.rnn = RandomRnn(3, 4, 20);
  c.conv = RandomConv1d(3, 3, 4, 30);
  c.dense = {RandomMatrix(3, 4, 40), RandomMatrix(1, 4, 41)};
  return c;
}

TEST(SequenceAttention, ContextIsTheWeightedSumOfHiddenStates) {
  const Matrix x = RandomMatrix(6, 3, 2);
  for (SequenceLayerKind kind :
       {SequenceLayerKind::kRnn, SequenceLayerKind::kConv1d, SequenceLayerKind::kFullyConnected}) {
    SCOPED_TRACE(SequenceLayerName(kind));
    const SequenceAttentionConfig config = ConfigFor(kind);
    SequenceAttentionResult r;
    ASSERT_TRUE(SequenceAttention(config, x, &r).ok());
    // The hidden states are exactly the chosen layer's output.
    Matrix layer_out;
    if (kind == SequenceLayerKind::kRnn) {
      ElmanRnnResult rnn;
      ASSERT_TRUE(ElmanRnn(config.rnn, x, &rnn).ok());
      layer_out = rnn.hidden;
      EXPECT_TRUE(AllClose(r.pre_activations, rnn.pre_activations, 0, 0));
    } else if (kind == SequenceLayerKind::kConv1d) {
      ASSERT_TRUE(Conv1d(config.conv, x, &layer_out).ok());
      EXPECT_EQ(r.pre_activations.size(), 0);
    } else {
      ASSERT_TRUE(FullyConnected(config.dense, x, &layer_out).ok());
    }
    EXPECT_TRUE(AllClose(r.hidden, layer_out, 0, 0));
    // Scores: scaled dot products; weights: row softmax; context and the concatenation.
    const Matrix scores = r.hidden * r.hidden.transpose() / 2.0f;  // 1/√d_h with d_h = 4
    EXPECT_TRUE(AllClose(r.scores, scores, 1e-5, 1e-6));
    for (int i = 0; i < 6; ++i) {
      const Eigen::RowVectorXf e = (scores.row(i).array() - scores.row(i).maxCoeff()).exp();
      EXPECT_TRUE(AllClose(r.weights.row(i), e / e.sum(), 1e-5, 1e-7));
    }
    EXPECT_TRUE(AllClose(r.context, r.weights * r.hidden, 1e-5, 1e-6));
    ASSERT_EQ(r.combined.cols(), 8);
    EXPECT_TRUE(AllClose(r.combined.leftCols(4), r.hidden, 0, 0));
    EXPECT_TRUE(AllClose(r.combined.rightCols(4), r.context, 0, 0));
  }
}

TEST(SequenceAttention, ScaleSharpensTheWeights) {
  const Matrix x = RandomMatrix(5, 3, 3);
  SequenceAttentionConfig config = ConfigFor(SequenceLayerKind::kFullyConnected);
  SequenceAttentionResult soft, sharp;
  config.scale = 0.01f;
  ASSERT_TRUE(SequenceAttention(config, x, &soft).ok());
  config.scale = 100.0f;
  ASSERT_TRUE(SequenceAttention(config, x, &sharp).ok());
  EXPECT_LT(soft.weights.maxCoeff(), 0.3f);    // nearly uniform over 5 tokens
  EXPECT_GT(sharp.weights.maxCoeff(), 0.95f);  // nearly one-hot
}

TEST(SequenceAttention, BadInputGivesStatus) {
  SequenceAttentionConfig config = ConfigFor(SequenceLayerKind::kConv1d);
  SequenceAttentionResult r;
  EXPECT_EQ(SequenceAttention(config, RandomMatrix(4, 2, 1), &r).code(),
            StatusCode::kShapeMismatch);
  config.scale = -1;
  EXPECT_EQ(SequenceAttention(config, RandomMatrix(4, 3, 1), &r).code(), StatusCode::kOutOfRange);
  config.scale = 0;
  config.layer = static_cast<SequenceLayerKind>(42);
  EXPECT_EQ(SequenceAttention(config, RandomMatrix(4, 3, 1), &r).code(),
            StatusCode::kUnknownOption);
}

}  // namespace
}  // namespace attn
