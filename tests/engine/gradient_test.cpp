// The backward pass: the float64 reference against central finite differences of the float64
// forward pass, then the float32 engine (both kernels) against the float64 backward pass.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <tuple>
#include <utility>
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
  {
    GradientCase c{"softcap_before_mask_quadratic_causal", Projected(3, 0, 2), {}};
    c.config.softcap = 1.5f;
    c.config.softcap_order = SoftcapOrder::kBeforeMask;
    c.config.position = PositionEncoding::kQuadraticRelative;
    c.config.causal = true;
    c.inputs.query = RandomMatrix(n, d, 20, -1, 1);
    cases.push_back(c);
  }
  {
    GradientCase c{"learned_positions_self_attention", Projected(2, 0, 3), {}};
    c.config.position = PositionEncoding::kLearned;
    c.config.max_positions = n + 3;  // rows n… are never used: their gradient must be 0
    c.config.causal = true;
    c.inputs.query = RandomMatrix(n, d, 21, -1, 1);
    cases.push_back(c);
  }
  {
    // Query rows at positions 1…3, new keys at 3…4 after 3 cached ones: row 3 gets both gradients.
    GradientCase c{"learned_positions_cross_attention_cache", Projected(2, 1, 3), {}};
    c.config.position = PositionEncoding::kLearned;
    c.config.max_positions = 8;
    c.inputs.query = RandomMatrix(3, d, 22, -1, 1);
    c.inputs.key = RandomMatrix(2, d, 23, -1, 1);
    c.inputs.value = RandomMatrix(2, 5, 24, -1, 1);
    c.inputs.past_key = {RandomMatrix(3, 3, 25)};
    c.inputs.past_value = {RandomMatrix(3, 3, 26)};
    c.inputs.query_offset = 1;
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

// Every gradient of `g` with its name, per-head lists entry by entry ("d_bilinear[1]"), in one
// fixed order, so two gradient sets can be compared whole.
template <typename T>
std::vector<std::pair<std::string, const MatrixT<T>*>> AllGradients(const AttentionGradientsT<T>& g) {
  std::vector<std::pair<std::string, const MatrixT<T>*>> all = {
      {"d_query", &g.d_query},
      {"d_key", &g.d_key},
      {"d_value", &g.d_value},
      {"d_wq", &g.d_wq},
      {"d_wk", &g.d_wk},
      {"d_wv", &g.d_wv},
      {"d_wo", &g.d_wo},
      {"d_bq", &g.d_bq},
      {"d_bk", &g.d_bk},
      {"d_bv", &g.d_bv},
      {"d_bo", &g.d_bo},
      {"d_position_table", &g.d_position_table},
      {"d_relative_center", &g.d_relative_center},
      {"d_relative_sharpness", &g.d_relative_sharpness},
  };
  const std::vector<std::pair<std::string, const std::vector<MatrixT<T>>*>> per_head = {
      {"d_bilinear", &g.d_bilinear},
      {"d_additive_wq", &g.d_additive_wq},
      {"d_additive_wk", &g.d_additive_wk},
      {"d_additive_concat", &g.d_additive_concat},
      {"d_additive_v", &g.d_additive_v},
      {"d_scores", &g.d_scores},
      {"d_weights", &g.d_weights},
  };
  for (const auto& [name, list] : per_head)
    for (size_t h = 0; h < list->size(); ++h) all.emplace_back(name + "[" + std::to_string(h) + "]", &(*list)[h]);
  return all;
}

// `close(got's, want's)` for every gradient; both sets must hold the same gradients.
template <typename A, typename B, typename Close>
void ExpectEveryGradient(const AttentionGradientsT<A>& got, const AttentionGradientsT<B>& want, Close close) {
  const auto got_all = AllGradients(got);
  const auto want_all = AllGradients(want);
  ASSERT_EQ(got_all.size(), want_all.size());
  for (size_t i = 0; i < want_all.size(); ++i) {
    ASSERT_EQ(got_all[i].first, want_all[i].first);
    EXPECT_TRUE(close(*got_all[i].second, *want_all[i].second)) << want_all[i].first;
  }
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

  // Unused inputs and parameters are empty: so must their gradients be.
  auto expect_matches = [&](const std::string& what, const MatrixD& analytic, MatrixD* target) {
    if (target->size() == 0) {
      EXPECT_EQ(analytic.size(), 0) << what << " of an unused input or parameter";
      return;
    }
    ASSERT_EQ(analytic.rows(), target->rows()) << what;
    EXPECT_TRUE(AllClose(analytic, NumericGradient(target, loss), 1e-5, 1e-7)) << what;
  };
  const std::vector<std::tuple<const char*, const MatrixD*, MatrixD*>> checks = {
      {"d_query", &grad.d_query, &in.query},
      {"d_key", &grad.d_key, &in.key},
      {"d_value", &grad.d_value, &in.value},
      {"d_wq", &grad.d_wq, &params.wq},
      {"d_wk", &grad.d_wk, &params.wk},
      {"d_wv", &grad.d_wv, &params.wv},
      {"d_wo", &grad.d_wo, &params.wo},
      {"d_bq", &grad.d_bq, &params.bq},
      {"d_bk", &grad.d_bk, &params.bk},
      {"d_bv", &grad.d_bv, &params.bv},
      {"d_bo", &grad.d_bo, &params.bo},
      {"d_position_table", &grad.d_position_table, &params.position_table},
      {"d_relative_center", &grad.d_relative_center, &params.relative_center},
      {"d_relative_sharpness", &grad.d_relative_sharpness, &params.relative_sharpness},
  };
  for (const auto& [what, analytic, target] : checks) expect_matches(what, *analytic, target);
  const std::vector<std::tuple<const char*, const std::vector<MatrixD>*, std::vector<MatrixD>*>> per_head = {
      {"d_bilinear", &grad.d_bilinear, &params.bilinear},
      {"d_additive_wq", &grad.d_additive_wq, &params.additive_wq},
      {"d_additive_wk", &grad.d_additive_wk, &params.additive_wk},
      {"d_additive_concat", &grad.d_additive_concat, &params.additive_concat},
      {"d_additive_v", &grad.d_additive_v, &params.additive_v},
  };
  for (const auto& [what, analytic, targets] : per_head) {
    ASSERT_EQ(analytic->size(), targets->size()) << what << ": one entry per head, none when unused";
    for (size_t h = 0; h < targets->size(); ++h)
      expect_matches(std::string(what) + "[" + std::to_string(h) + "]", (*analytic)[h], &(*targets)[h]);
  }
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
    ExpectEveryGradient(got, want, [](const Matrix& g, const MatrixD& w) { return CloseToReference(g, w); });
  }
}

