// From how much work ForwardOutput's fused path spreads a call over AttentionConfig::threads, chosen
// on this machine by timing real calls. Starting the pool's workers, handing them the heads and
// waiting for the last costs tens to hundreds of microseconds, more on a busy or slower machine, so
// a small call is faster on the caller alone; where that stops depends on the CPU, the other load and
// the thread count. Nothing extra is run to find out: the calls whose size is near the crossover
// run alternately on one thread and on all, five of each, and their size class keeps the faster
// way (engine/src/thread_crossover.h has the rule). The output is bit-identical either way
// (AttentionConfig::threads), so learning changes only how long the first few calls take.
#pragma once

#include <string>
#include <vector>

#include "attn/kernels.h"

namespace attn {

struct ThreadChoice {
  KernelId kernel = KernelId::kReference;
  int threads = 1;  // the count the calls asked for (AttentionConfig::threads)
  // Calls of at least 2^threaded_from_log2 FLOPs run on `threads` threads, smaller ones on the
  // caller: from the classes measured so far, or the engine's starting guess where none is.
  int threaded_from_log2 = 0;
  struct SizeClass {
    int log2_flops = 0;       // calls of 2^log2_flops to 2^(log2_flops + 1) FLOPs
    double one_thread_ms = 0.0;  // the fastest call of this class on one thread
    double threaded_ms = 0.0;    // and on `threads`
    bool threaded = false;    // the verdict
  };
  std::vector<SizeClass> measured;  // the classes decided by timing, smallest first
};

// What this process has learnt for calls of `kernel` on `threads` threads (nothing measured yet: the
// starting guess alone). threads <= 1, or a build without threads: threaded_from_log2 = 64 (never).
ThreadChoice ChosenThreads(KernelId kernel, int threads);

// "avx512, 2 threads: threaded from 2^26 FLOPs (measured: 2^23 one thread 0.04 ms, 2 threads 0.09 ms;
// 2^26 0.31 ms, 0.26 ms)"; "… (not measured yet: the starting guess)".
std::string DescribeThreadChoice(const ThreadChoice& choice);

}  // namespace attn
