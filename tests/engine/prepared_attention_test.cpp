// PreparedAttention: on every kernel, bit for bit ForwardOutput (the same pipeline) and within
// float32's error of the float64 reference, call after call and across changes of n; the same
// status as ForwardOutput for every bad input; its buffers reused from the second call on. The
// allocation count itself: prepared_alloc_test.cpp (native only).
#include "attn/prepared_attention.h"

#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <set>
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
  std::function<void(AttentionConfig*)> setup;
};

// Self-attention configs: those the fused kernel covers, then three it does not (ForwardOutput's
// materialised path, on every kernel).
std::vector<Case> Cases() {
  return {
      {"one head, Q = K = V = x", [](AttentionConfig*) {}},
      {"projections, bias, 4 heads, output projection",
       [](AttentionConfig* c) { c->num_heads = 4, c->project_inputs = c->project_output = c->use_bias = true; }},
      {"grouped-query 4 heads / 2 kv heads, output width 5",
       [](AttentionConfig* c) {
         c->num_heads = 4, c->num_kv_heads = 2, c->project_inputs = c->project_output = true, c->output_dim = 5;
       }},
      {"causal, projections", [](AttentionConfig* c) { c->causal = true, c->project_inputs = true; }},
      {"sliding window 3 left, 1 right", [](AttentionConfig* c) { c->window_left = 3, c->window_right = 1; }},
      {"causal window 2 with RoPE, 2 heads",
       [](AttentionConfig* c) {
         c->causal = true, c->window_left = 2, c->position = PositionEncoding::kRope, c->project_inputs = true;
         c->num_heads = 2;
       }},
      {"sinusoidal positions, dot score, temperature 0.5",
       [](AttentionConfig* c) {
         c->position = PositionEncoding::kSinusoidal, c->score = ScoreFunction::kDot, c->temperature = 0.5f;
       }},
      {"learned positions, scale 0.3, projections",
       [](AttentionConfig* c) { c->position = PositionEncoding::kLearned, c->scale = 0.3f, c->project_inputs = true; }},
      {"not fused: bilinear", [](AttentionConfig* c) { c->score = ScoreFunction::kBilinear; }},
      {"not fused: sparsemax", [](AttentionConfig* c) { c->normalizer = Normalizer::kSparsemax; }},
      {"not fused: ALiBi, 2 heads", [](AttentionConfig* c) { c->position = PositionEncoding::kAlibi, c->num_heads = 2; }},
  };
}

bool IsSimd(KernelId id) { return id != KernelId::kReference && id != KernelId::kEigen; }

Matrix ForwardOutputOf(const AttentionConfig& config, const Matrix& x, const AttentionParameters& params,
                       Status* status) {
  AttentionInputs inputs;
  inputs.query = x;
  Matrix out;
  *status = ForwardOutput(config, inputs, params, &out);
  return out;
}

