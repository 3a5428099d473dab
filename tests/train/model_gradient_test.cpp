// Gradient checks of the training models: for every parameter of every layer type (embedding,
// learned / sinusoidal / RoPE positions, LayerNorm, the engine's attention, ReLU MLP, read-out,
// convolution causal and centred, ReLU, running max, cross-entropy), the double-precision backward
// pass against central finite differences of the double forward pass; then the float backward
// (the engine's checked API) against the double one.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "attn/seeded_random.h"
#include "attn/train/model.h"
#include "support/expect_close.h"
#include "train/gradient_checks.h"

namespace attn::train {
namespace {

using attn::testing::AllClose;

struct GradientCase {
  const char* name;
  ModelConfig config;
};

ModelConfig Small(ModelKind kind) {
  ModelConfig c;
  c.kind = kind;
  c.vocab = 5;
  c.classes = 4;
  c.seq_len = 5;
  c.d_model = 4;
  c.layers = 2;
  c.heads = 2;
  c.seed = 7;
  return c;
}

std::vector<GradientCase> Cases() {
  std::vector<GradientCase> cases;
  auto add = [&](const char* name, ModelConfig c) { cases.push_back({name, c}); };
  ModelConfig t = Small(ModelKind::kTransformer);
  add("transformer_learned_ln_mlp", t);
  t.positions = Positions::kSinusoidal;
  t.causal = false;
  add("transformer_sinusoidal_bidirectional", t);
  t = Small(ModelKind::kTransformer);
  t.positions = Positions::kRope;
  t.layers = 3;
  t.heads = 1;
  add("transformer_rope_three_layers_one_head", t);
  t = Small(ModelKind::kTransformer);
  t.positions = Positions::kNone;
  t.layer_norm = false;
  t.mlp = false;
  t.layers = 1;
  t.heads = 4;
  add("transformer_bare_attention_four_heads", t);
  t = Small(ModelKind::kTransformer);
  t.heads = 3;
  t.head_dim = 2;
  t.positions = Positions::kRope;
  t.causal = false;
  add("transformer_three_heads_of_width_two_rope_bidirectional", t);
  t = Small(ModelKind::kTransformer);
  t.layer_norm = false;
  t.train_embedding = false;
  add("transformer_mlp_no_layer_norm_fixed_embedding", t);
  t = Small(ModelKind::kTransformer);
  t.scaled = false;
  add("transformer_unscaled_scores", t);
  t = Small(ModelKind::kTransformer);
  t.sparsemax = true;  // piecewise linear: the checks' small steps stay on one piece
  t.positions = Positions::kRope;
  add("transformer_sparsemax_rope", t);
  ModelConfig c = Small(ModelKind::kCnn);
  add("cnn_causal", c);
  c.causal = false;
  c.kernel_size = 4;
  c.pooled = true;
  add("cnn_centred_even_kernel_pooled", c);
  c = Small(ModelKind::kCnn);
  c.layers = 3;
  c.kernel_size = 1;
  c.pooled = true;
  add("cnn_pointwise_pooled", c);
  return cases;
}

// Two sequences; some positions unscored, one weighted 2.
Batch SmallBatch(const ModelConfig& c) {
  return testing::RandomBatch(c.seq_len, c.vocab, c.classes, [](int r) { return r % 3 == 0 ? 0.0f : (r == 4 ? 2.0f : 1.0f); });
}

class ModelGradientTest : public ::testing::TestWithParam<size_t> {};

TEST_P(ModelGradientTest, DoubleBackwardMatchesFiniteDifferencesForEveryParameter) {
  const GradientCase gc = Cases().at(GetParam());
  const ModelConfig& c = gc.config;
  const Batch batch = SmallBatch(c);
  ModelParametersD params = testing::Perturbed(InitializeModel(c));
  ActivationsD acts;
  ASSERT_TRUE(ModelForward(c, params, batch, &acts).ok());
  ModelParametersD grads;
  ASSERT_TRUE(ModelBackward(c, params, batch, acts, &grads).ok());
  const auto loss = [&] {
    ActivationsD a;
    EXPECT_TRUE(ModelForward(c, params, batch, &a).ok());
    return a.loss;
  };
  int checked = 0;
  ForEachParameterPair(params, grads, [&](const std::string& name, MatrixD& theta, const MatrixD& analytic) {
    if (name == "wte" && !c.train_embedding) {
      EXPECT_EQ(analytic.size(), 0) << "a fixed embedding table has no gradient";
      return;
    }
    EXPECT_TRUE(AllClose(analytic, testing::NumericGradient(&theta, loss), 1e-5, 1e-7)) << gc.name << ": " << name;
    EXPECT_GT(analytic.norm(), 0) << gc.name << ": " << name << " gets no gradient at all";
    ++checked;
  });
  EXPECT_GE(checked, 4);
}

TEST_P(ModelGradientTest, FloatBackwardMatchesDouble) {
  const GradientCase gc = Cases().at(GetParam());
  const ModelConfig& c = gc.config;
  const Batch batch = SmallBatch(c);
  const ModelParameters params = InitializeModel(c);
  Activations acts;
  ASSERT_TRUE(ModelForward(c, params, batch, &acts).ok());
  ModelParameters grads;
  ASSERT_TRUE(ModelBackward(c, params, batch, acts, &grads).ok());
  const ModelParametersD params_d = ToDouble(params);
  ActivationsD acts_d;
  ASSERT_TRUE(ModelForward(c, params_d, batch, &acts_d).ok());
  ModelParametersD want;
  ASSERT_TRUE(ModelBackward(c, params_d, batch, acts_d, &want).ok());
  EXPECT_NEAR(acts.loss, acts_d.loss, 1e-5 * (1 + acts_d.loss));
  testing::ExpectFloatGradientsMatch(grads, want, gc.name);
}

INSTANTIATE_TEST_SUITE_P(Cases, ModelGradientTest, ::testing::Range<size_t>(0, Cases().size()),
                         [](const ::testing::TestParamInfo<size_t>& info) { return std::string(Cases()[info.param].name); });

TEST(ModelForward, RejectsBadBatchesWithClearMessages) {
  const ModelConfig c = Small(ModelKind::kTransformer);
  const ModelParameters params = InitializeModel(c);
  Activations acts;
  Batch b = SmallBatch(c);
  b.ids.pop_back();
  Status s = ModelForward(c, params, b, &acts);
  EXPECT_EQ(s.code(), StatusCode::kShapeMismatch);
  EXPECT_NE(s.message().find("ids: expected 10 entries (B·T), got 9"), std::string::npos) << s.message();
  b = SmallBatch(c);
  b.ids[3] = 99;
  s = ModelForward(c, params, b, &acts);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_NE(s.message().find("ids[3]"), std::string::npos) << s.message();
  b = SmallBatch(c);
  b.weights[1] = -1;
  EXPECT_EQ(ModelForward(c, params, b, &acts).code(), StatusCode::kOutOfRange);
}

TEST(ModelForward, RejectsBadConfigs) {
  ModelConfig c = Small(ModelKind::kTransformer);
  c.heads = 3;  // does not divide 4
  EXPECT_EQ(ValidateModelConfig(c).code(), StatusCode::kShapeMismatch);
  c.head_dim = 2;  // unless the head width is given
  EXPECT_TRUE(ValidateModelConfig(c).ok());
  c.heads = 9;
  EXPECT_EQ(ValidateModelConfig(c).code(), StatusCode::kOutOfRange);
  c = Small(ModelKind::kTransformer);
  c.layers = 4;
  EXPECT_EQ(ValidateModelConfig(c).code(), StatusCode::kOutOfRange);
  c = Small(ModelKind::kTransformer);
  c.positions = Positions::kRope;
  c.d_model = 6;
  c.heads = 2;  // head width 3 is odd
  EXPECT_EQ(ValidateModelConfig(c).code(), StatusCode::kShapeMismatch);
  c = Small(ModelKind::kCnn);
  c.kernel_size = 0;
  EXPECT_EQ(ValidateModelConfig(c).code(), StatusCode::kOutOfRange);
}

TEST(ModelForward, NonFiniteParametersGiveAStatusNotNaN) {
  const ModelConfig c = Small(ModelKind::kTransformer);
  ModelParameters params = InitializeModel(c);
  params.out_w(0, 0) = std::numeric_limits<float>::infinity();
  Activations acts;
  EXPECT_EQ(ModelForward(c, params, SmallBatch(c), &acts).code(), StatusCode::kNonFinite);
}

}  // namespace
}  // namespace attn::train
