// Gradient checks of the language model (attn/train/lm_model.h), in double against central finite
// differences: each layer it uses on its own (LayerNorm, GELU, the GELU MLP, the tied embedding and
// unembedding, softmax cross-entropy over a vocabulary of 300), then the whole model on a tiny config
// with learned positions and with RoPE; then the float backward (the engine's checked attention)
// against the double one. Each check prints its largest error, for the record.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "attn/seeded_random.h"
#include "attn/train/lm_layers.h"
#include "attn/train/lm_model.h"
#include "support/expect_close.h"
#include "train/gradient_checks.h"

namespace attn::train {
namespace {

using attn::testing::AllClose;
using testing::NumericGradient;

MatrixD Random(uint32_t stream, Eigen::Index rows, Eigen::Index cols, double scale = 1.0) {
  SeededRandom rng(21, stream);
  MatrixD m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = scale * rng.Normal();
  return m;
}

// Analytic against numeric (to testing::NumericGradient's tolerance), printing the largest error.
void ExpectGradient(const std::string& what, const MatrixD& analytic, const MatrixD& numeric) {
  EXPECT_TRUE(AllClose(analytic, numeric, 1e-5, 1e-7)) << what;
  EXPECT_GT(analytic.norm(), 0) << what << " gets no gradient at all";
  std::printf("[ gradient ] %-34s max |analytic - numeric| %.2e (max |gradient| %.2e)\n", what.c_str(),
              (analytic - numeric).cwiseAbs().maxCoeff(), numeric.cwiseAbs().maxCoeff());
}

// A layer's scalar loss: Σ G ⊙ y with a fixed random G, so d_y = G.
double Project(const MatrixD& y, const MatrixD& g) { return (y.array() * g.array()).sum(); }

TEST(LmLayerGradient, LayerNorm) {
  MatrixD x = Random(1, 5, 6), gamma = Random(2, 1, 6), beta = Random(3, 1, 6);
  const MatrixD g = Random(4, 5, 6);
  const auto loss = [&] {
    MatrixD y;
    std::vector<double> mean, rstd;
    LayerNormForward<double>(x, gamma, beta, &y, &mean, &rstd);
    return Project(y, g);
  };
  MatrixD y, d_x, d_gamma = MatrixD::Zero(1, 6), d_beta = MatrixD::Zero(1, 6);
  std::vector<double> mean, rstd;
  LayerNormForward<double>(x, gamma, beta, &y, &mean, &rstd);
  LayerNormBackward<double>(x, gamma, mean, rstd, g, &d_x, &d_gamma, &d_beta);
  ExpectGradient("layer norm: x", d_x, NumericGradient(&x, loss));
  ExpectGradient("layer norm: gamma", d_gamma, NumericGradient(&gamma, loss));
  ExpectGradient("layer norm: beta", d_beta, NumericGradient(&beta, loss));
}

// A GELU form's backward against finite differences over values to ±9 (both tails and the bend),
// and its values at ±1 against the reference's.
template <typename Forward, typename Backward>
void CheckGelu(const std::string& name, Forward forward, Backward backward, double at_one, double at_minus_one) {
  MatrixD x = Random(5, 4, 6, 3.0);
  const MatrixD g = Random(6, 4, 6);
  const auto loss = [&] {
    MatrixD y;
    forward(x, &y);
    return Project(y, g);
  };
  MatrixD d_x;
  backward(x, g, &d_x);
  ExpectGradient(name + ": x", d_x, NumericGradient(&x, loss));
  MatrixD y, probe(1, 2);
  probe << 1.0, -1.0;
  forward(probe, &y);
  EXPECT_NEAR(y(0, 0), at_one, 1e-9) << name;
  EXPECT_NEAR(y(0, 1), at_minus_one, 1e-9) << name;
}

// GPT-2's tanh form: GELU(1) = 0.841192, GELU(−1) = −0.158808.
TEST(LmLayerGradient, GeluOverItsWholeRange) {
  CheckGelu("gelu", GeluForward<double>, GeluBackward<double>, 0.8411919906, -0.1588080094);
}

// The exact form (Hugging Face's "gelu", PyTorch's nn.GELU()): x Φ(x), its backward Φ(x) + x φ(x);
// Φ(1) = 0.8413447461.
TEST(LmLayerGradient, GeluErfOverItsWholeRange) {
  CheckGelu("gelu (erf)", GeluErfForward<double>, GeluErfBackward<double>, 0.8413447461, -0.1586552539);
}

TEST(LmLayerGradient, GeluMlp) {
  MatrixD x = Random(7, 5, 3), fc_w = Random(8, 3, 12, 0.5), fc_b = Random(9, 1, 12, 0.5),
          proj_w = Random(10, 12, 3, 0.5), proj_b = Random(11, 1, 3);
  const MatrixD g = Random(12, 5, 3);
  const auto loss = [&] {
    MatrixD fc, gelu, y;
    GeluMlpForward<double>(x, fc_w, fc_b, proj_w, proj_b, &fc, &gelu, &y);
    return Project(y, g);
  };
  MatrixD fc, gelu, y, d_x;
  MatrixD d_fc_w = MatrixD::Zero(3, 12), d_fc_b = MatrixD::Zero(1, 12), d_proj_w = MatrixD::Zero(12, 3),
          d_proj_b = MatrixD::Zero(1, 3);
  GeluMlpForward<double>(x, fc_w, fc_b, proj_w, proj_b, &fc, &gelu, &y);
  GeluMlpBackward<double>(x, fc_w, proj_w, fc, gelu, g, &d_x, &d_fc_w, &d_fc_b, &d_proj_w, &d_proj_b);
  ExpectGradient("gelu mlp: x", d_x, NumericGradient(&x, loss));
  ExpectGradient("gelu mlp: fc_w", d_fc_w, NumericGradient(&fc_w, loss));
  ExpectGradient("gelu mlp: fc_b", d_fc_b, NumericGradient(&fc_b, loss));
  ExpectGradient("gelu mlp: proj_w", d_proj_w, NumericGradient(&proj_w, loss));
  ExpectGradient("gelu mlp: proj_b", d_proj_b, NumericGradient(&proj_b, loss));
}

// The table used twice, as the model uses it: x = wte[ids], logits = tanh(x) wteᵀ + b (tanh stands
// for the blocks between), cross-entropy over V = 300. wte's gradient is both uses' sum.
TEST(LmLayerGradient, TiedEmbeddingUnembeddingAndLargeVocabularyCrossEntropy) {
  const int vocab = 300, d = 4;
  MatrixD wte = Random(13, vocab, d, 0.5), b = Random(14, 1, vocab, 0.5);
  const std::vector<int> ids = {3, 299, 3, 17, 0}, targets = {17, 3, 250, 299, 3};
  const std::vector<float> weights = {1, 1, 0, 2, 1};  // one row unscored, one weighted 2
  const auto forward = [&](MatrixD* x, MatrixD* h, MatrixD* logits, MatrixD* probs) {
    EmbeddingForward<double>(ids, 5, wte, MatrixD(), x);
    *h = x->array().tanh().matrix();
    TiedUnembedForward<double>(*h, wte, b, logits);
    int correct = 0, scored = 0;
    return CrossEntropyForward<double>(*logits, targets, weights, probs, &correct, &scored);
  };
  const auto loss = [&] {
    MatrixD x, h, logits, probs;
    return forward(&x, &h, &logits, &probs);
  };
  MatrixD x, h, logits, probs, d_logits, d_h, d_wpe;
  forward(&x, &h, &logits, &probs);
  MatrixD d_wte = MatrixD::Zero(vocab, d), d_b = MatrixD::Zero(1, vocab);
  CrossEntropyBackward<double>(probs, targets, weights, &d_logits);
  TiedUnembedBackward<double>(h, wte, d_logits, &d_h, &d_wte, &d_b);
  const MatrixD d_x = (d_h.array() * (1 - h.array().square())).matrix();
  EmbeddingBackward<double>(ids, 5, d_x, &d_wte, &d_wpe);
  ExpectGradient("tied embedding + output: wte", d_wte, NumericGradient(&wte, loss));
  ExpectGradient("output bias (V = 300)", d_b, NumericGradient(&b, loss));
  ExpectGradient("cross-entropy: logits", d_logits, NumericGradient(&logits, [&] {
                   MatrixD p;
                   int correct = 0, scored = 0;
                   return CrossEntropyForward<double>(logits, targets, weights, &p, &correct, &scored);
                 }));
}

// [SECTION] The whole model
LmConfig Tiny(Positions positions) {
  LmConfig c;
  c.vocab = 7;
  c.seq_len = 5;
  c.d_model = 4;
  c.layers = 2;
  c.heads = 2;
  c.positions = positions;
  c.seed = 7;
  return c;
}

// Two sequences of the next word; one position unscored.
Batch TinyBatch(const LmConfig& c) {
  return testing::RandomBatch(c.seq_len, c.vocab, c.vocab, [](int r) { return r == 3 ? 0.0f : 1.0f; });
}

class LmModelGradientTest : public ::testing::TestWithParam<Positions> {};

TEST_P(LmModelGradientTest, DoubleBackwardMatchesFiniteDifferencesForEveryParameter) {
  const LmConfig c = Tiny(GetParam());
  const Batch batch = TinyBatch(c);
  ModelParametersD params = testing::Perturbed(InitializeLm(c));
  LmActivationsD acts;
  ASSERT_TRUE(LmForward(c, params, batch, &acts).ok());
  ModelParametersD grads;
  ASSERT_TRUE(LmBackward(c, params, batch, acts, &grads).ok());
  const auto loss = [&] {
    LmActivationsD a;
    EXPECT_TRUE(LmForward(c, params, batch, &a).ok());
    return a.loss;
  };
  const std::string model = GetParam() == Positions::kRope ? "rope " : "learned ";
  int checked = 0;
  ForEachParameterPair(params, grads, [&](const std::string& name, MatrixD& theta, const MatrixD& analytic) {
    ExpectGradient(model + name, analytic, NumericGradient(&theta, loss));
    ++checked;
  });
  EXPECT_EQ(checked, (GetParam() == Positions::kRope ? 1 : 2) + 16 * c.layers + 3);
  EXPECT_EQ(grads.out_w.size(), 0) << "the output is wte: no matrix of its own";
}

// Float on every kernel the training can run its products and attention on (LmConfig::kernel), at a
// width and vocabulary below and above every SIMD width, against the double pass.
TEST_P(LmModelGradientTest, FloatBackwardMatchesDoubleOnEveryKernel) {
  int checked = 0;
  for (KernelId kernel : AvailableKernels()) {
    for (int width : {8, 40}) {
      LmConfig c = Tiny(GetParam());
      c.d_model = width;
      c.vocab = 50;
      c.kernel = kernel;
      const Batch batch = TinyBatch(c);
      const ModelParameters params = InitializeLm(c);
      LmActivations acts;
      ASSERT_TRUE(LmForward(c, params, batch, &acts).ok()) << KernelName(kernel);
      ModelParameters grads;
      ASSERT_TRUE(LmBackward(c, params, batch, acts, &grads).ok()) << KernelName(kernel);
      const ModelParametersD params_d = ToDouble(params);
      LmActivationsD acts_d;
      ASSERT_TRUE(LmForward(c, params_d, batch, &acts_d).ok());
      ModelParametersD want;
      ASSERT_TRUE(LmBackward(c, params_d, batch, acts_d, &want).ok());
      EXPECT_NEAR(acts.loss, acts_d.loss, 1e-5 * (1 + acts_d.loss)) << KernelName(kernel);
      testing::ExpectFloatGradientsMatch(grads, want, std::string("lm on ") + KernelName(kernel) + ", d_model " +
                                                          std::to_string(width));
      ++checked;
    }
  }
  EXPECT_EQ(checked, 2 * static_cast<int>(AvailableKernels().size()));
}

// A loaded checkpoint's settings: erf GELU and another ε, through the whole model's backward.
TEST(LmModelGradient, ErfGeluAndOtherEpsilonMatchFiniteDifferences) {
  LmConfig c = Tiny(Positions::kLearned);
  c.activation = LmActivation::kGeluErf;
  c.layer_norm_eps = 1e-3;
  const Batch batch = TinyBatch(c);
  ModelParametersD params = testing::Perturbed(InitializeLm(c));
  LmActivationsD acts;
  ASSERT_TRUE(LmForward(c, params, batch, &acts).ok());
  ModelParametersD grads;
  ASSERT_TRUE(LmBackward(c, params, batch, acts, &grads).ok());
  const auto loss = [&] {
    LmActivationsD a;
    EXPECT_TRUE(LmForward(c, params, batch, &a).ok());
    return a.loss;
  };
  ExpectGradient("erf block0.fc_w", grads.blocks[0].fc_w, NumericGradient(&params.blocks[0].fc_w, loss));
  ExpectGradient("erf block1.ln2_gamma", grads.blocks[1].ln2_gamma, NumericGradient(&params.blocks[1].ln2_gamma, loss));
  ExpectGradient("erf wte", grads.wte, NumericGradient(&params.wte, loss));
  // and the settings change the numbers (the test could fail)
  LmConfig plain = Tiny(Positions::kLearned);
  LmActivationsD b;
  ASSERT_TRUE(LmForward(plain, params, batch, &b).ok());
  EXPECT_GT(std::abs(b.loss - acts.loss), 1e-6);
}

INSTANTIATE_TEST_SUITE_P(Positions, LmModelGradientTest, ::testing::Values(Positions::kLearned, Positions::kRope),
                         [](const ::testing::TestParamInfo<Positions>& info) {
                           return std::string(info.param == Positions::kRope ? "rope" : "learned");
                         });

TEST(LmForward, RejectsBadConfigsAndBatchesWithClearMessages) {
  LmConfig c = Tiny(Positions::kLearned);
  const ModelParameters p = InitializeLm(c);
  LmActivations acts;
  Batch batch = TinyBatch(c);
  batch.ids[2] = 7;
  Status s = LmForward(c, p, batch, &acts);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_NE(s.message().find("ids[2]"), std::string::npos) << s.message();
  c.layers = 0;
  s = LmForward(c, p, TinyBatch(c), &acts);
  EXPECT_EQ(s.message(), "lm: layers: expected 1–48, got 0");
  c = Tiny(Positions::kLearned);
  c.layer_norm_eps = 0;
  EXPECT_EQ(ValidateLmConfig(c).message(), "lm: layer_norm_eps: expected in (0, 1), got 0.000000");
  // GPT-2 medium fits; GPT-2 large does not, and says what it would need (nothing is allocated).
  LmConfig big;
  big.vocab = 50257, big.seq_len = 1024, big.d_model = 1024, big.layers = 24, big.heads = 16;
  EXPECT_TRUE(ValidateLmConfig(big).ok()) << ValidateLmConfig(big).message();
  EXPECT_EQ(LmParameterCount(big), 354823168 + 50257);  // Hugging Face's count, plus our zero output bias
  big.d_model = 1280, big.layers = 36, big.heads = 20;
  EXPECT_EQ(ValidateLmConfig(big).code(), StatusCode::kResourceExhausted);
  EXPECT_NE(ValidateLmConfig(big).message().find("would need 3096"), std::string::npos) << ValidateLmConfig(big).message();
  c = Tiny(Positions::kSinusoidal);
  EXPECT_EQ(ValidateLmConfig(c).code(), StatusCode::kUnknownOption);
  c = Tiny(Positions::kLearned);
  c.heads = 3;
  EXPECT_EQ(ValidateLmConfig(c).code(), StatusCode::kShapeMismatch);
  c = Tiny(Positions::kLearned);
  c.kernel = KernelId::kCount;
  EXPECT_EQ(ValidateLmConfig(c).code(), StatusCode::kUnknownOption);
  EXPECT_NE(ValidateLmConfig(c).message().find("is not available"), std::string::npos);
  c = Tiny(Positions::kLearned);
  ModelParameters wrong = p;
  wrong.blocks.pop_back();
  s = LmForward(c, wrong, TinyBatch(c), &acts);
  EXPECT_EQ(s.message(), "lm: blocks: expected 2, got 1");
  wrong = p;
  wrong.blocks[1].fc_w.resize(4, 3);
  s = LmForward(c, wrong, TinyBatch(c), &acts);
  EXPECT_EQ(s.message(), "lm: block2.fc_w: expected (4, 16), got (4, 3)");
  ModelParameters grads;
  ASSERT_TRUE(LmForward(c, p, TinyBatch(c), &acts).ok());
  EXPECT_EQ(LmBackward(c, wrong, TinyBatch(c), acts, &grads).code(), StatusCode::kShapeMismatch);
}

}  // namespace
}  // namespace attn::train
