// AttentionConfig::threads: validated the same way on every kernel and path, and ForwardOutput's
// output bit-identical for every thread count (heads and interleaved query tiles on the pool of
// worker_pool.h); the pool itself runs every item once, survives a throwing item and a second caller;
// the size of call from which threads are used is learnt from the calls (thread_crossover.h).
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
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
#include "attn/thread_choice.h"
#include "call_budget.h"
#include "pipeline/dims.h"
#include "support/random.h"
#include "thread_crossover.h"
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
  const threads::ScopedAllThreads all;  // however small the call
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
  const threads::ScopedAllThreads all;
  int checked = 0;
  for (KernelId kernel : AvailableKernels()) {
    std::vector<Matrix> per_key_tile;
    for (const KernelChoice& choice : KernelChoiceCandidates(kernel)) {
      const KernelChoice first = KernelChoiceCandidates(kernel).front();
      if (choice.gemm_rows != first.gemm_rows || choice.gemm_slice_kb != first.gemm_slice_kb ||
          choice.gemm_fused_multiply_add != first.gemm_fused_multiply_add || choice.attention_rows != first.attention_rows)
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
  const threads::ScopedAllThreads all;
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

// [the thread crossover]

AttentionConfig BenchLayer() {
  AttentionConfig c;
  c.num_heads = 4, c.project_inputs = c.project_output = c.use_bias = true;
  return c;
}

TEST(ThreadCrossover, ACallsFlopsAreItsProjectionsAndItsAttention) {
  const AttentionConfig bench = BenchLayer();
  const pipeline::AttentionDims d = pipeline::ResolveDims(bench, 128, 128, 0, 256, 256, 256, std::nullopt);
  EXPECT_EQ(threads::CallFlops(bench, d), 8.0 * 128 * 256 * 256 + 4.0 * 128 * 128 * 256);  // 2^26.3
  EXPECT_EQ(threads::Crossover::ClassOf(threads::CallFlops(bench, d)), 26);
  // Cross-attention without projections, a cache of 30 rows before 10 new keys, 2 heads of d_k 3, d_v 5.
  AttentionConfig cross;
  cross.num_heads = 2;
  const pipeline::AttentionDims c = pipeline::ResolveDims(cross, 7, 10, 30, 6, 6, 10, std::nullopt);
  EXPECT_EQ(threads::CallFlops(cross, c), 2.0 * 2 * 7 * 40 * (3 + 5));
  using X = threads::Crossover;
  EXPECT_EQ(X::ClassOf(0.0), 0);
  EXPECT_EQ(X::ClassOf(std::nan("")), 0);
  EXPECT_EQ(X::ClassOf(1.0), 0);
  EXPECT_EQ(X::ClassOf(std::ldexp(1.0, 27) - 1), 26);
  EXPECT_EQ(X::ClassOf(1e300), X::kClasses - 1);
}

// Plays `x`'s plans for `size_class` until its verdict, each one-thread call taking `one` s and each
// threaded `threaded` s; checks that every planned call was timed and the two ways alternated.
void Teach(threads::Crossover* x, int size_class, double one, double threaded) {
  for (int call = 0; call < 2 * threads::Crossover::kSamples; ++call) {
    const threads::Crossover::Plan plan = x->PlanCall(size_class);
    ASSERT_TRUE(plan.timed) << "class " << size_class << ", call " << call;
    EXPECT_EQ(plan.threaded, call % 2 == 1) << "class " << size_class << ", call " << call;
    x->Record(size_class, plan.threaded, plan.threaded ? threaded : one);
  }
}

void ExpectUntimed(threads::Crossover* x, int size_class, bool threaded) {
  const threads::Crossover::Plan plan = x->PlanCall(size_class);
  EXPECT_FALSE(plan.timed) << "class " << size_class;
  EXPECT_EQ(plan.threaded, threaded) << "class " << size_class;
}

TEST(ThreadCrossover, TimesTheClassesNearTheGuessAndFollowsTheirVerdicts) {
  using X = threads::Crossover;
  X x;
  EXPECT_EQ(x.ThreadedFrom(), X::kPriorClass);
  ExpectUntimed(&x, X::kPriorClass - X::kWindow - 1, false);  // far from the guess: its side
  ExpectUntimed(&x, X::kPriorClass + X::kWindow + 1, true);
  Teach(&x, 26, 2e-3, 1e-3);  // threads twice as fast
  ExpectUntimed(&x, 26, true);
  ExpectUntimed(&x, 27, true);  // above a threaded class
  // Below it the class times its own calls; threads 2% faster is within the margin: one thread.
  Teach(&x, 25, 1e-3, 0.98e-3);
  ExpectUntimed(&x, 25, false);
  ExpectUntimed(&x, 24, false);
  EXPECT_EQ(x.ThreadedFrom(), 26);
  // A late sample of a decided class (a call in flight at the verdict) changes nothing.
  x.Record(25, true, 1e-9);
  ExpectUntimed(&x, 25, false);
}

TEST(ThreadCrossover, TheWindowFollowsTheMeasuredCrossover) {
  using X = threads::Crossover;
  X x;
  Teach(&x, 26, 1e-3, 3e-3);  // a slow pool: threads lose at the guess
  EXPECT_EQ(x.ThreadedFrom(), 27);
  ExpectUntimed(&x, 25, false);
  EXPECT_TRUE(x.PlanCall(29).timed);  // within the window of 27 now: no longer assumed threaded
  ExpectUntimed(&x, 27 + X::kWindow + 1, true);
  // A threaded verdict at 29 leaves 27 and 28 between the two: each times its own calls.
  X y;
  Teach(&y, 26, 1e-3, 3e-3);
  Teach(&y, 29, 8e-3, 5e-3);
  EXPECT_EQ(y.ThreadedFrom(), 29);
  EXPECT_TRUE(y.PlanCall(27).timed);
  EXPECT_TRUE(y.PlanCall(28).timed);
  ExpectUntimed(&y, 30, true);
  ExpectUntimed(&y, 20, false);
}

TEST(ThreadCrossover, DescribesTheVerdicts) {
  ThreadChoice c;
  c.kernel = KernelId::kReference;
  c.threads = 2;
  c.threaded_from_log2 = 26;
  EXPECT_EQ(DescribeThreadChoice(c), std::string(KernelBuildName(c.kernel)) +
                                         ", 2 threads: threaded from 2^26 FLOPs (not measured yet: the starting guess)");
  c.measured = {{23, 0.04, 0.0912, false}, {26, 0.3125, 0.26, true}};
  EXPECT_EQ(DescribeThreadChoice(c), std::string(KernelBuildName(c.kernel)) +
                                         ", 2 threads: threaded from 2^26 FLOPs (measured: 2^23 one thread 0.04 ms, "
                                         "2 threads 0.0912 ms; 2^26 one thread 0.312 ms, 2 threads 0.26 ms)");
  c.threads = 1;
  EXPECT_EQ(DescribeThreadChoice(c), std::string(KernelBuildName(c.kernel)) + ", 1 thread: one thread always");
}

// A fresh (kernel, thread count) pair — 7 threads, which no other test asks for — learns the bench
// layer's class at n = 128 from its own calls: kSamples each way, every one the one-thread bits, and
// ChosenThreads publishes the verdict its fastest times give.
TEST(Threads, CallsNearTheCrossoverDecideTheirClassByTheirOwnTimes) {
  KernelId kernel = KernelId::kReference;
  for (KernelId k : AvailableKernels())
    if (KernelChoiceCandidates(k).size()) kernel = k;  // the widest SIMD variant: the fused path
  if (kernel == KernelId::kReference) GTEST_SKIP() << "no SIMD variant on this target";
  AttentionConfig config = BenchLayer();
  config.kernel = kernel;
  config.seed = 9;
  AttentionInputs inputs;
  inputs.query = RandomMatrix(128, 256, 41);
  Matrix one;
  ASSERT_TRUE(ForwardOutput(config, inputs, AttentionParameters(), &one).ok());
  config.threads = 7;
  for (int call = 0; call < 2 * threads::Crossover::kSamples; ++call) {
    Matrix many;
    ASSERT_TRUE(ForwardOutput(config, inputs, AttentionParameters(), &many).ok());
    EXPECT_TRUE(BitIdentical(one, many)) << "call " << call;
  }
  const ThreadChoice chosen = ChosenThreads(kernel, 7);
  EXPECT_EQ(chosen.kernel, kernel);
  EXPECT_EQ(chosen.threads, 7);
  if (!parallel::ThreadsAvailable()) {
    EXPECT_EQ(chosen.threaded_from_log2, threads::Crossover::kClasses);
    EXPECT_TRUE(chosen.measured.empty());
    return;
  }
  ASSERT_EQ(chosen.measured.size(), 1u) << DescribeThreadChoice(chosen);
  const ThreadChoice::SizeClass& k = chosen.measured[0];
  EXPECT_EQ(k.log2_flops, 26);
  EXPECT_TRUE(k.one_thread_ms > 0 && std::isfinite(k.one_thread_ms)) << k.one_thread_ms;
  EXPECT_TRUE(k.threaded_ms > 0 && std::isfinite(k.threaded_ms)) << k.threaded_ms;
  EXPECT_EQ(k.threaded, k.threaded_ms < threads::Crossover::kMargin * k.one_thread_ms);
  EXPECT_EQ(chosen.threaded_from_log2, k.threaded ? 26 : 27);
  EXPECT_EQ(ChosenThreads(kernel, 1).threaded_from_log2, threads::Crossover::kClasses);  // never
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
