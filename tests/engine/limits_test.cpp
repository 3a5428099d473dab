// attn::Limits (attn/limits.h): config integers and sizes past the limits get a Status that names
// the limit, at once and without allocating: nothing throws std::bad_alloc, aborts (wasm) or
// overflows int (UBSan). Reproducers of issue 13's attack campaign (libFuzzer, ASan/UBSan), on every
// kernel and through every entry point.
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "attn/attention.h"
#include "attn/grad.h"
#include "attn/kernels.h"
#include "attn/limits.h"
#include "attn/positions.h"
#include "call_budget.h"
#include "pipeline/dims.h"
#include "support/random.h"

namespace attn {
namespace {

using testing::RandomMatrix;

struct Call {
  AttentionConfig config;
  AttentionInputs inputs;
};

struct HugeCase {
  const char* name;
  std::function<void(Call*)> break_it;  // applied to a valid self-attention call on x: (3, 4)
  StatusCode code;
  std::string message_part;
};

const std::string kMax = std::to_string(Limits::max_dimension);

std::vector<HugeCase> HugeCases() {
  using S = StatusCode;
  return {
      {"additive_dim 2^30", [](Call* c) { c->config.score = ScoreFunction::kAdditive; c->config.additive_dim = 1 << 30; },
       S::kOutOfRange, "additive_dim: expected at most " + kMax + ", got 1073741824"},
      {"head_dim 2^30", [](Call* c) { c->config.project_inputs = true; c->config.head_dim = 1 << 30; },
       S::kOutOfRange, "head_dim: expected at most " + kMax + ", got 1073741824"},
      {"value_head_dim 2^30", [](Call* c) { c->config.project_inputs = true; c->config.value_head_dim = 1 << 30; },
       S::kOutOfRange, "value_head_dim: expected at most " + kMax},
      {"output_dim 2^30", [](Call* c) { c->config.project_output = true; c->config.output_dim = 1 << 30; },
       S::kOutOfRange, "output_dim: expected at most " + kMax + ", got 1073741824"},
      {"max_positions INT_MAX", [](Call* c) { c->config.position = PositionEncoding::kLearned; c->config.max_positions = INT_MAX; },
       S::kOutOfRange, "max_positions: expected at most " + kMax + ", got 2147483647"},
      {"num_heads 2^30", [](Call* c) { c->config.num_heads = 1 << 30; }, S::kOutOfRange, "num_heads: expected at most 65536, got 1073741824"},
      {"num_kv_heads INT_MAX", [](Call* c) { c->config.num_kv_heads = INT_MAX; }, S::kOutOfRange, "num_kv_heads: expected at most 65536"},
      // Found by forward_fuzz: 2^22 heads of one column each were accepted (little memory per head,
      // but a fixed cost each: minutes of work and, uncounted then, gigabytes of bookkeeping).
      {"num_heads 2^22", [](Call* c) { c->config.project_inputs = true, c->config.head_dim = 1, c->config.num_heads = 1 << 22; },
       S::kOutOfRange, "num_heads: expected at most 65536, got 4194304"},
      {"window_right INT_MAX", [](Call* c) { c->config.window_right = INT_MAX; },
       S::kOutOfRange, "window_right: expected at most " + kMax + ", got 2147483647"},
      {"window_left INT_MAX", [](Call* c) { c->config.window_left = INT_MAX; }, S::kOutOfRange, "window_left: expected at most " + kMax},
      {"causal query_offset INT_MAX", [](Call* c) { c->config.causal = true; c->inputs.query_offset = INT_MAX; },
       S::kOutOfRange, "query_offset: expected at most " + kMax + ", got 2147483647"},
      {"query_offset INT_MIN", [](Call* c) { c->inputs.query_offset = INT_MIN; },
       S::kOutOfRange, "query_offset: expected a value >= -" + kMax},
      // Each int within the limit, their product not: heads · d_k would overflow int.
      {"num_heads · head_dim", [](Call* c) {
         c->config.project_inputs = true, c->config.num_heads = 1 << 12, c->config.head_dim = 1 << 24;
       }, S::kOutOfRange, "num_heads·d_k: expected at most " + kMax + ", got 68719476736"},
      // Within every int limit, but the parameters alone would take 4 × 4 × 2^24 floats × 2 copies.
      {"head_dim 2^24 with projections", [](Call* c) { c->config.project_inputs = true; c->config.head_dim = 1 << 24; },
       S::kResourceExhausted, "over the limit of"},
      {"additive_dim 2^24", [](Call* c) { c->config.score = ScoreFunction::kAdditive; c->config.additive_dim = 1 << 24; },
       S::kResourceExhausted, "(attn::Limits::max_call_bytes)"},
  };
}

Call ValidCall() {
  Call c;
  c.inputs.query = RandomMatrix(3, 4, 1);
  return c;
}

TEST(Limits, HugeConfigIntegersGetAStatusOnEveryKernelAndEntryPoint) {
  for (const HugeCase& huge : HugeCases()) {
    for (KernelId kernel : AvailableKernels()) {
      SCOPED_TRACE(std::string(huge.name) + " on " + KernelName(kernel));
      Call c = ValidCall();
      c.config.kernel = kernel;
      huge.break_it(&c);
      AttentionResult result;
      const Status forward = Forward(c.config, c.inputs, &result);
      EXPECT_EQ(forward.code(), huge.code) << forward.ToString();
      EXPECT_NE(forward.message().find(huge.message_part), std::string::npos) << forward.message();
      Matrix output;
      const Status fused = ForwardOutput(c.config, c.inputs, AttentionParameters(), &output);
      EXPECT_EQ(fused.code(), huge.code) << fused.ToString();
      AttentionGradients grad;
      const Status backward = Backward(c.config, c.inputs, AttentionParameters(), Matrix::Ones(3, 4), &grad);
      EXPECT_EQ(backward.code(), huge.code) << backward.ToString();
    }
  }
}

TEST(Limits, InitializeParametersChecksItsSizes) {
  AttentionConfig config;
  AttentionParameters params;
  config.project_inputs = true;
  Status s = InitializeParameters(config, 1 << 30, 4, 4, &params);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange) << s.ToString();
  EXPECT_NE(s.message().find("d_model: expected at most " + kMax), std::string::npos) << s.message();
  config.head_dim = 1 << 24;  // wq, wk, wv and wo of 8 × 2^24 floats each: 2.1 GB
  config.project_output = true;
  s = InitializeParameters(config, 8, 8, 8, &params);
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted) << s.ToString();
  EXPECT_NE(s.message().find("attn::Limits::max_call_bytes"), std::string::npos) << s.message();
  EXPECT_EQ(params.wq.size(), 0);
  config = AttentionConfig();
  config.score = ScoreFunction::kAdditive;
  config.additive_dim = 1 << 30;
  s = InitializeParameters(config, 4, 4, 4, &params);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange) << s.ToString();
}

