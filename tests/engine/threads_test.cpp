// AttentionConfig::threads: validated the same way on every kernel and path, and ForwardOutput's
// output bit-identical for every thread count (heads and interleaved query tiles on the pool of
// worker_pool.h); the pool itself runs every item once, survives a throwing item and a second caller.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "attn/attention.h"
#include "attn/kernel_choice.h"
#include "attn/kernels.h"
#include "attn/limits.h"
#include "call_budget.h"
#include "pipeline/dims.h"
#include "support/random.h"
#include "worker_pool.h"

namespace attn {
namespace {

using testing::RandomMatrix;

bool BitIdentical(const Matrix& a, const Matrix& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), sizeof(float) * static_cast<size_t>(a.size())) == 0;
}

TEST(Threads, OutOfRangeCountsGetTheSameStatusOnEveryKernelAndPath) {
  AttentionInputs inputs;
  inputs.query = RandomMatrix(5, 4, 1);
  const struct {
    int threads;
    const char* message;
  } cases[] = {{0, "threads: expected a value >= 1, got 0"},
               {-3, "threads: expected a value >= 1, got -3"},
               {65, "threads: expected at most 64, got 65"},
               {2147483647, "threads: expected at most 64, got 2147483647"}};
  for (const auto& c : cases) {
    for (KernelId kernel : AvailableKernels()) {
      AttentionConfig config;
      config.kernel = kernel;
      config.threads = c.threads;
      AttentionResult full;
      Matrix out = Matrix::Constant(2, 2, 7.0f);
      const Status forward = Forward(config, inputs, &full);
      const Status fused = ForwardOutput(config, inputs, AttentionParameters(), &out);
      EXPECT_EQ(forward.code(), StatusCode::kOutOfRange) << KernelName(kernel);
      EXPECT_EQ(forward.message(), c.message) << KernelName(kernel);
      EXPECT_EQ(fused.code(), StatusCode::kOutOfRange) << KernelName(kernel);
      EXPECT_EQ(fused.message(), c.message) << KernelName(kernel);
      EXPECT_TRUE(BitIdentical(out, Matrix::Constant(2, 2, 7.0f))) << "the output must be left alone";
    }
  }
  AttentionConfig most;
  most.threads = static_cast<int>(Limits::max_threads);
  AttentionResult full;
  EXPECT_TRUE(Forward(most, inputs, &full).ok());
}

// Each thread packs its own keys and values and rotates its own query: the fused call's estimate
// grows by exactly that per extra thread, and the bench's layer at n = 16384 still fits on 2 threads.
TEST(Threads, TheCallBudgetCountsEachThreadsScratch) {
  AttentionConfig bench;
  bench.num_heads = 4, bench.project_inputs = bench.project_output = bench.use_bias = true;
  const pipeline::AttentionDims d = pipeline::ResolveDims(bench, 1000, 1000, 0, 256, 256, 256, std::nullopt);
  const int64_t one = budget::EstimatedBytes(budget::CallKind::kFusedForward, bench, d);
  bench.threads = 4;
  const int64_t four = budget::EstimatedBytes(budget::CallKind::kFusedForward, bench, d);
  const int64_t per_thread = ((1000 + 64) * (64 + 64 + 64) + 1000 * 64) * int64_t{sizeof(float)};
  EXPECT_EQ(four - one, 3 * per_thread);
  bench.threads = 2;
  EXPECT_TRUE(budget::CallFits(budget::CallKind::kFusedForward, bench,
                               pipeline::ResolveDims(bench, 16384, 16384, 0, 256, 256, 256, std::nullopt))
                  .ok());
}

struct ThreadCase {
  std::string name;
  int n, d_model;
  std::function<void(AttentionConfig*, AttentionInputs*)> setup;
};

