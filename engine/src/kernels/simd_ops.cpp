// The SIMD variant SimdOps calls on this thread (kernels/simd_ops.h).
#include "kernels/simd_ops.h"

#include <cstddef>
#include <new>

#include "worker_pool.h"

namespace attn::simd {

const KernelTable*& ActiveKernelTable() {
  static thread_local const KernelTable* table = nullptr;
  return table;
}

int& ActiveThreads() {
  static thread_local int threads = 1;
  return threads;
}

void SimdOps::Project(const Matrix& x, const Matrix& w, const Matrix& b, Matrix* out) {
  out->resize(x.rows(), w.cols());
  const auto rows = [&](int begin, int end) {
    Table().gemm(end - begin, Int(w.cols()), Int(x.cols()), x.data() + static_cast<std::size_t>(begin) * x.cols(),
                 Int(x.cols()), w.data(), Int(w.cols()), false, b.size() ? b.data() : nullptr,
                 out->data() + static_cast<std::size_t>(begin) * w.cols(), Int(w.cols()));
  };
  if (ActiveThreads() <= 1 || x.rows() < 2 * kMinRowsPerThread) {
    rows(0, Int(x.rows()));
    return;
  }
  // Rows of a GEMM are independent (each is the same sequence of multiply-adds wherever it falls), so
  // the split changes no bit. The workers use this thread's table: pass it on.
  const KernelTable* table = &Table();
  const bool ok = parallel::ForRowBlocks(ActiveThreads(), Int(x.rows()), kMinRowsPerThread, [&](int begin, int end) {
    const ScopedKernelTable use(table);
    rows(begin, end);
  });
  if (!ok) throw std::bad_alloc();  // a worker's GEMM scratch: the entry point's safety net reports it
}

}  // namespace attn::simd
