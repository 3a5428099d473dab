// [SECTION] a call's work · [SECTION] the rule · [SECTION] the process's crossovers · [SECTION] API
// thread_crossover.h: one thread or all of them, per size class of call, learnt from the calls.
#include "thread_crossover.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <utility>

#include "attn/thread_choice.h"
#include "worker_pool.h"

namespace attn::threads {

// [SECTION] a call's work

double CallFlops(const AttentionConfig& c, const pipeline::AttentionDims& d) {
  const double n = d.n, m = d.m, keys = d.keys;
  double flops = 2.0 * d.heads * n * keys * (static_cast<double>(d.d_k) + d.d_v);  // QKᵀ, PV
  if (c.project_inputs) {
    flops += 2.0 * n * d.d_model * (static_cast<double>(d.heads) * d.d_k);
    flops += 2.0 * m * d.d_kv_model * (static_cast<double>(d.kv_heads) * d.d_k);
    flops += 2.0 * m * d.d_value_model * (static_cast<double>(d.kv_heads) * d.d_v);
  }
  if (c.project_output) flops += 2.0 * n * (static_cast<double>(d.heads) * d.d_v) * d.d_out;
  return flops;
}

// [SECTION] the rule

int Crossover::ClassOf(double flops) {
  if (!(flops >= 1.0)) return 0;
  return std::min(std::ilogb(flops), kClasses - 1);
}

int Crossover::LowestThreaded() const {
  for (int c = 0; c < kClasses; ++c)
    if (classes_[c].verdict == Class::Verdict::kThreaded) return c;
  return kClasses;
}

int Crossover::HighestOneThread() const {
  for (int c = kClasses - 1; c >= 0; --c)
    if (classes_[c].verdict == Class::Verdict::kOneThread) return c;
  return -1;
}

int Crossover::ThreadedFrom() const {
  const int lowest = LowestThreaded(), highest = HighestOneThread();
  if (lowest < kClasses) return lowest;
  if (highest >= 0) return highest + 1;
  return kPriorClass;
}

Crossover::Plan Crossover::PlanCall(int size_class) {
  Class& own = classes_[size_class];
  if (own.verdict != Class::Verdict::kOpen) return {own.verdict == Class::Verdict::kThreaded, false};
  const int lowest = LowestThreaded(), highest = HighestOneThread();
  const bool threaded_below = lowest <= size_class, one_thread_above = highest >= size_class;
  if (threaded_below && !one_thread_above) return {true, false};
  if (one_thread_above && !threaded_below) return {false, false};
  // Between a one-thread class and a threaded one, or near the crossover: this class's own calls
  // decide. (Both sides measured above and below at once is noise; the window settles it.)
  const bool between = !threaded_below && !one_thread_above && lowest < kClasses && highest >= 0;
  const int estimate = ThreadedFrom();
  if (!between && std::abs(size_class - estimate) > kWindow) return {size_class >= estimate, false};
  const Plan plan{own.next_threaded, true};
  own.next_threaded = !own.next_threaded;
  return plan;
}

void Crossover::Record(int size_class, bool threaded, double seconds) {
  Class& own = classes_[size_class];
  if (own.verdict != Class::Verdict::kOpen) return;  // a call that was running when the verdict came
  own.fastest[threaded] = std::min(own.fastest[threaded], seconds);
  ++own.samples[threaded];
  if (own.samples[0] < kSamples || own.samples[1] < kSamples) return;
  own.verdict = own.fastest[1] < kMargin * own.fastest[0] ? Class::Verdict::kThreaded : Class::Verdict::kOneThread;
}

// [SECTION] the process's crossovers

namespace {

struct Crossovers {
  std::mutex mu;
  std::map<std::pair<int, int>, Crossover> by_kernel_and_threads;
};
Crossovers& Process() {
  static Crossovers process;
  return process;
}

bool Learns(int threads) { return threads > 1 && parallel::ThreadsAvailable(); }

bool& AllThreads() {
  static thread_local bool all = false;
  return all;
}

}  // namespace

ScopedAllThreads::ScopedAllThreads() : previous_(AllThreads()) { AllThreads() = true; }
ScopedAllThreads::~ScopedAllThreads() { AllThreads() = previous_; }

Crossover::Plan PlanCall(KernelId kernel, int threads, double flops) {
  if (!Learns(threads)) return {};
  if (AllThreads()) return {true, false};
  Crossovers& p = Process();
  const std::lock_guard<std::mutex> lock(p.mu);
  return p.by_kernel_and_threads[{static_cast<int>(kernel), threads}].PlanCall(Crossover::ClassOf(flops));
}

void Record(KernelId kernel, int threads, double flops, const Crossover::Plan& plan, double seconds) {
  if (!Learns(threads) || !plan.timed) return;
  Crossovers& p = Process();
  const std::lock_guard<std::mutex> lock(p.mu);
  p.by_kernel_and_threads[{static_cast<int>(kernel), threads}].Record(Crossover::ClassOf(flops), plan.threaded, seconds);
}

}  // namespace attn::threads

namespace attn {

// [SECTION] API

ThreadChoice ChosenThreads(KernelId kernel, int threads) {
  ThreadChoice choice;
  choice.kernel = kernel;
  choice.threads = threads;
  if (!threads::Learns(threads)) {
    choice.threaded_from_log2 = threads::Crossover::kClasses;
    return choice;
  }
  threads::Crossovers& p = threads::Process();
  const std::lock_guard<std::mutex> lock(p.mu);
  const auto found = p.by_kernel_and_threads.find({static_cast<int>(kernel), threads});
  if (found == p.by_kernel_and_threads.end()) {
    choice.threaded_from_log2 = threads::Crossover::kPriorClass;
    return choice;
  }
  const threads::Crossover& crossover = found->second;
  choice.threaded_from_log2 = crossover.ThreadedFrom();
  for (int c = 0; c < threads::Crossover::kClasses; ++c) {
    const threads::Crossover::Class& k = crossover.Get(c);
    if (k.verdict == threads::Crossover::Class::Verdict::kOpen) continue;
    choice.measured.push_back({c, k.fastest[0] * 1e3, k.fastest[1] * 1e3,
                               k.verdict == threads::Crossover::Class::Verdict::kThreaded});
  }
  return choice;
}

std::string DescribeThreadChoice(const ThreadChoice& c) {
  char text[160];
  std::snprintf(text, sizeof text, "%s, %d thread%s: ", KernelBuildName(c.kernel), c.threads, c.threads == 1 ? "" : "s");
  std::string s = text;
  if (c.threads <= 1) return s + "one thread always";
  if (c.threaded_from_log2 >= threads::Crossover::kClasses) return s + "one thread always (this build has no threads)";
  std::snprintf(text, sizeof text, "threaded from 2^%d FLOPs", c.threaded_from_log2);
  s += text;
  if (c.measured.empty()) return s + " (not measured yet: the starting guess)";
  s += " (measured:";
  for (std::size_t i = 0; i < c.measured.size(); ++i) {
    const ThreadChoice::SizeClass& k = c.measured[i];
    std::snprintf(text, sizeof text, "%s 2^%d one thread %.3g ms, %d threads %.3g ms", i ? ";" : "", k.log2_flops,
                  k.one_thread_ms, c.threads, k.threaded_ms);
    s += text;
  }
  return s + ")";
}

}  // namespace attn
