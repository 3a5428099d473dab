// From how much work a call is worth spreading over threads, learnt from the calls themselves
// (attn/thread_choice.h says why and what is published). The rule is kept apart from the clock so
// the tests can feed it times.
#pragma once

#include <limits>

#include "attn/kernels.h"
#include "pipeline/dims.h"

namespace attn::threads {

// Floating-point operations of one ForwardOutput call on the fused path (multiply-adds count two):
// the projections that run and the attention's QKᵀ and PV over every key, masked or not (the kernel
// skips masked tiles; the class of a causal call is then one too high at most).
double CallFlops(const AttentionConfig& config, const pipeline::AttentionDims& d);

// One thread or all of them, per size class: class c holds the calls of 2^c to 2^(c+1) FLOPs.
// A class near the crossover is decided by timing its own calls, alternately on one thread and on
// all, kSamples of each, the fastest of each kept; threads win only when faster by kMargin. A class
// with a measured verdict on its side (a threaded class at or below it, a one-thread class at or
// above it) follows it untimed; so does a class over kWindow classes from the crossover as measured
// so far (kPriorClass before anything is measured), on its side of it. So only the classes between
// the measured verdicts, and a few around them, ever run a call the slower way, kSamples times.
class Crossover {
 public:
  static constexpr int kClasses = 64;
  static constexpr int kSamples = 5;
  static constexpr double kMargin = 0.97;
  // 2^26 FLOPs: the bench layer (d_model 256, 4 heads) at about 110 queries, where 2 threads began to
  // pay on Zen 4 and Zen 5 (n = 96: 0.247 ms on one thread, 0.254 on two; n = 128: 0.350 and 0.294).
  static constexpr int kPriorClass = 26;
  static constexpr int kWindow = 3;

  struct Plan {
    bool threaded = false;
    bool timed = false;  // a sample of its class: report its time with Record
  };
  struct Class {
    double fastest[2] = {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()};  // s
    int samples[2] = {0, 0};  // [0]: one thread, [1]: threaded
    bool next_threaded = false;
    enum class Verdict { kOpen, kOneThread, kThreaded } verdict = Verdict::kOpen;
  };

  static int ClassOf(double flops);
  Plan PlanCall(int size_class);
  void Record(int size_class, bool threaded, double seconds);

  // The first class that runs threaded, by the verdicts so far (kPriorClass before any): calls of
  // this class or above run threaded unless their own class's verdict says otherwise.
  int ThreadedFrom() const;
  const Class& Get(int size_class) const { return classes_[size_class]; }

 private:
  // The lowest class measured threaded and the highest measured one-thread (-1 / kClasses: none).
  int LowestThreaded() const;
  int HighestOneThread() const;

  Class classes_[kClasses];
};

// The process's crossover for (kernel, threads), shared by every call: how the call of `flops` runs.
// threads <= 1, or a build without threads: one thread, untimed. Under a ScopedAllThreads: threaded,
// untimed.
Crossover::Plan PlanCall(KernelId kernel, int threads, double flops);
void Record(KernelId kernel, int threads, double flops, const Crossover::Plan& plan, double seconds);

// The calling thread's calls run on all their config.threads, untimed and teaching the crossover
// nothing, until destroyed: the tests hold the threaded path to the one-thread bits whatever size of
// call the crossover would keep on one thread. Nests.
class ScopedAllThreads {
 public:
  ScopedAllThreads();
  ~ScopedAllThreads();
  ScopedAllThreads(const ScopedAllThreads&) = delete;
  ScopedAllThreads& operator=(const ScopedAllThreads&) = delete;

 private:
  bool previous_;
};

}  // namespace attn::threads