TEST_P(GradientTest, ReusingTheForwardResultGivesTheRecomputedGradients) {
  const GradientCase c = Cases().at(GetParam());
  SCOPED_TRACE(c.name);
  for (KernelId kernel : AvailableKernels()) {
    AttentionConfig config = c.config;
    config.kernel = kernel;
    SCOPED_TRACE(KernelName(kernel));
    // Parameters left to the seed: the reusing overload must complete them as Forward did.
    AttentionResult forward;
    ASSERT_TRUE(Forward(config, c.inputs, {}, &forward).ok());
    const Matrix upstream = RandomMatrix(forward.output.rows(), forward.output.cols(), 97);
    AttentionGradients reused, recomputed;
    const Status reusing = Backward(config, c.inputs, {}, forward, upstream, &reused);
    ASSERT_TRUE(reusing.ok()) << reusing.ToString();
    const Status recomputing = Backward(config, c.inputs, {}, upstream, &recomputed);
    ASSERT_TRUE(recomputing.ok()) << recomputing.ToString();
    ExpectEveryGradient(reused, recomputed, [](const Matrix& a, const Matrix& b) { return AllClose(a, b, 0, 0); });
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

// Issue 26: the shape of d_output is checked before the forward pass runs (it ran first, ≈ 200 ms
// at n = 1024 for a call refused anyway): with scores that overflow, the answer was the forward's
// non_finite, not the shape_mismatch of the argument the caller got wrong.
TEST(Backward, ChecksTheUpstreamShapeBeforeTheForwardPass) {
  AttentionConfig c;
  AttentionInputs in;
  in.query = Matrix::Constant(3, 4, 1e30f);  // scores of 4e60: Forward would answer non_finite
  AttentionGradients grad;
  const Status s = Backward(c, in, {}, Matrix::Ones(2, 4), &grad);
  EXPECT_EQ(s.code(), StatusCode::kShapeMismatch) << s.ToString();
  EXPECT_NE(s.message().find("d_output: expected (3, 4)"), std::string::npos) << s.message();
}

TEST(Backward, RejectsAForwardResultOfOtherArguments) {
  AttentionConfig two_heads;
  two_heads.num_heads = 2;
  AttentionInputs in;
  in.query = RandomMatrix(3, 4, 1);
  const Matrix upstream = Matrix::Ones(3, 4);
  AttentionGradients grad;
  grad.d_query = Matrix::Constant(1, 1, 7.0f);  // must stay untouched on error

  AttentionResult one_head;  // same widths (concat is (3, 4) either way), one head fewer
  ASSERT_TRUE(Forward(AttentionConfig(), in, &one_head).ok());
  Status s = Backward(two_heads, in, {}, one_head, upstream, &grad);
  EXPECT_EQ(s.code(), StatusCode::kShapeMismatch);
  EXPECT_NE(s.message().find("forward.heads: expected num_heads = 2 entries, got 1"), std::string::npos) << s.message();

  AttentionInputs shorter;
  shorter.query = RandomMatrix(2, 4, 2);
  AttentionResult other_query;
  ASSERT_TRUE(Forward(two_heads, shorter, &other_query).ok());
  s = Backward(two_heads, in, {}, other_query, upstream, &grad);
  EXPECT_EQ(s.code(), StatusCode::kShapeMismatch);
  EXPECT_NE(s.message().find("forward.query_in: expected (3, 4) (n, d_model), got (2, 4)"), std::string::npos)
      << s.message();

  AttentionInputs longer_keys = in;
  longer_keys.key = RandomMatrix(5, 4, 3);
  AttentionResult cross;
  ASSERT_TRUE(Forward(two_heads, longer_keys, &cross).ok());
  AttentionResult mixed = cross;  // the inputs' shapes right, the heads' from the call with 5 keys
  mixed.key_in = mixed.value_in = in.query;
  s = Backward(two_heads, in, {}, cross, upstream, &grad);
  EXPECT_EQ(s.code(), StatusCode::kShapeMismatch);
  EXPECT_NE(s.message().find("forward.key_in: expected (3, 4) (m, d_kv_model), got (5, 4)"), std::string::npos)
      << s.message();
  s = Backward(two_heads, in, {}, mixed, upstream, &grad);
  EXPECT_EQ(s.code(), StatusCode::kShapeMismatch);
  EXPECT_NE(s.message().find("forward.heads[0].k: expected (3, 2) (M, d_k), got (5, 2)"), std::string::npos)
      << s.message();

  EXPECT_EQ(grad.d_query, Matrix::Constant(1, 1, 7.0f));
}

}  // namespace
}  // namespace attn