std::vector<ThreadCase> ThreadCases() {
  return {
      {"the bench layer: 4 heads, projections, biases", 600, 32,
       [](AttentionConfig* c, AttentionInputs*) {
         c->num_heads = 4, c->project_inputs = c->project_output = c->use_bias = true;
       }},
      {"one head: query tiles split over the threads", 700, 8, [](AttentionConfig*, AttentionInputs*) {}},
      {"3 heads, causal (unequal tiles)", 515, 12,
       [](AttentionConfig* c, AttentionInputs*) { c->num_heads = 3, c->causal = true, c->project_inputs = true; }},
      {"grouped-query 4 / 2, sliding window 70 left, 5 right, RoPE", 530, 16,
       [](AttentionConfig* c, AttentionInputs*) {
         c->num_heads = 4, c->num_kv_heads = 2, c->project_inputs = true, c->position = PositionEncoding::kRope;
         c->window_left = 70, c->window_right = 5;
       }},
      {"cross-attention, 97 keys, query offset 40", 512, 8,
       [](AttentionConfig* c, AttentionInputs* in) {
         c->num_heads = 2, c->causal = true;
         in->key = RandomMatrix(97, 8, 77);
         in->value = RandomMatrix(97, 8, 78);
         in->query_offset = 40;
       }},
  };
}

// Sharp scores (scale 3/√d_k) so rows differ in which keys dominate, and tiles where a row's scores
// reach far below its max: any change in a row's arithmetic would show in the bits.
TEST(Threads, ForwardOutputIsBitIdenticalForEveryThreadCount) {
  int checked = 0;
  for (KernelId kernel : AvailableKernels()) {
    for (const ThreadCase& c : ThreadCases()) {
      AttentionConfig config;
      config.kernel = kernel;
      config.seed = 5;
      AttentionInputs inputs;
      inputs.query = RandomMatrix(c.n, c.d_model, 31, -3.0f, 3.0f);
      c.setup(&config, &inputs);
      Matrix one;
      ASSERT_TRUE(ForwardOutput(config, inputs, AttentionParameters(), &one).ok()) << c.name;
      ASSERT_TRUE(one.allFinite()) << c.name;
      for (int threads : {2, 3, 8}) {
        config.threads = threads;
        Matrix many;
        const Status status = ForwardOutput(config, inputs, AttentionParameters(), &many);
        ASSERT_TRUE(status.ok()) << c.name << ": " << status.message();
        EXPECT_TRUE(BitIdentical(one, many)) << KernelName(kernel) << " " << c.name << ", " << threads << " threads";
        ++checked;
      }
      config.threads = 1;
    }
  }
  EXPECT_EQ(checked, 3 * static_cast<int>(ThreadCases().size() * AvailableKernels().size()));
}

// A ScopedKernelChoice travels to the worker threads of its caller's call: under each attention key
// tile (a setting that changes the bits), the threaded output equals the caller's own, and the key
// tiles' outputs are not all the same bits (so a worker tiling as the process does would show).
TEST(Threads, WorkersTileAsTheirCallersScopedKernelChoice) {
  int checked = 0;
  for (KernelId kernel : AvailableKernels()) {
    std::vector<Matrix> per_key_tile;
    for (const KernelChoice& choice : KernelChoiceCandidates(kernel)) {
      const KernelChoice first = KernelChoiceCandidates(kernel).front();
      if (choice.gemm_rows != first.gemm_rows || choice.gemm_slice_kb != first.gemm_slice_kb ||
          choice.attention_rows != first.attention_rows)
        continue;  // one candidate per key tile
      const ScopedKernelChoice use(choice);
      const ThreadCase c = ThreadCases()[1];  // one head: query tiles split over the threads
      AttentionConfig config;
      config.kernel = kernel;
      AttentionInputs inputs;
      inputs.query = RandomMatrix(c.n, c.d_model, 31, -3.0f, 3.0f);
      Matrix one, many;
      ASSERT_TRUE(ForwardOutput(config, inputs, AttentionParameters(), &one).ok());
      config.threads = 3;
      ASSERT_TRUE(ForwardOutput(config, inputs, AttentionParameters(), &many).ok());
      EXPECT_TRUE(BitIdentical(one, many)) << DescribeKernelChoice(choice);
      per_key_tile.push_back(one);
      ++checked;
    }
    if (per_key_tile.size() > 1) {
      bool some_differ = false;
      for (const Matrix& m : per_key_tile) some_differ = some_differ || !BitIdentical(m, per_key_tile[0]);
      EXPECT_TRUE(some_differ) << KernelName(kernel) << ": every key tile gave the same bits";
    }
  }
  if (checked == 0) GTEST_SKIP() << "no SIMD variant on this target";
}

