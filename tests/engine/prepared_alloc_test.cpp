// "Allocates nothing": every allocation of this process is counted (support/counting_malloc.h), and
// a PreparedAttention's repeated calls of one shape must make none, on every SIMD kernel of the
// build, for the benchmark layer's shape and for the options the fused pipeline handles with extra
// work (positions, RoPE, grouped-query heads). The free ForwardOutput on the same input must make
// some: the counter sees what it should.
// Native glibc builds without sanitizers only (tests/CMakeLists.txt): ASan and Emscripten bring
// their own malloc.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "attn/attention.h"
#include "attn/kernels.h"
#include "attn/prepared_attention.h"
#include "support/counting_malloc.h"
#include "support/random.h"

namespace attn {
namespace {

using testing::RandomMatrix;

long AllocationsDuring(const std::function<void()>& run) { return testing::AllocatedDuring(run).calls; }

struct Case {
  std::string name;
  int d_model, n;
  std::function<void(AttentionConfig*)> setup;
};

TEST(PreparedAlloc, RepeatedCallsOfOneShapeAllocateNothing) {
  const std::vector<Case> cases = {
      {"the benchmark layer (d_model 256, 4 heads, projections and biases)", 256, 64,
       [](AttentionConfig* c) { c->num_heads = 4, c->project_inputs = c->project_output = c->use_bias = true; }},
      {"n = 16", 256, 16,
       [](AttentionConfig* c) { c->num_heads = 4, c->project_inputs = c->project_output = c->use_bias = true; }},
      {"no projections, one head", 16, 33, [](AttentionConfig*) {}},
      {"sinusoidal, causal", 32, 20,
       [](AttentionConfig* c) { c->position = PositionEncoding::kSinusoidal, c->causal = true, c->num_heads = 2; }},
      {"learned positions, projections", 32, 20,
       [](AttentionConfig* c) { c->position = PositionEncoding::kLearned, c->project_inputs = true; }},
      {"RoPE, grouped-query 4/2, window", 32, 20,
       [](AttentionConfig* c) {
         c->position = PositionEncoding::kRope, c->num_heads = 4, c->num_kv_heads = 2, c->project_inputs = true;
         c->window_left = 3;
       }},
  };
  int checked = 0;
  for (KernelId kernel : AvailableKernels()) {
    if (kernel == KernelId::kReference || kernel == KernelId::kEigen) continue;
    for (const Case& c : cases) {
      AttentionConfig config;
      config.kernel = kernel;
      c.setup(&config);
      PreparedAttention layer;
      ASSERT_TRUE(Prepare(config, c.d_model, AttentionParameters(), &layer).ok()) << c.name;
      ASSERT_TRUE(layer.fused()) << c.name;
      const Matrix x = RandomMatrix(c.n, c.d_model, 1);
      Matrix out;
      ASSERT_TRUE(layer.Forward(x, &out).ok()) << c.name;  // sizes the workspace
      bool ok = true;
      const long prepared = AllocationsDuring([&] {
        for (int i = 0; i < 10; ++i) ok = ok && layer.Forward(x, &out).ok();
      });
      EXPECT_TRUE(ok);
      EXPECT_EQ(prepared, 0) << KernelName(kernel) << " " << c.name << ": allocations in 10 repeated calls";
      AttentionInputs inputs;
      inputs.query = x;
      const long free_function = AllocationsDuring([&] { ok = ForwardOutput(config, inputs, AttentionParameters(), &out).ok(); });
      EXPECT_TRUE(ok);
      EXPECT_GT(free_function, 0) << c.name << ": the counter missed ForwardOutput's allocations";
      ++checked;
    }
  }
  if (checked == 0) GTEST_SKIP() << "no SIMD kernel on this CPU";
}

}  // namespace
}  // namespace attn
