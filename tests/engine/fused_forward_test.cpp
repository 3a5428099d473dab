// ForwardOutput: the fused path (no (n, M) matrix) gives the same output as the visualisation
// path (Forward, every intermediate) and as the float64 reference, for every SIMD kernel and every
// option the fused kernel covers; configs it does not cover fall back to Forward exactly.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "attn/attention.h"
#include "attn/kernels.h"
#include "support/attention_cases.h"
#include "support/random.h"

namespace attn {
namespace {

using testing::CloseToReference;
using testing::RandomMatrix;
using testing::RunReferenceDouble;

struct Case {
  std::string name;
  std::function<void(AttentionConfig*, AttentionInputs*)> setup;
};

std::vector<Case> FusedCases() {
  return {
      {"one head, Q = K = V = x", [](AttentionConfig*, AttentionInputs*) {}},
      {"projections, bias, 4 heads, output projection",
       [](AttentionConfig* c, AttentionInputs*) {
         c->num_heads = 4, c->project_inputs = c->project_output = c->use_bias = true;
       }},
      {"grouped-query 4 heads / 2 kv heads",
       [](AttentionConfig* c, AttentionInputs*) { c->num_heads = 4, c->num_kv_heads = 2, c->project_inputs = true; }},
      {"causal", [](AttentionConfig* c, AttentionInputs*) { c->causal = true, c->project_inputs = true; }},
      {"sliding window 3 left, 1 right",
       [](AttentionConfig* c, AttentionInputs*) { c->window_left = 3, c->window_right = 1; }},
      {"causal window 2 with RoPE",
       [](AttentionConfig* c, AttentionInputs*) {
         c->causal = true, c->window_left = 2, c->position = PositionEncoding::kRope, c->project_inputs = true;
         c->num_heads = 2;
       }},
      {"sinusoidal positions, dot score, temperature 0.5",
       [](AttentionConfig* c, AttentionInputs*) {
         c->position = PositionEncoding::kSinusoidal, c->score = ScoreFunction::kDot, c->temperature = 0.5f;
       }},
      {"learned positions, scale 0.3",
       [](AttentionConfig* c, AttentionInputs*) { c->position = PositionEncoding::kLearned, c->scale = 0.3f; }},
      {"cross-attention, other value width",
       [](AttentionConfig* c, AttentionInputs* in) {
         c->num_heads = 2, c->project_inputs = true, c->value_head_dim = 3;
         const int m = static_cast<int>(in->query.rows()) + 5;
         in->key = RandomMatrix(m, in->query.cols(), 91);
         in->value = RandomMatrix(m, 7, 92);
       }},
      {"cache of 4 past keys, causal, RoPE",
       [](AttentionConfig* c, AttentionInputs* in) {
         c->causal = true, c->position = PositionEncoding::kRope, c->project_inputs = true;
         const int d_k = static_cast<int>(in->query.cols());
         in->past_key = {RandomMatrix(4, d_k, 93)};
         in->past_value = {RandomMatrix(4, d_k, 94)};
       }},
      {"query offset -3 (rows before key 0 see nothing)",
       [](AttentionConfig* c, AttentionInputs* in) { c->causal = true, in->query_offset = -3; }},
  };
}

std::vector<KernelId> SimdKernels() {
  std::vector<KernelId> ids;
  for (KernelId id : AvailableKernels())
    if (id != KernelId::kReference && id != KernelId::kEigen) ids.push_back(id);
  return ids;
}

TEST(FusedForward, MatchesTheVisualisationPathAndTheDoubleReference) {
  const int sizes[] = {1, 3, 4, 5, 7, 8, 9, 16, 17, 35, 64, 100};
  int checked = 0;
  for (KernelId kernel : SimdKernels()) {
    for (const Case& c : FusedCases()) {
      for (int i = 0; i < 12; ++i) {
        const int n = sizes[i], d_model = 4 * (1 + i % 3);  // divisible by 4 heads; RoPE needs even d_k
        AttentionConfig config;
        config.kernel = kernel;
        config.seed = 11 + i;
        AttentionInputs inputs;
        inputs.query = RandomMatrix(n, d_model, 40 + i);
        c.setup(&config, &inputs);
        ASSERT_TRUE(FusedKernelCovers(config, inputs)) << c.name;
        Matrix fused;
        AttentionResult full;
        const Status status = ForwardOutput(config, inputs, AttentionParameters(), &fused);
        ASSERT_TRUE(status.ok()) << c.name << ": " << status.message();
        ASSERT_TRUE(Forward(config, inputs, &full).ok());
        const AttentionResultD want = RunReferenceDouble(config, inputs);
        EXPECT_TRUE(CloseToReference(fused, want.output)) << KernelName(kernel) << " " << c.name << " n=" << n;
        EXPECT_TRUE(CloseToReference(fused, full.output)) << KernelName(kernel) << " " << c.name << " n=" << n
                                                          << ": fused and visualisation paths differ";
        ++checked;
      }
    }
  }
  if (SimdKernels().empty()) GTEST_SKIP() << "no SIMD kernel on this target";
  EXPECT_EQ(checked, 12 * static_cast<int>(FusedCases().size() * SimdKernels().size()));
}

TEST(FusedForward, UncoveredConfigsFallBackToForwardExactly) {
  const std::vector<Case> uncovered = {
      {"bilinear", [](AttentionConfig* c, AttentionInputs*) { c->score = ScoreFunction::kBilinear; }},
      {"sparsemax", [](AttentionConfig* c, AttentionInputs*) { c->normalizer = Normalizer::kSparsemax; }},
      {"softcap", [](AttentionConfig* c, AttentionInputs*) { c->softcap = 2.0f; }},
      {"ALiBi", [](AttentionConfig* c, AttentionInputs*) { c->position = PositionEncoding::kAlibi; }},
      {"float mask", [](AttentionConfig*, AttentionInputs* in) {
         in->float_mask = {RandomMatrix(in->query.rows(), in->query.rows(), 5)};
       }},
  };
  std::vector<KernelId> kernels = AvailableKernels();
  for (KernelId kernel : kernels) {
    for (const Case& c : uncovered) {
      AttentionConfig config;
      config.kernel = kernel;
      AttentionInputs inputs;
      inputs.query = RandomMatrix(9, 8, 3);
      c.setup(&config, &inputs);
      EXPECT_FALSE(FusedKernelCovers(config, inputs)) << c.name;
      Matrix fused;
      AttentionResult full;
      ASSERT_TRUE(ForwardOutput(config, inputs, AttentionParameters(), &fused).ok()) << c.name;
      ASSERT_TRUE(Forward(config, inputs, &full).ok());
      EXPECT_EQ(fused, full.output) << KernelName(kernel) << " " << c.name;
    }
  }
}

TEST(FusedForward, ReferenceAndEigenNeverFuse) {
  AttentionConfig config;
  AttentionInputs inputs;
  inputs.query = RandomMatrix(4, 4, 1);
  config.kernel = KernelId::kReference;
  EXPECT_FALSE(FusedKernelCovers(config, inputs));
  config.kernel = KernelId::kEigen;
  EXPECT_FALSE(FusedKernelCovers(config, inputs));
}

TEST(FusedForward, BadInputGivesForwardsErrorAndLeavesTheOutput) {
  for (KernelId kernel : SimdKernels()) {
    AttentionConfig config;
    config.kernel = kernel;
    config.num_heads = 3;  // does not divide d_model = 8
    AttentionInputs inputs;
    inputs.query = RandomMatrix(5, 8, 1);
    Matrix out = Matrix::Constant(1, 1, 42.0f);
    AttentionResult full;
    const Status fused_status = ForwardOutput(config, inputs, AttentionParameters(), &out);
    const Status full_status = Forward(config, inputs, &full);
    EXPECT_FALSE(fused_status.ok());
    EXPECT_EQ(fused_status.message(), full_status.message());
    EXPECT_EQ(out(0, 0), 42.0f);
    inputs.query(2, 3) = std::numeric_limits<float>::quiet_NaN();
    config.num_heads = 1;
    EXPECT_EQ(ForwardOutput(config, inputs, AttentionParameters(), &out).code(), StatusCode::kNonFinite);
    EXPECT_EQ(out(0, 0), 42.0f);
  }
}

}  // namespace
}  // namespace attn
