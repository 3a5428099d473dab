// "Allocates nothing": every allocation of this process is counted (glibc's malloc, calloc,
// realloc and the aligned ones are replaced by counting wrappers around glibc's own; operator new
// and Eigen both end in malloc), and a PreparedAttention's repeated calls of one shape must make
// none, on every SIMD kernel of the build, for the benchmark layer's shape and for the options the
// fused pipeline handles with extra work (positions, RoPE, grouped-query heads). The free
// ForwardOutput on the same input must make some: the counter sees what it should.
// Native glibc builds without sanitizers only (tests/CMakeLists.txt): ASan and Emscripten bring
// their own malloc.
#include <gtest/gtest.h>
#include <malloc.h>

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "attn/attention.h"
#include "attn/kernels.h"
#include "attn/prepared_attention.h"
#include "support/random.h"

extern "C" {
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* p, size_t size);
void* __libc_memalign(size_t alignment, size_t size);
}

namespace {
std::atomic<long> allocations{0};
}  // namespace

extern "C" {
void* malloc(size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(size);
}
void* calloc(size_t count, size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_calloc(count, size);
}
void* realloc(void* p, size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_realloc(p, size);
}
void* memalign(size_t alignment, size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_memalign(alignment, size);
}
void* aligned_alloc(size_t alignment, size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** out, size_t alignment, size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  *out = __libc_memalign(alignment, size);
  return *out ? 0 : 12;  // ENOMEM
}
}

namespace attn {
namespace {

using testing::RandomMatrix;

long AllocationsDuring(const std::function<void()>& run) {
  const long before = allocations.load();
  run();
  return allocations.load() - before;
}

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
