// The backward pass: the float64 reference against central finite differences of the float64
// forward pass, then the float32 engine (both kernels) against the float64 backward pass.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "attn/grad.h"
#include "attn/reference.h"
#include "support/attention_cases.h"
#include "support/random.h"

namespace attn {
namespace {

using testing::AllClose;
using testing::CloseToReference;
using testing::CompletedParameters;
using testing::RandomMatrix;

struct GradientCase {
  const char* name;
  AttentionConfig config;
  AttentionInputs inputs;
};

AttentionConfig Projected(int heads, int kv_heads, int head_dim) {
  AttentionConfig c;
  c.project_inputs = c.project_output = c.use_bias = true;
  c.num_heads = heads;
  c.num_kv_heads = kv_heads;
  c.head_dim = head_dim;
  c.seed = 5;
  return c;
}

std::vector<GradientCase> Cases() {
  std::vector<GradientCase> cases;
  const int n = 4, d = 6;
  {
    GradientCase c{"softmax_projections_causal", Projected(2, 0, 3), {}};
    c.config.causal = true;
    c.inputs.query = RandomMatrix(n, d, 1, -1, 1);
    c.inputs.float_mask = {RandomMatrix(n, n, 2, -1, 1), RandomMatrix(n, n, 3, -1, 1)};
    cases.push_back(c);
  }
  {
    GradientCase c{"gqa_rope_softcap_window_cache", Projected(4, 2, 2), {}};
    c.config.position = PositionEncoding::kRope;
    c.config.softcap = 1.5f;
    c.config.window_left = 2;
    c.config.causal = true;
    c.config.temperature = 0.7f;
    c.config.value_head_dim = 3;
    c.inputs.query = RandomMatrix(n, d, 4, -1, 1);
    c.inputs.past_key = {RandomMatrix(2, 2, 5), RandomMatrix(2, 2, 6)};
    c.inputs.past_value = {RandomMatrix(2, 3, 7), RandomMatrix(2, 3, 8)};
    c.inputs.float_mask = {RandomMatrix(n, n + 2, 9, -1, 1)};
    cases.push_back(c);
  }
  {
    GradientCase c{"cross_attention_sparsemax_dot", Projected(2, 1, 3), {}};
    c.config.normalizer = Normalizer::kSparsemax;
    c.config.score = ScoreFunction::kDot;
    c.config.position = PositionEncoding::kAlibi;
    c.inputs.query = RandomMatrix(3, d, 10, -1, 1);
    c.inputs.key = RandomMatrix(5, 4, 11, -1, 1);
    c.inputs.value = RandomMatrix(5, 7, 12, -1, 1);
    c.inputs.float_mask = {RandomMatrix(3, 5, 13, -1, 1)};
    cases.push_back(c);
  }
  for (Normalizer norm : {Normalizer::kReluNormalized, Normalizer::kSigmoid, Normalizer::kNone}) {
    GradientCase c{"parameter_free_other_normalizers", AttentionConfig(), {}};
    c.config.normalizer = norm;
    c.config.position = PositionEncoding::kSinusoidal;
    c.inputs.query = RandomMatrix(n, d, 14, -1, 1);
    c.inputs.float_mask = {RandomMatrix(n, n, 15, -0.5f, 0.5f)};
    cases.push_back(c);
  }
  {
    GradientCase c{"softcap_after_mask_quadratic", Projected(3, 0, 2), {}};
    c.config.softcap = 1.0f;
    c.config.softcap_order = SoftcapOrder::kAfterMask;
    c.config.position = PositionEncoding::kQuadraticRelative;
    c.inputs.query = RandomMatrix(n, d, 16, -1, 1);
    c.inputs.key = RandomMatrix(n + 1, d, 17, -1, 1);  // value = key
    cases.push_back(c);
  }
  for (ScoreFunction score : {ScoreFunction::kBilinear, ScoreFunction::kCosine, ScoreFunction::kAdditive,
                              ScoreFunction::kAdditiveConcat}) {
    GradientCase c{"other_score_functions", Projected(2, 0, 3), {}};
    c.config.score = score;
    c.config.additive_dim = 4;
    c.config.causal = true;
    c.inputs.query = RandomMatrix(n, d, 18, -1, 1);
    c.inputs.float_mask = {RandomMatrix(n, n, 19, -1, 1)};
    cases.push_back(c);
  }
  return cases;
}

// L = Σ output ⊙ upstream, in double precision.
double Loss(const AttentionConfig& config, const AttentionInputsD& in, const AttentionParametersD& params,
            const MatrixD& upstream) {
  AttentionResultD r;
  reference::Forward(config, in, params, &r);
  return (r.output.array() * upstream.array()).sum();
}

// Central differences of `loss` with respect to every element of *target.
MatrixD NumericGradient(MatrixD* target, const std::function<double()>& loss) {
  const double h = 1e-6;
  MatrixD grad(target->rows(), target->cols());
  for (Eigen::Index i = 0; i < target->size(); ++i) {
    const double saved = target->data()[i];
    target->data()[i] = saved + h;
    const double up = loss();
    target->data()[i] = saved - h;
    const double down = loss();
    target->data()[i] = saved;
    grad.data()[i] = (up - down) / (2 * h);
  }
  return grad;
}

class GradientTest : public ::testing::TestWithParam<size_t> {};

TEST_P(GradientTest, ReferenceBackwardMatchesFiniteDifferences) {
  const GradientCase c = Cases().at(GetParam());
  SCOPED_TRACE(c.name);
  AttentionInputsD in = reference::ToDouble(c.inputs);
  AttentionParametersD params = reference::ToDouble(CompletedParameters(c.config, c.inputs));
  AttentionResultD fwd;
  reference::Forward(c.config, in, params, &fwd);
  const MatrixD upstream = RandomMatrix(fwd.output.rows(), fwd.output.cols(), 99).cast<double>();
  AttentionGradientsD grad;
  reference::Backward(c.config, in, params, fwd, upstream, &grad);
  const auto loss = [&] { return Loss(c.config, in, params, upstream); };

  auto expect_matches = [&](const char* what, const MatrixD& analytic, MatrixD* target) {
    if (target->size() == 0) return;
    ASSERT_EQ(analytic.rows(), target->rows()) << what;
    EXPECT_TRUE(AllClose(analytic, NumericGradient(target, loss), 1e-5, 1e-7)) << what;
  };
  // Unused inputs and parameters are empty and skipped.
  const std::vector<std::tuple<const char*, const MatrixD*, MatrixD*>> checks = {
      {"d_query", &grad.d_query, &in.query}, {"d_key", &grad.d_key, &in.key}, {"d_value", &grad.d_value, &in.value},
      {"d_wq", &grad.d_wq, &params.wq},      {"d_wk", &grad.d_wk, &params.wk}, {"d_wv", &grad.d_wv, &params.wv},
      {"d_wo", &grad.d_wo, &params.wo},      {"d_bq", &grad.d_bq, &params.bq}, {"d_bk", &grad.d_bk, &params.bk},
      {"d_bv", &grad.d_bv, &params.bv},      {"d_bo", &grad.d_bo, &params.bo},
  };
  for (const auto& [what, analytic, target] : checks) expect_matches(what, *analytic, target);
  // The float mask is added to the scores after softcap, so ∂L/∂mask = ∂L/∂scores.
  if (c.config.softcap_order == SoftcapOrder::kBeforeMask) {
    for (size_t m = 0; m < in.float_mask.size(); ++m) {
      MatrixD d_mask = MatrixD::Zero(grad.d_scores[0].rows(), grad.d_scores[0].cols());
      for (size_t h = 0; h < grad.d_scores.size(); ++h)
        if (in.float_mask.size() == 1 || h == m) d_mask += grad.d_scores[h];
      expect_matches("d_scores (via the float mask)", d_mask, &in.float_mask[m]);
    }
  }
}

TEST_P(GradientTest, Float32BackwardMatchesFloat64ReferenceForEveryKernel) {
  const GradientCase c = Cases().at(GetParam());
  SCOPED_TRACE(c.name);
  const AttentionParameters params = CompletedParameters(c.config, c.inputs);
  const AttentionInputsD in = reference::ToDouble(c.inputs);
  const AttentionParametersD params_d = reference::ToDouble(params);
  AttentionResultD fwd;
  reference::Forward(c.config, in, params_d, &fwd);
  const Matrix upstream = RandomMatrix(fwd.output.rows(), fwd.output.cols(), 98);
  AttentionGradientsD want;
  reference::Backward(c.config, in, params_d, fwd, upstream.cast<double>(), &want);
  for (KernelId kernel : AvailableKernels()) {
    AttentionConfig config = c.config;
    config.kernel = kernel;
    AttentionGradients got;
    const Status status = Backward(config, c.inputs, params, upstream, &got);
    ASSERT_TRUE(status.ok()) << status.ToString();
    SCOPED_TRACE(KernelName(kernel));
    EXPECT_TRUE(CloseToReference(got.d_query, want.d_query));
    EXPECT_TRUE(CloseToReference(got.d_key, want.d_key));
    EXPECT_TRUE(CloseToReference(got.d_value, want.d_value));
    EXPECT_TRUE(CloseToReference(got.d_wq, want.d_wq));
    EXPECT_TRUE(CloseToReference(got.d_wk, want.d_wk));
    EXPECT_TRUE(CloseToReference(got.d_wv, want.d_wv));
    EXPECT_TRUE(CloseToReference(got.d_wo, want.d_wo));
    for (size_t h = 0; h < want.d_scores.size(); ++h) EXPECT_TRUE(CloseToReference(got.d_scores[h], want.d_scores[h]));
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, GradientTest, ::testing::Range<size_t>(0, Cases().size()),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           return std::string(Cases()[info.param].name) + "_" + std::to_string(info.param);
                         });

TEST(Backward, RejectsWrongUpstreamShape) {
  AttentionConfig c;
  AttentionInputs in;
  in.query = RandomMatrix(3, 4, 1);
  AttentionGradients grad;
  const Status s = Backward(c, in, {}, Matrix::Ones(3, 5), &grad);
  EXPECT_EQ(s.code(), StatusCode::kShapeMismatch);
  EXPECT_NE(s.message().find("d_output: expected (3, 4)"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace attn
