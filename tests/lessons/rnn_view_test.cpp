// View 9 (lessons/views/rnn.h): the pair's path lengths, the gradients over distance from the
// engine's backward passes (against central differences of the engine's forwards), the spectral
// radius slider, attention over hidden states, the timed layers, and the state string.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "attn/attention.h"
#include "attn/kernels.h"
#include "lessons/asset.h"
#include "lessons/views/rnn.h"
#include "lessons/word_vectors.h"
#include "support/expect_close.h"

namespace lessons {
namespace {

constexpr double kEps = std::numeric_limits<float>::epsilon();

Sentence GloveSentence() {
  static const WordVectors* vectors = [] {
    auto* v = new WordVectors;
    const std::string bytes = testing::ReadAsset("word-vectors.bin");
    EXPECT_TRUE(WordVectors::Parse(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), v).ok());
    return v;
  }();
  Sentence s;
  EXPECT_TRUE(ComputeSentence(SentenceState{}, vectors, &s).ok());
  return s;
}

Sentence Hashed(const std::string& text, int dim) {
  SentenceState state;
  state.text = text;
  state.vectors = VectorSource::kHash;
  state.hash_dim = dim;
  Sentence s;
  EXPECT_TRUE(ComputeSentence(state, nullptr, &s).ok());
  return s;
}

TEST(RnnView, PathLengthsOfThePair) {
  const Sentence s = GloveSentence();
  ASSERT_EQ(s.x.rows(), 12);
  ASSERT_EQ(s.x.cols(), 100);
  RnnState state;  // i = −1: the last word; j = 1 ("animal")
  RnnModel m;
  ASSERT_TRUE(ComputeRnn(s, state, &m).ok());
  EXPECT_EQ(m.target, 11);
  EXPECT_EQ(m.source, 1);
  EXPECT_EQ(m.rnn_path, 10);
  EXPECT_EQ(m.attention_path, 1);
  state.target = 1, state.source = 8;  // j after i: the same |i − j| back along the chain
  ASSERT_TRUE(ComputeRnn(s, state, &m).ok());
  EXPECT_EQ(m.rnn_path, 7);
  state.target = 150, state.source = 150;  // past the sentence: clamped to its last word
  ASSERT_TRUE(ComputeRnn(s, state, &m).ok());
  EXPECT_EQ(m.target, 11);
  EXPECT_EQ(m.source, 11);
  EXPECT_EQ(m.rnn_path, 0);
}

// ‖∂out_i/∂x_j‖_F by central differences of a float32 forward in double: step h = 1e-2 on GloVe
// entries of about 0.4, truncation ≤ h²/6·|f'''| with |f'''| = O(1) for these O(1/√d) weights, and
// rounding ≤ d·ε·max|out|/h per entry: together under 2e-4 + 1e-3 relative.
template <typename Forward>
Matrix FiniteDifferenceNorms(const Matrix& x, int i, Forward&& forward) {
  const float h = 1e-2f;
  Matrix norms(x.rows(), 1);
  for (Eigen::Index j = 0; j < x.rows(); ++j) {
    double squares = 0;
    for (Eigen::Index c = 0; c < x.cols(); ++c) {
      Matrix up = x, down = x;
      up(j, c) += h;
      down(j, c) -= h;
      const Eigen::RowVectorXd column = (forward(up).row(i).template cast<double>() - forward(down).row(i).template cast<double>()) / (2.0 * h);
      squares += column.squaredNorm();
    }
    norms(j, 0) = static_cast<float>(std::sqrt(squares));
  }
  return norms;
}

TEST(RnnView, GradientNormsAreTheBackwardPassesAndMatchFiniteDifferences) {
  const Sentence s = Hashed("the animal did not cross the street because it was tired", 9);
  for (float rho : {0.5f, 1.0f, 1.5f}) {
    for (bool linear : {false, true}) {
      RnnState state;
      state.radius = rho;
      state.linear = linear;
      state.hidden = 8;
      state.target = 9;
      RnnModel m;
      ASSERT_TRUE(ComputeRnn(s, state, &m).ok());
      ASSERT_EQ(m.rnn_error, "");
      EXPECT_NEAR(m.radius, rho, 1e-5 * rho);
      const Matrix rnn_fd = FiniteDifferenceNorms(s.x, 9, [&](const Matrix& x) {
        ElmanRnnResult r;
        EXPECT_TRUE(ElmanRnn(m.rnn, x, &r).ok());
        return r.hidden;
      });
      EXPECT_TRUE(attn::testing::AllClose(m.rnn_gradient, rnn_fd, 1e-3, 2e-4)) << "ρ = " << rho << " linear " << linear;
      EXPECT_EQ(m.rnn_gradient(10, 0), 0.0f) << "the RNN has not read word 10 when it reaches word 9";
      const Matrix attention_fd = FiniteDifferenceNorms(s.x, 9, [&](const Matrix& x) {
        Matrix y;
        attn::AttentionInputs inputs;
        inputs.query = x;
        EXPECT_TRUE(attn::ForwardOutput(m.attention_config, inputs, m.attention, &y).ok());
        return y;
      });
      EXPECT_TRUE(attn::testing::AllClose(m.attention_gradient, attention_fd, 1e-3, 2e-4)) << "ρ = " << rho;
      EXPECT_GT(m.attention_gradient(10, 0), 0.0f) << "attention reads every word";
    }
  }
}

TEST(RnnView, SpectralRadiusDecidesVanishingOrGrowth) {
  const Sentence s = GloveSentence();
  RnnState state;
  state.source = 0;  // from the first word to the last: 11 steps
  float ratio[3][2];
  int k = 0;
  for (float rho : {0.5f, 1.0f, 1.5f}) {
    for (bool linear : {false, true}) {
      state.radius = rho;
      state.linear = linear;
      RnnModel m;
      ASSERT_TRUE(ComputeRnn(s, state, &m).ok());
      ratio[k][linear] = m.rnn_ratio;
      std::printf("ρ = %.1f %s: ‖∂h_n/∂x_1‖/‖∂h_n/∂x_n‖ = %.3g (attention %.3g)\n", rho, linear ? "linear" : "tanh  ",
                  m.rnn_ratio, m.attention_ratio);
      // Attention's gradient does not fade with distance: every word within a factor 10 of the last.
      EXPECT_GT(m.attention_ratio, 0.1f);
    }
    ++k;
  }
  EXPECT_LT(ratio[0][0], 1e-3f) << "ρ = 0.5 vanishes over 11 steps (0.5^11 ≈ 5e-4, tanh only shrinks it more)";
  EXPECT_LT(ratio[0][0], ratio[1][0]);
  EXPECT_LT(ratio[1][1], ratio[2][1]);
  EXPECT_GT(ratio[2][1], 1.0f) << "a linear RNN with ρ = 1.5 grows with distance";
  EXPECT_LT(ratio[2][0], ratio[2][1]) << "tanh saturates: the gradient grows less than the linear RNN's";
}

TEST(RnnView, ALinearRnnThatOverflowsSaysSo) {
  std::string text;
  for (int t = 0; t < 200; ++t) text += "word ";
  const Sentence s = Hashed(text, 16);
  RnnState state;
  state.radius = 2.0f;
  state.linear = true;
  RnnModel m;
  ASSERT_TRUE(ComputeRnn(s, state, &m).ok());
  EXPECT_NE(m.rnn_error.find("overflowed"), std::string::npos) << m.rnn_error;
  EXPECT_TRUE(m.hidden.size() == 0);
  EXPECT_TRUE(m.attention_gradient.allFinite());
  state.linear = false;  // tanh keeps it finite
  ASSERT_TRUE(ComputeRnn(s, state, &m).ok());
  EXPECT_EQ(m.rnn_error, "");
  EXPECT_TRUE(m.rnn_gradient.allFinite());
}

TEST(RnnView, AttentionOverHiddenStatesForEveryLayer) {
  const Sentence s = GloveSentence();
  const int n = 12;
  for (int layer = 0; layer < 3; ++layer) {
    RnnState state;
    state.layer = layer;
    state.hidden = 6;
    RnnCombinationModel c;
    ASSERT_TRUE(ComputeRnnCombination(s, state, &c).ok());
    const SequenceAttentionResult& r = c.stages;
    ASSERT_EQ(r.hidden.rows(), n);
    ASSERT_EQ(r.hidden.cols(), 6);
    ASSERT_EQ(r.weights.rows(), n);
    ASSERT_EQ(r.combined.cols(), 12);
    ASSERT_EQ(c.next.rows(), n);
    ASSERT_EQ(c.next.cols(), 6);
    for (int i = 0; i < n; ++i) EXPECT_NEAR(r.weights.row(i).sum(), 1.0f, n * kEps);
    // c_i = Σ_j a_ij h_j, and [h_i; c_i] side by side.
    EXPECT_TRUE(attn::testing::AllClose(r.context, r.weights * r.hidden, 0, 16 * n * kEps));
    EXPECT_TRUE(attn::testing::AllClose(r.combined.leftCols(6), r.hidden, 0, 0));
    EXPECT_TRUE(attn::testing::AllClose(r.combined.rightCols(6), r.context, 0, 0));
    if (layer == 0) {  // the first layer is the RNN of the gradient part
      RnnModel m;
      ASSERT_TRUE(ComputeRnn(s, state, &m).ok());
      EXPECT_TRUE(attn::testing::AllClose(r.hidden, m.hidden, 0, 0));
      EXPECT_EQ(c.next_w_hh.rows(), 6);
    }
    if (layer == 1) EXPECT_EQ(c.next_w.rows(), 3 * 12);
    if (layer == 2) {  // the next layer, by hand: tanh([H; C] W)
      const Matrix expected = (r.combined * c.next_w).array().tanh().matrix();
      EXPECT_TRUE(attn::testing::AllClose(c.next, expected, 0, 24 * kEps));
    }
  }
  RnnState bad;
  bad.layer = 3;
  RnnCombinationModel c;
  EXPECT_EQ(ComputeRnnCombination(s, bad, &c).code(), StatusCode::kUnknownOption);
}

TEST(RnnView, OperationCountsAndTimedLayers) {
  EXPECT_EQ(RnnSpeedLab::RnnFlops(16), 16.0 * (2 * 64 * 64 + 2 * 64 * 64));
  EXPECT_EQ(RnnSpeedLab::AttentionFlops(16), 2.0 * 16 * 64 * 64 * 4 + 4.0 * 16 * 16 * 64);
  EXPECT_EQ(RnnSpeedLab::RnnSteps(4096), 4096);
  EXPECT_EQ(RnnSpeedLab::AttentionSteps(4096), 1);
  EXPECT_TRUE(attn::FusedKernelCovers(RnnSpeedLab::AttentionLayer(), attn::AttentionInputs()) ||
              attn::FastestKernel() == attn::KernelId::kEigen);
  RnnSpeedLab lab;
  for (int n : {16, 256}) {
    double rnn = 0, attention = 0;
    ASSERT_TRUE(lab.TimeRnn(n, 1.0, &rnn).ok());
    ASSERT_TRUE(lab.TimeAttention(n, 1.0, &attention).ok());
    EXPECT_GT(rnn, 0);
    EXPECT_GT(attention, 0);
  }
}

TEST(RnnView, StateRoundTrips) {
  ViewState s;
  s.view = ViewId::kRnn;
  s.rnn.target = 8;
  s.rnn.source = 1;
  s.rnn.radius = 1.5f;
  s.rnn.linear = true;
  s.rnn.hidden = 32;
  s.rnn.seed = 7;
  s.rnn.layer = 2;
  const std::string text = SerializeState(s);
  EXPECT_EQ(text, "v=rnn&rn.i=8&rn.rho=1.5&rn.lin=1&rn.dh=32&rn.s=7&rn.L=fully_connected");
  ViewState back;
  ASSERT_TRUE(ParseState(text, &back).ok()) << text;
  EXPECT_EQ(SerializeState(back), text);
  EXPECT_EQ(back.rnn.radius, 1.5f);
  EXPECT_EQ(back.rnn.layer, 2);
  const Status clamped = ParseState("rn.rho=9&rn.dh=1", &back);
  EXPECT_EQ(clamped.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(back.rnn.radius, 2.0f);
  EXPECT_EQ(back.rnn.hidden, 2);
}

}  // namespace
}  // namespace lessons