TEST(PreparedAttention, BitForBitForwardOutputAndCloseToTheDoubleReferenceOnEveryKernel) {
  // n changes between calls (the workspace is resized) and repeats (it is reused).
  const int ns[] = {5, 5, 1, 16, 17, 3, 64, 64, 9};
  int checked = 0;
  for (KernelId kernel : AvailableKernels()) {
    for (const Case& c : Cases()) {
      for (int d_model : {4, 8, 12}) {
        AttentionConfig config;
        config.kernel = kernel;
        config.seed = 3 + d_model;
        c.setup(&config);
        PreparedAttention layer;
        const Status prepared = Prepare(config, d_model, AttentionParameters(), &layer);
        ASSERT_TRUE(prepared.ok()) << c.name << ": " << prepared.message();
        const bool covered = c.name.rfind("not fused", 0) != 0;
        EXPECT_EQ(layer.fused(), IsSimd(kernel) && covered) << KernelName(kernel) << " " << c.name;
        EXPECT_EQ(layer.d_model(), d_model);
        Matrix out;
        for (int i = 0; i < 9; ++i) {
          const int n = ns[i];
          const Matrix x = RandomMatrix(n, d_model, 50 + i + d_model);
          const std::string where = std::string(KernelName(kernel)) + " " + c.name + " d_model=" +
                                    std::to_string(d_model) + " call " + std::to_string(i) + " n=" + std::to_string(n);
          ASSERT_TRUE(layer.Forward(x, &out).ok()) << where;
          ASSERT_EQ(out.cols(), layer.d_out()) << where;
          Status free_status;
          const Matrix want_bits = ForwardOutputOf(config, x, AttentionParameters(), &free_status);
          ASSERT_TRUE(free_status.ok()) << where;
          EXPECT_TRUE(out == want_bits) << where << ": not bit for bit ForwardOutput's";
          AttentionInputs inputs;
          inputs.query = x;
          EXPECT_TRUE(CloseToReference(out, RunReferenceDouble(config, inputs).output)) << where;
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, 9 * 3 * static_cast<int>(Cases().size() * AvailableKernels().size()));
}

TEST(PreparedAttention, GivenParametersAreUsedAndNotSeeded) {
  for (KernelId kernel : AvailableKernels()) {
    AttentionConfig config;
    config.kernel = kernel;
    config.num_heads = 2, config.project_inputs = config.project_output = config.use_bias = true;
    AttentionParameters params;
    params.wq = RandomMatrix(8, 8, 1), params.wo = RandomMatrix(8, 8, 2), params.bv = RandomMatrix(1, 8, 3);
    PreparedAttention layer;
    ASSERT_TRUE(Prepare(config, 8, params, &layer).ok());
    const Matrix x = RandomMatrix(7, 8, 4);
    Matrix out;
    ASSERT_TRUE(layer.Forward(x, &out).ok());
    Status status;
    EXPECT_TRUE(out == ForwardOutputOf(config, x, params, &status)) << KernelName(kernel);
    AttentionConfig other_seed = config;
    other_seed.seed = 99;  // changes wk, wv, bq, bk, bo but not the given ones
    EXPECT_FALSE(out == ForwardOutputOf(other_seed, x, params, &status)) << KernelName(kernel);
  }
}

// Every bad x gets ForwardOutput's status for the same input, code and message, on every kernel,
// and leaves *out as it was.
TEST(PreparedAttention, BadInputGetsForwardOutputsStatusAndLeavesTheOutput) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  struct Bad {
    std::string name;
    std::function<void(AttentionConfig*)> setup;
    Matrix x;
    StatusCode code;
  };
  Matrix with_nan = RandomMatrix(5, 8, 1), with_inf = RandomMatrix(6, 8, 2);
  with_nan(2, 3) = nan, with_inf(5, 7) = -inf;
  Matrix overflowing = Matrix::Zero(2, 8);  // q·k = 1e60 overflows float32 (a finite input)
  overflowing(0, 0) = overflowing(1, 1) = 1e30f;
  const auto learned = [](AttentionConfig* c) { c->position = PositionEncoding::kLearned, c->max_positions = 6; };
  const auto projections = [](AttentionConfig* c) { c->project_inputs = c->project_output = true, c->num_heads = 2; };
  const std::vector<Bad> bad = {
      {"NaN", projections, with_nan, StatusCode::kNonFinite},
      {"-inf", [](AttentionConfig*) {}, with_inf, StatusCode::kNonFinite},
      {"no rows", projections, Matrix(0, 8), StatusCode::kEmptyInput},
      {"7 positions, a learned table of 6", learned, RandomMatrix(7, 8, 3), StatusCode::kOutOfRange},
      {"scores overflow", [](AttentionConfig*) {}, overflowing, StatusCode::kNonFinite},
  };
  int checked = 0;
  for (KernelId kernel : AvailableKernels()) {
    for (const Bad& b : bad) {
      AttentionConfig config;
      config.kernel = kernel;
      b.setup(&config);
      PreparedAttention layer;
      ASSERT_TRUE(Prepare(config, 8, AttentionParameters(), &layer).ok()) << b.name;
      // A good call first, so the bad one meets a layer that has run (mostly with its n checked).
      Matrix out;
      const Eigen::Index good_rows = b.x.rows() >= 1 && b.x.rows() <= 6 ? b.x.rows() : 2;
      ASSERT_TRUE(layer.Forward(RandomMatrix(good_rows, 8, 9), &out).ok()) << b.name;
      out = Matrix::Constant(1, 1, 42.0f);
      const Status status = layer.Forward(b.x, &out);
      Status free_status;
      ForwardOutputOf(config, b.x, AttentionParameters(), &free_status);
      const std::string where = std::string(KernelName(kernel)) + " " + b.name;
      EXPECT_EQ(status.code(), b.code) << where << ": " << status.message();
      EXPECT_EQ(status.code(), free_status.code()) << where;
      EXPECT_EQ(status.message(), free_status.message()) << where;
      EXPECT_EQ(out.size(), 1) << where;
      EXPECT_EQ(out(0, 0), 42.0f) << where;
      // And the layer still works.
      EXPECT_TRUE(layer.Forward(RandomMatrix(4, 8, 10), &out).ok()) << where;
      ++checked;
    }
  }
  EXPECT_EQ(checked, static_cast<int>(bad.size() * AvailableKernels().size()));
}

TEST(PreparedAttention, WrongWidthAndUnpreparedLayerAreRefused) {
  for (KernelId kernel : AvailableKernels()) {
    AttentionConfig config;
    config.kernel = kernel;
    PreparedAttention layer;
    Matrix out = Matrix::Constant(1, 1, 42.0f);
    const Status unprepared = layer.Forward(RandomMatrix(3, 8, 1), &out);
    EXPECT_EQ(unprepared.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(unprepared.message().find("attn::Prepare"), std::string::npos) << unprepared.message();
    ASSERT_TRUE(Prepare(config, 8, AttentionParameters(), &layer).ok());
    const Status wrong = layer.Forward(RandomMatrix(3, 7, 1), &out);
    EXPECT_EQ(wrong.code(), StatusCode::kShapeMismatch);
    EXPECT_EQ(wrong.message(), "query: expected (n, 8) (the d_model the layer was prepared for), got (3, 7)");
    EXPECT_EQ(out(0, 0), 42.0f);
  }
}

// Prepare refuses what ForwardOutput refuses for a one-row x of width d_model, with its message,
// and leaves a prepared layer as it was.
TEST(PreparedAttention, PrepareGetsForwardOutputsStatusForBadConfigsAndParameters) {
  struct Bad {
    std::string name;
    std::function<void(AttentionConfig*, AttentionParameters*)> setup;
    StatusCode code;
  };
  const std::vector<Bad> bad = {
      {"3 heads for d_model 8", [](AttentionConfig* c, AttentionParameters*) { c->num_heads = 3; },
       StatusCode::kShapeMismatch},
      {"temperature 0", [](AttentionConfig* c, AttentionParameters*) { c->temperature = 0.0f; },
       StatusCode::kOutOfRange},
      {"window_right INT_MAX",
       [](AttentionConfig* c, AttentionParameters*) { c->window_right = std::numeric_limits<int>::max(); },
       StatusCode::kOutOfRange},
      {"wq of the wrong shape",
       [](AttentionConfig* c, AttentionParameters* p) { c->project_inputs = true, p->wq = RandomMatrix(7, 8, 1); },
       StatusCode::kShapeMismatch},
      {"bo holding NaN",
       [](AttentionConfig* c, AttentionParameters* p) {
         c->project_output = c->use_bias = true;
         p->bo = Matrix::Constant(1, 8, std::numeric_limits<float>::quiet_NaN());
       },
       StatusCode::kNonFinite},
      {"weights over the memory limit",
       [](AttentionConfig* c, AttentionParameters*) { c->project_inputs = true, c->head_dim = 1 << 24; },
       StatusCode::kResourceExhausted},
  };
  for (KernelId kernel : AvailableKernels()) {
    for (const Bad& b : bad) {
      AttentionConfig config;
      config.kernel = kernel;
      AttentionParameters params;
      b.setup(&config, &params);
      PreparedAttention layer;
      AttentionConfig good;
      good.kernel = kernel;
      ASSERT_TRUE(Prepare(good, 8, AttentionParameters(), &layer).ok());
      const Status status = Prepare(config, 8, params, &layer);
      Status free_status;
      ForwardOutputOf(config, RandomMatrix(1, 8, 1), params, &free_status);
      const std::string where = std::string(KernelName(kernel)) + " " + b.name;
      EXPECT_EQ(status.code(), b.code) << where << ": " << status.message();
      EXPECT_EQ(status.message(), free_status.message()) << where;
      EXPECT_EQ(layer.config().temperature, 1.0f) << where;  // still the good layer
      Matrix out;
      EXPECT_TRUE(layer.Forward(RandomMatrix(3, 8, 2), &out).ok()) << where;
    }
    PreparedAttention layer;
    AttentionConfig config;
    config.kernel = kernel;
    EXPECT_EQ(Prepare(config, 0, AttentionParameters(), &layer).message(), "d_model: expected a value >= 1, got 0");
    EXPECT_EQ(Prepare(config, 1 << 25, AttentionParameters(), &layer).message(),
              "d_model: expected at most 16777216, got 33554432");
    EXPECT_FALSE(layer.prepared());
  }
}

// From the second call of one n on, Forward writes into the same two buffers (its workspace's
// output and the caller's, exchanged): nothing is reallocated. (The allocation count itself:
// prepared_alloc_test.cpp, native only.)
TEST(PreparedAttention, RepeatedCallsReuseTheSameBuffers) {
  for (KernelId kernel : AvailableKernels()) {
    if (!IsSimd(kernel)) continue;
    AttentionConfig config;
    config.kernel = kernel;
    config.num_heads = 4, config.project_inputs = config.project_output = config.use_bias = true;
    PreparedAttention layer;
    ASSERT_TRUE(Prepare(config, 32, AttentionParameters(), &layer).ok());
    const Matrix x = RandomMatrix(20, 32, 1);
    Matrix out, first;
    ASSERT_TRUE(layer.Forward(x, &out).ok());
    first = out;
    std::set<const float*> buffers;
    for (int i = 0; i < 20; ++i) {
      ASSERT_TRUE(layer.Forward(x, &out).ok());
      buffers.insert(out.data());
      EXPECT_TRUE(out == first);
    }
    EXPECT_EQ(buffers.size(), 2u) << KernelName(kernel);
  }
}

}  // namespace
}  // namespace attn
