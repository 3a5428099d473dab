// Finite inputs whose scores overflow float32: the same status on every kernel and on both paths
// (Forward, which materialises the scores, and ForwardOutput's fused kernel), and an ok status
// only with a finite, correct output (the policy in attn/attention.h). Reproducers of issue 13's
// silent wrong answers.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "attn/attention.h"
#include "attn/grad.h"
#include "attn/kernels.h"
#include "pipeline/backward_bound.h"
#include "support/attention_cases.h"
#include "support/random.h"

namespace attn {
namespace {

using testing::CloseToReference;
using testing::RandomMatrix;
using testing::RunReferenceDouble;

// Forward's and ForwardOutput's status and output on `kernel`.
struct BothPaths {
  Status forward, fused;
  Matrix forward_output, fused_output;
};

BothPaths RunBothPaths(AttentionConfig config, const AttentionInputs& inputs, KernelId kernel) {
  config.kernel = kernel;
  BothPaths r;
  AttentionResult result;
  r.forward = Forward(config, inputs, &result);
  r.forward_output = result.output;
  r.fused = ForwardOutput(config, inputs, AttentionParameters(), &r.fused_output);
  return r;
}

void ExpectOverflowEverywhere(const AttentionConfig& config, const AttentionInputs& inputs) {
  for (KernelId kernel : AvailableKernels()) {
    SCOPED_TRACE(KernelName(kernel));
    const BothPaths r = RunBothPaths(config, inputs, kernel);
    EXPECT_EQ(r.forward.code(), StatusCode::kNonFinite) << r.forward.ToString();
    EXPECT_EQ(r.fused.code(), StatusCode::kNonFinite) << r.fused.ToString() << "\n" << r.fused_output;
    EXPECT_NE(r.fused.message().find("overflowed float32"), std::string::npos) << r.fused.message();
  }
}

void ExpectOkEverywhere(const AttentionConfig& config, const AttentionInputs& inputs, const MatrixD& want,
                        double slack = 10) {
  for (KernelId kernel : AvailableKernels()) {
    SCOPED_TRACE(KernelName(kernel));
    const BothPaths r = RunBothPaths(config, inputs, kernel);
    ASSERT_TRUE(r.forward.ok()) << r.forward.ToString();
    ASSERT_TRUE(r.fused.ok()) << r.fused.ToString();
    EXPECT_TRUE(CloseToReference(r.forward_output, want, slack));
    EXPECT_TRUE(CloseToReference(r.fused_output, want, slack));
  }
}

Matrix Diagonal(float value) {
  Matrix x = Matrix::Zero(2, 2);
  x(0, 0) = x(1, 1) = value;
  return x;
}

// x·xᵀ = 1e60: the fused avx2/avx512 kernels returned ok with 1.5625e28 everywhere (true Y = X).
TEST(Overflow, ScoresPastFloatMaxAreNonFiniteOnEveryKernelAndPath) {
  AttentionInputs inputs;
  inputs.query = Diagonal(1e30f);
  ExpectOverflowEverywhere(AttentionConfig(), inputs);
}

// x·xᵀ = 1e38 still fits float32: every path must give Y = X (one-hot weights).
TEST(Overflow, ScoresJustBelowFloatMaxAreRightOnEveryKernelAndPath) {
  AttentionInputs inputs;
  inputs.query = Diagonal(1e19f);
  ExpectOkEverywhere(AttentionConfig(), inputs, inputs.query.cast<double>());
}

// q·k = 1e40 overflows although scale·q·k = 1e10 would not: Forward publishes raw_scores = inf, so
// the fused kernel (which used to fold the scale into q) must report it too. At scale 1e−36 the
// scaled scores (1e4) are small enough for the fused kernel's log2 units, which fold the scale into
// q again: the raw products must still bound them (differential_fuzz found it).
TEST(Overflow, RawScoreOverflowUnderASmallScaleIsReportedByBothPaths) {
  for (const float scale : {1e-30f, 1e-36f}) {
    SCOPED_TRACE(scale);
    AttentionConfig config;
    config.scale = scale;
    AttentionInputs inputs;
    inputs.query = Diagonal(1e20f);
    ExpectOverflowEverywhere(config, inputs);
  }
}

// scale/τ = 5.8e46 passes FLT_MAX while q·k = 1e−80 rounds to 0: every score is 0 (uniform weights).
// The fused kernel's log2 units fold scale/τ·log2 e into q as one float, which would be +inf here:
// it must keep to the scaled path (differential_fuzz found it: non_finite where the answer is finite).
TEST(Overflow, ScaleOverTemperaturePastFloatMaxWithTinyScoresIsFine) {
  AttentionConfig config;
  config.scale = 5.76665e16f, config.temperature = 1e-30f;
  AttentionInputs inputs;
  inputs.query = Matrix::Constant(3, 4, 1e-40f);
  ExpectOkEverywhere(config, inputs, RunReferenceDouble(config, inputs).output);
}

// Scores over a tiny temperature overflow to −inf for every key: the weights were silently zero
// (as if every key were masked) and the output 0; the true weights are one-hot on the second key.
TEST(Overflow, TemperatureOverflowToMinusInfinityIsNotTakenForAMask) {
  AttentionConfig config;
  config.temperature = 1e-37f;
  AttentionInputs inputs;
  inputs.query = (Matrix(1, 2) << 10, 0).finished();
  inputs.key = (Matrix(2, 2) << -10, 0, -5, 0).finished();
  inputs.value = (Matrix(2, 2) << 1, 2, 3, 4).finished();
  ExpectOverflowEverywhere(config, inputs);
}

// A pair a mask blocks may overflow: no path computes it into the weights (the fused kernel never
// computes it at all), so every path is ok and right.
TEST(Overflow, OverflowAtAMaskedPairIsFine) {
  AttentionConfig config;
  config.causal = true;
  AttentionInputs inputs;
  inputs.query = (Matrix(2, 2) << 10, 0, 1, 0).finished();
  inputs.key = (Matrix(2, 2) << 1, 0, 3e38f, 0).finished();  // q_0·k_1 = 3e39, blocked by the causal mask
  inputs.value = (Matrix(2, 2) << 1, 2, 3, 4).finished();
  const MatrixD want = (MatrixD(2, 2) << 1, 2, 3, 4).finished();  // row 1: one-hot on key 1
  ExpectOkEverywhere(config, inputs, want);
}

// An allowed pair that overflows under a causal mask is reported on every path, as without a mask
// (a masked pair that overflows is fine: OverflowAtAMaskedPairIsFine).
TEST(Overflow, OverflowAtAnAllowedPairUnderACausalMaskIsReported) {
  AttentionConfig config;
  config.causal = true;
  AttentionInputs inputs;
  inputs.query = (Matrix(2, 2) << 1, 0, 10, 0).finished();
  inputs.key = (Matrix(2, 2) << 3e38f, 0, 1, 0).finished();  // q_1·k_0 = 3e39: row 1 sees key 0
  inputs.value = (Matrix(2, 2) << 1, 2, 3, 4).finished();
  ExpectOverflowEverywhere(config, inputs);
}

// Found by differential_fuzz: a key the sliding window masks weighed ~1e−38 in the fused kernel
// (its fast exp never reaches 0), and with a value of FLT_MAX that was 4 in the output (5 for 1).
TEST(Overflow, MaskedKeyWithAHugeValueWeighsExactlyZero) {
  AttentionConfig config;
  config.window_left = 0;  // query 1 sees key 1 only
  AttentionInputs inputs;
  inputs.query = (Matrix(2, 2) << -4.9375f, -5, -5, -5).finished();
  inputs.key = Matrix::Constant(2, 2, -5);
  inputs.value = (Matrix(2, 2) << FLT_MAX, 1, 1, -5).finished();
  for (KernelId kernel : AvailableKernels()) {
    SCOPED_TRACE(KernelName(kernel));
    const BothPaths r = RunBothPaths(config, inputs, kernel);
    ASSERT_TRUE(r.forward.ok()) << r.forward.ToString();
    ASSERT_TRUE(r.fused.ok()) << r.fused.ToString();
    EXPECT_EQ(r.forward_output(1, 0), 1.0f);
    EXPECT_EQ(r.fused_output(1, 0), 1.0f);
    EXPECT_EQ(r.fused_output(1, 1), -5.0f);
  }
}

// Found by differential_fuzz: a subnormal temperature (1e−40) passed the checks, and the kernels
// that multiply by 1/τ = inf gave NaN (0 · inf) where τ-dividing ones did not. Now refused everywhere.
TEST(Overflow, SubnormalTemperatureIsOutOfRangeOnEveryKernel) {
  AttentionConfig config;
  config.temperature = 1e-40f;
  AttentionInputs inputs;
  inputs.query = RandomMatrix(3, 2, 5);
  for (KernelId kernel : AvailableKernels()) {
    SCOPED_TRACE(KernelName(kernel));
    const BothPaths r = RunBothPaths(config, inputs, kernel);
    EXPECT_EQ(r.forward.code(), StatusCode::kOutOfRange) << r.forward.ToString();
    EXPECT_EQ(r.fused.code(), StatusCode::kOutOfRange) << r.fused.ToString();
    EXPECT_NE(r.forward.message().find("temperature: expected at least 1.17549e-38"), std::string::npos)
        << r.forward.message();
  }
}

// Cosine scores at |x| ~ 1e20: |q|·|k| overflowed to inf and the scores became NaN; reference,
// avx2, avx512 and wasm returned ok with zero weights and zero output. Cosine is scale-invariant and
// the output linear in V, so the answer is 1e20 × the answer on x / 1e20.
TEST(Overflow, CosineScoresOfHugeVectorsAreRightOnEveryKernel) {
  AttentionConfig config;
  config.score = ScoreFunction::kCosine;
  AttentionInputs small;
  small.query = RandomMatrix(5, 4, 11);
  AttentionInputs huge = small;
  huge.query *= 1e20f;
  const MatrixD want = RunReferenceDouble(config, small).output * 1e20;
  for (KernelId kernel : AvailableKernels()) {
    SCOPED_TRACE(KernelName(kernel));
    config.kernel = kernel;
    AttentionResult result;
    const Status s = Forward(config, huge, &result);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_TRUE(CloseToReference(result.output, want));
    EXPECT_TRUE(result.heads[0].raw_scores.allFinite());
  }
}

// Every gradient Backward returns, by name (the vectors' entries as name[i]).
std::vector<std::pair<std::string, const Matrix*>> Gradients(const AttentionGradients& g) {
  std::vector<std::pair<std::string, const Matrix*>> out = {
      {"d_query", &g.d_query}, {"d_key", &g.d_key}, {"d_value", &g.d_value}, {"d_wq", &g.d_wq},
      {"d_wk", &g.d_wk},       {"d_wv", &g.d_wv},   {"d_wo", &g.d_wo},       {"d_bq", &g.d_bq},
      {"d_bk", &g.d_bk},       {"d_bv", &g.d_bv},   {"d_bo", &g.d_bo},       {"d_position_table", &g.d_position_table},
      {"d_relative_center", &g.d_relative_center}, {"d_relative_sharpness", &g.d_relative_sharpness}};
  for (const auto* list : {&g.d_bilinear, &g.d_additive_wq, &g.d_additive_wk, &g.d_additive_concat, &g.d_additive_v,
                           &g.d_scores, &g.d_weights})
    for (const Matrix& m : *list) out.emplace_back("list", &m);
  return out;
}

// Issue 26: query 1e18·sin(i), dOutput 1e20 with projections: Backward was ok on eigen (and the
// wasm kernel) with 5 dWq and 9 dWk entries inf or NaN, and ok and finite on reference (only d_query
// was checked). Every kernel now gives the same status (the reference kernel's, when the backward
// pass's bound comes within 4× of FLT_MAX), and ok only with every gradient finite.
TEST(Overflow, BackwardGradientsAreFiniteAndTheStatusIsTheSameOnEveryKernel) {
  for (const bool project_output : {true, false}) {
    SCOPED_TRACE(project_output ? "projectInputs + projectOutput" : "projectInputs");
    AttentionConfig config;
    config.project_inputs = true;
    config.project_output = project_output;
    AttentionInputs inputs;
    inputs.query.resize(4, 4);
    for (int i = 0; i < 16; ++i) inputs.query.data()[i] = 1e18f * std::sin(static_cast<float>(i));
    const Matrix d_output = Matrix::Constant(4, 4, 1e20f);
    std::vector<StatusCode> codes;
    for (KernelId kernel : AvailableKernels()) {
      SCOPED_TRACE(KernelName(kernel));
      config.kernel = kernel;
      AttentionGradients g;
      const Status s = Backward(config, inputs, AttentionParameters(), d_output, &g);
      codes.push_back(s.code());
      if (!s.ok()) {
        EXPECT_EQ(s.code(), StatusCode::kNonFinite) << s.ToString();
        continue;
      }
      for (const auto& [name, m] : Gradients(g)) EXPECT_TRUE(m->allFinite()) << name << "\n" << *m;
    }
    for (StatusCode code : codes) EXPECT_EQ(code, codes[0]);
  }
}

// Found by backward_fuzz: three equal query rows of 1e19 under a causal mask give row 3 three equal
// scores (≈ 1e37) and weights 1/3, so the softmax backward's w·(d_w − Σ w·d_w) is 0 exactly, but as
// computed it is the rounding of Σ w·d_w at |d_w| ≈ 1.5e19: 1.8e11 on reference and eigen, 0 on avx2
// and avx512 (whose projection rounded v, hence d_w, otherwise). Times |k| ≈ 1e18 and |query| = 1e19
// in dWq it overflowed on the former alone, and the fast kernels answered ok while every gradient
// they returned was below FLT_MAX / 4. The weights (seed 185) decide the roundings.
TEST(Overflow, BackwardStatusIsTheSameWhereRoundingCancelsDifferentlyOnEachKernel) {
  AttentionConfig config;
  config.num_heads = 2;
  config.project_inputs = true;
  config.causal = true;
  config.seed = 185;
  config.score = ScoreFunction::kDot;
  config.temperature = 2.0f;
  AttentionInputs inputs;
  inputs.query = Matrix::Constant(4, 6, 1e19f);
  inputs.query.row(0).setConstant(1.0f);
  const Matrix d_output = Matrix::Constant(4, 6, -5.0f);
  const std::vector<KernelId> kernels = AvailableKernels();
  std::vector<Status> statuses;
  for (KernelId kernel : kernels) {
    SCOPED_TRACE(KernelName(kernel));
    config.kernel = kernel;
    AttentionGradients g;
    statuses.push_back(Backward(config, inputs, AttentionParameters(), d_output, &g));
    if (!statuses.back().ok()) continue;
    for (const auto& [name, m] : Gradients(g)) EXPECT_TRUE(m->allFinite()) << name << "\n" << *m;
  }
  for (size_t k = 1; k < kernels.size(); ++k)
    EXPECT_EQ(statuses[k].code(), statuses[0].code()) << KernelName(kernels[k]) << ": " << statuses[k].ToString()
                                                      << "; " << KernelName(kernels[0]) << ": " << statuses[0].ToString();
}

// The bound that sends a call to the reference kernel must leave ordinary calls on the fast ones: the
// reference is slower, and its check adds a forward pass to the call's budget (a big call would be
// kResourceExhausted). Values and dOutput of order 1e3, projections, every score function and
// normaliser at n = 256: at least 10^7 below FLT_MAX / 4 (10^16 as measured), room for the factor
// n·M by which the bound grows to n = M = 16384 (4096×) and for values 10× larger.
TEST(Overflow, BackwardBoundLeavesOrdinaryCallsOnTheFastKernels) {
  AttentionInputs inputs;
  inputs.query = RandomMatrix(256, 64, 1, -1e3f, 1e3f);
  const Matrix d_output = RandomMatrix(256, 64, 2, -1e3f, 1e3f);
  for (int score = 0; score < static_cast<int>(ScoreFunction::kCount); ++score) {
    for (int normalizer = 0; normalizer < static_cast<int>(Normalizer::kCount); ++normalizer) {
      AttentionConfig config;
      config.num_heads = 4;
      config.project_inputs = config.project_output = config.use_bias = config.causal = true;
      config.score = static_cast<ScoreFunction>(score);
      config.normalizer = static_cast<Normalizer>(normalizer);
      SCOPED_TRACE("score " + std::to_string(score) + ", normalizer " + std::to_string(normalizer));
      AttentionResult forward;
      ASSERT_TRUE(Forward(config, inputs, &forward).ok());
      const pipeline::BackwardBound bound =
          pipeline::BoundBackward(config, inputs, forward.parameters, forward, d_output);
      EXPECT_LT(bound.largest, FLT_MAX / 4.0 * 1e-7) << bound.stage;
    }
  }
}

// The fused kernel's weighted sum Σ p_j v_j reaches m·|v| before it is divided by Σ p_j: with
// equal scores and V = 1e36 at n = 1024 it overflowed, and wasm_simd128, avx2 and avx512 answered
// non_finite where reference and eigen return V (n = 2 at 1.8e38, 16 at 3e37, 4096 at 1e35). The
// fused path scales such value columns by a power of two (exact) and the output back.
TEST(Overflow, FusedWeightedSumOfHugeValuesIsComputed) {
  for (const auto& [n, v] : std::vector<std::pair<int, float>>{{2, 1.8e38f}, {16, 3e37f}, {1024, 1e36f}, {4096, 1e35f}}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    AttentionInputs inputs;
    inputs.query = Matrix::Zero(n, 4);
    inputs.key = Matrix::Zero(n, 4);
    inputs.value = Matrix::Constant(n, 3, v);
    inputs.value.col(1) = -inputs.value.col(1);
    inputs.value.col(2).setConstant(1e-30f);  // a small column beside them keeps its digits
    for (KernelId kernel : AvailableKernels()) {
      SCOPED_TRACE(KernelName(kernel));
      AttentionConfig config;
      config.kernel = kernel;
      Matrix out;
      const Status s = ForwardOutput(config, inputs, AttentionParameters(), &out);
      ASSERT_TRUE(s.ok()) << s.ToString();
      // Equal weights: a sum of n equal terms over their count, within n·2⁻²³ relative (recursive
      // summation's (n − 1)·u plus the division, u = 2⁻²⁴), in every column.
      const double relative = n * std::ldexp(1.0, -23);
      EXPECT_TRUE(testing::AllClose(out, inputs.value.cast<double>(), relative, 0));
    }
  }
}

}  // namespace
}  // namespace attn