// An overflowing head reports the same (first) head whatever the thread count.
TEST(Threads, OverflowNamesTheSameHeadForEveryThreadCount) {
  for (KernelId kernel : AvailableKernels()) {
    AttentionConfig config;
    config.kernel = kernel;
    config.num_heads = 4;
    AttentionInputs inputs;
    inputs.query = RandomMatrix(520, 8, 3);
    inputs.query(7, 4) = inputs.query(9, 4) = 1e30f;  // head 2 (columns 4, 5): q·k = 1e60
    inputs.query(7, 6) = 1e30f;                       // head 3 too
    std::string first;
    for (int threads : {1, 2, 4}) {
      config.threads = threads;
      Matrix out;
      const Status status = ForwardOutput(config, inputs, AttentionParameters(), &out);
      EXPECT_EQ(status.code(), StatusCode::kNonFinite) << KernelName(kernel) << " " << threads;
      if (threads == 1) first = status.message();
      EXPECT_EQ(status.message(), first) << KernelName(kernel) << " " << threads << " threads";
    }
  }
}

TEST(WorkerPool, RunsEveryItemOnceOnAnyThreadCount) {
  for (int threads : {1, 2, 5}) {
    for (int items : {0, 1, 2, 7, 100}) {
      std::vector<std::atomic<int>> runs(static_cast<size_t>(items));
      for (auto& r : runs) r = 0;
      EXPECT_TRUE(parallel::ForEach(threads, items, [&](int i) { ++runs[i]; }));
      for (int i = 0; i < items; ++i) EXPECT_EQ(runs[i].load(), 1) << threads << " threads, item " << i;
    }
  }
}

// The WebAssembly build has no threads and its engine no exception support: these two cannot run
// there, and a skipped test counts as not run (scripts/count-results.mjs), so they are not built.
#ifndef __EMSCRIPTEN__
TEST(WorkerPool, AThrowingItemIsReportedAndTheOthersStillRun) {
  ASSERT_TRUE(parallel::ThreadsAvailable());
  for (int threads : {1, 3}) {
    std::atomic<int> ran{0};
    const bool ok = parallel::ForEach(threads, 20, [&](int i) {
      ++ran;
      if (i == 4) throw std::runtime_error("item 4");
    });
    EXPECT_FALSE(ok) << threads;
    EXPECT_EQ(ran.load(), 20) << threads;
    EXPECT_TRUE(parallel::ForEach(threads, 3, [](int) {})) << "the pool must still work afterwards";
  }
}

TEST(WorkerPool, TwoCallersAtOnceBothFinish) {
  ASSERT_TRUE(parallel::ThreadsAvailable());
  std::atomic<long> sums[2] = {{0}, {0}};
  const auto caller = [&](int which) {
    for (int round = 0; round < 50; ++round)
      EXPECT_TRUE(parallel::ForEach(3, 64, [&](int i) { sums[which] += i; }));
  };
  std::thread other(caller, 1);
  caller(0);
  other.join();
  EXPECT_EQ(sums[0].load(), 50L * (63 * 64 / 2));
  EXPECT_EQ(sums[1].load(), 50L * (63 * 64 / 2));
}
#endif  // __EMSCRIPTEN__

}  // namespace
}  // namespace attn
