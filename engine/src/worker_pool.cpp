#include "worker_pool.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "kernels/simd/kernel_table.h"

#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
#define ATTN_NO_THREADS 1
#endif

namespace attn::parallel {
namespace {

// Claims items in increasing order until none are left; false when some task threw.
bool RunItems(const std::function<void(int)>& task, int items, std::atomic<int>* next) {
  bool ok = true;
  for (int i = next->fetch_add(1); i < items; i = next->fetch_add(1)) {
    try {
      task(i);
    } catch (...) {  // a worker must never let an exception reach std::terminate
      ok = false;
    }
  }
  return ok;
}

bool RunOnCaller(int items, const std::function<void(int)>& task) {
  std::atomic<int> next{0};
  return RunItems(task, items, &next);
}

#ifndef ATTN_NO_THREADS

class Pool {
 public:
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

  void Prewarm(int threads) {
    const int helpers = Grow(threads - 1);
    if (helpers <= 0) return;
    {
      std::lock_guard<std::mutex> lock(mu_);
      spin_until_.store(Now() + kSpinNanoseconds);
      warm_wanted_ = helpers;
      ++warm_calls_;
    }
    wake_.notify_all();
  }

  bool ForEach(int threads, int items, const std::function<void(int)>& task) {
    std::unique_lock<std::mutex> job(job_mu_, std::try_to_lock);
    if (!job.owns_lock()) return RunOnCaller(items, task);  // busy with another caller: run alone
    const int helpers = Grow(threads - 1 < items - 1 ? threads - 1 : items - 1);
    if (helpers <= 0) return RunOnCaller(items, task);
    {
      std::lock_guard<std::mutex> lock(mu_);
      task_ = &task;
      items_ = items;
      next_.store(0);
      failed_ = false;
      wanted_ = helpers;
      running_ = helpers;
      ++generation_;
      published_generation_.store(generation_);
    }
    wake_.notify_all();
    const bool ok = RunItems(task, items, &next_);
    std::unique_lock<std::mutex> lock(mu_);
    done_.wait(lock, [&] { return running_ == 0; });
    task_ = nullptr;
    return ok && !failed_;
  }

 private:
  // Starts workers until there are `count` (or the system refuses one); returns how many there are.
  int Grow(int count) {
    std::lock_guard<std::mutex> lock(mu_);
    while (static_cast<int>(workers_.size()) < count) {
      try {
        workers_.emplace_back(&Pool::Work, this, static_cast<int>(workers_.size()));
      } catch (...) {  // std::system_error: work with the ones there are
        break;
      }
    }
    const int have = static_cast<int>(workers_.size());
    return have < count ? have : count;
  }

  static long long Now() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }

  void Work(int index) {
    unsigned long long seen = 0, warmed = 0;
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      // Inside a Prewarm's window a worker does not sleep between jobs: it spins below.
      wake_.wait(lock, [&] {
        return stop_ || (generation_ != seen && index < wanted_) ||
               (index < warm_wanted_ && (warm_calls_ != warmed || Now() < spin_until_.load()));
      });
      if (stop_) return;
      warmed = warm_calls_;
      if (generation_ == seen || index >= wanted_) {  // prewarmed: spin until a job or the deadline
        lock.unlock();
        while (published_generation_.load() == seen && Now() < spin_until_.load()) std::this_thread::yield();
        lock.lock();
        continue;
      }
      seen = generation_;
      const std::function<void(int)>& task = *task_;
      const int items = items_;
      lock.unlock();
      const bool ok = RunItems(task, items, &next_);
      lock.lock();
      if (!ok) failed_ = true;
      if (--running_ == 0) done_.notify_one();
    }
  }

  std::mutex job_mu_;  // one ForEach at a time
  std::mutex mu_;      // everything below
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;
  const std::function<void(int)>* task_ = nullptr;
  int items_ = 0, wanted_ = 0, running_ = 0;
  std::atomic<int> next_{0};
  bool failed_ = false, stop_ = false;
  unsigned long long generation_ = 0;
  // Prewarm: workers below warm_wanted_ spin until a new generation is published or the deadline.
  static constexpr long long kSpinNanoseconds = 5'000'000;
  std::atomic<unsigned long long> published_generation_{0};
  std::atomic<long long> spin_until_{0};
  unsigned long long warm_calls_ = 0;
  int warm_wanted_ = 0;
};

#endif  // ATTN_NO_THREADS

}  // namespace

bool ThreadsAvailable() {
#ifdef ATTN_NO_THREADS
  return false;
#else
  return true;
#endif
}

#ifndef ATTN_NO_THREADS
namespace {
Pool& ThePool() {
  static Pool pool;
  return pool;
}
}  // namespace
#endif

void Prewarm(int threads) {
#ifndef ATTN_NO_THREADS
  if (threads > 1) ThePool().Prewarm(threads);
#endif
  (void)threads;
}

bool ForEach(int threads, int items, const std::function<void(int)>& task) {
  if (items <= 0) return true;
#ifndef ATTN_NO_THREADS
  if (threads > 1 && items > 1) {
    // The caller's ScopedKernelChoice travels with its items: each is tiled as on the caller.
    const KernelChoice* choice = simd::ThreadChoice();
    if (!choice) return ThePool().ForEach(threads, items, task);
    return ThePool().ForEach(threads, items, [&task, choice](int i) {
      const ScopedKernelChoice use(*choice);
      task(i);
    });
  }
#endif
  (void)threads;
  return RunOnCaller(items, task);
}

bool ForRowBlocks(int threads, int rows, int min_rows, const std::function<void(int begin, int end)>& block) {
  const int most = rows / min_rows;
  const int blocks = most < 1 ? 1 : most < threads ? most : threads;
  const long long per = (static_cast<long long>(rows) + blocks - 1) / blocks;
  return ForEach(blocks, blocks, [&](int i) {
    const long long begin = i * per, end = begin + per < rows ? begin + per : rows;
    if (begin < end) block(static_cast<int>(begin), static_cast<int>(end));
  });
}

}  // namespace attn::parallel