// The JS layer (and the page under wasm) relies on this: Forward at n = 16000 needs 5 (n, n)
// matrices, 5.1 GB, and is refused before the heap grows, naming the way out.
TEST(Limits, MaterialisedForwardAtSixteenThousandTokensIsRefusedAtOnce) {
  AttentionInputs inputs;
  inputs.query = RandomMatrix(16000, 4, 2);
  for (KernelId kernel : AvailableKernels()) {
    SCOPED_TRACE(KernelName(kernel));
    AttentionConfig config;
    config.kernel = kernel;
    AttentionResult result;
    const Status s = Forward(config, inputs, &result);
    EXPECT_EQ(s.code(), StatusCode::kResourceExhausted) << s.ToString();
    EXPECT_NE(s.message().find("16000 × 16000"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("attn::Limits::max_call_bytes"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("ForwardOutput"), std::string::npos) << s.message();
    EXPECT_TRUE(result.heads.empty());
    AttentionGradients grad;
    const Status b = Backward(config, inputs, AttentionParameters(), Matrix::Zero(16000, 4), &grad);
    EXPECT_EQ(b.code(), StatusCode::kResourceExhausted) << b.ToString();
    config.causal = true;  // a mask ForwardOutput cannot fuse falls back to Forward: refused too
    inputs.key_padding = BoolMatrix::Constant(1, 16000, false);
    Matrix output;
    EXPECT_EQ(ForwardOutput(config, inputs, AttentionParameters(), &output).code(), StatusCode::kResourceExhausted);
    inputs.key_padding.resize(0, 0);
  }
}

// The estimate lets every real use through, in the wasm build too: the bench's layer (d_model 256,
// 4 heads, projections with bias) through the fused ForwardOutput at n = 16384, the page's fused
// path at n = 8192, the speed view's materialised Forward at n = 1024 (lessons/views/speed.h).
TEST(Limits, EveryRealUseFits) {
  AttentionConfig bench;
  bench.num_heads = 4, bench.project_inputs = bench.project_output = bench.use_bias = true;
  const auto dims = [&](int n) { return pipeline::ResolveDims(bench, n, n, 0, 256, 256, 256, std::nullopt); };
  EXPECT_TRUE(budget::CallFits(budget::CallKind::kFusedForward, bench, dims(16384)).ok());
  EXPECT_TRUE(budget::CallFits(budget::CallKind::kFusedForward, bench, dims(8192)).ok());
  EXPECT_TRUE(budget::CallFits(budget::CallKind::kForward, bench, dims(1024)).ok());
  EXPECT_TRUE(budget::CallFits(budget::CallKind::kForwardBackward, bench, dims(512)).ok());
  EXPECT_FALSE(budget::CallFits(budget::CallKind::kForward, bench, dims(16000)).ok());
}

TEST(Limits, MatMulRefusesAHugeProduct) {
  const Matrix column = Matrix::Ones(100000, 1), row = Matrix::Ones(1, 100000);  // product: 10^10 floats
  for (KernelId kernel : AvailableKernels()) {
    SCOPED_TRACE(KernelName(kernel));
    Matrix out = Matrix::Constant(1, 1, 5.0f);
    const Status s = MatMul(kernel, column, row, &out);
    EXPECT_EQ(s.code(), StatusCode::kResourceExhausted) << s.ToString();
    EXPECT_NE(s.message().find("attn::Limits::max_tensor_elements"), std::string::npos) << s.message();
    EXPECT_EQ(out(0, 0), 5.0f);
  }
}

// At the limit itself a window or an offset still works, and means what it says (64-bit positions
// in the fused kernel): a window of 2^24 is no window at all for 5 tokens.
TEST(Limits, WindowAndOffsetAtTheLimitAgreeOnEveryKernel) {
  AttentionInputs inputs;
  inputs.query = RandomMatrix(5, 4, 3);
  AttentionConfig unbounded;
  AttentionResult want;
  ASSERT_TRUE(Forward(unbounded, inputs, &want).ok());
  for (KernelId kernel : AvailableKernels()) {
    SCOPED_TRACE(KernelName(kernel));
    AttentionConfig config;
    config.kernel = kernel;
    config.window_left = config.window_right = static_cast<int>(Limits::max_dimension);
    Matrix output;
    ASSERT_TRUE(ForwardOutput(config, inputs, AttentionParameters(), &output).ok());
    EXPECT_TRUE(output.isApprox(want.output, 1e-5f));
    // Causal with every query after every key: again every key is allowed.
    config.causal = true;
    config.window_left = -1;
    AttentionInputs late = inputs;
    late.query_offset = static_cast<int>(Limits::max_dimension);
    ASSERT_TRUE(ForwardOutput(config, late, AttentionParameters(), &output).ok());
    EXPECT_TRUE(output.isApprox(want.output, 1e-5f));
  }
}

}  // namespace
}  // namespace attn

namespace attn {
namespace {

// Found by forward_fuzz: ALiBi recomputed all h slopes for each of the h heads (h² work: minutes for
// 2^16 heads). One head's slope is now O(log h); the values are those of the sequence. That a call
// with 2^14 heads does linear work: AllocationBudget.ManyAlibiHeadsAllocateLinearlyInTheHeads
// (allocation_budget_test.cpp, counted, not timed).
TEST(Limits, AlibiSlopeOfOneHeadMatchesTheSequence) {
  for (int heads : {1, 3, 8, 12}) {
    const std::vector<double> slopes = AlibiSlopes<double>(heads);
    for (int h = 0; h < heads; ++h) EXPECT_EQ(AlibiSlope<double>(heads, h), slopes[h]);
  }
  EXPECT_DOUBLE_EQ(AlibiSlopes<double>(12)[8], std::pow(2.0, -0.5));  // the first of the interleaved extension
}

}  // namespace
}  // namespace attn
