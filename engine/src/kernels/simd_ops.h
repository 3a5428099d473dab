// The attention pipeline's hot spots on a hand-written SIMD variant (kernels/simd/): same interface
// and results as attn::reference::ReferenceOps, which the tests hold it to. Float only.
// The pipeline calls Ops statically, so the variant in use is set for the duration of one call by
// ScopedKernelTable rather than by a template argument: one pipeline instantiation serves them all.
#pragma once

#include <cassert>

#include "attn/matrix.h"
#include "kernels/eigen_ops.h"
#include "kernels/simd/kernel_table.h"

namespace attn::simd {

// The table SimdOps uses on this thread, set by ScopedKernelTable.
const KernelTable*& ActiveKernelTable();

// Threads SimdOps::Project may spread its rows over (worker_pool.h), set by ScopedKernelTable; 1 by
// default (Forward, Backward), config.threads on ForwardOutput's fused path.
int& ActiveThreads();

class ScopedKernelTable {
 public:
  explicit ScopedKernelTable(const KernelTable* table, int threads = 1)
      : previous_(ActiveKernelTable()), previous_threads_(ActiveThreads()) {
    ActiveKernelTable() = table;
    ActiveThreads() = threads;
  }
  ~ScopedKernelTable() {
    ActiveKernelTable() = previous_;
    ActiveThreads() = previous_threads_;
  }
  ScopedKernelTable(const ScopedKernelTable&) = delete;
  ScopedKernelTable& operator=(const ScopedKernelTable&) = delete;

 private:
  const KernelTable* previous_;
  int previous_threads_;
};

struct SimdOps {
  static const KernelTable& Table() {
    assert(ActiveKernelTable() && "SimdOps used outside a ScopedKernelTable");
    return *ActiveKernelTable();
  }
  static int Int(Eigen::Index i) { return static_cast<int>(i); }
  // Rows each thread of a threaded Project gets at least.
  static constexpr int kMinRowsPerThread = 256;
  // out = x w + b (b empty: no bias), its rows spread over ActiveThreads() threads when there are at
  // least 2·kMinRowsPerThread.   x: (n, d_in), w: (d_in, d_out), b: (1, d_out)
  static void Project(const Matrix& x, const Matrix& w, const Matrix& b, Matrix* out);
  // out = q kᵀ.   q: (n, d_k), k: (M, d_k) -> (n, M)
  static void QueryKeyScores(const Matrix& q, const Matrix& k, Matrix* out) { ProductTransposedB(q, k, out); }
  // w = softmax_rows(s / temperature); a fully −inf row gives zeros.   (n, M) -> (n, M)
  static void Softmax(const Matrix& s, float temperature, Matrix* w) {
    w->resize(s.rows(), s.cols());
    Table().softmax_rows(s.data(), w->data(), Int(s.rows()), Int(s.cols()), Int(s.cols()), 1.0f / temperature);
  }
  // out = w v.   w: (n, M), v: (M, d_v) -> (n, d_v)
  static void WeightedSum(const Matrix& w, const Matrix& v, Matrix* out) { Product(w, v, out); }
  // out = a b.   (n, m)·(m, d) -> (n, d)
  static void Product(const Matrix& a, const Matrix& b, Matrix* out) {
    out->resize(a.rows(), b.cols());
    Table().gemm(Int(a.rows()), Int(b.cols()), Int(a.cols()), a.data(), Int(a.cols()), b.data(), Int(b.cols()), false,
                 nullptr, out->data(), Int(b.cols()));
  }
  // out = a bᵀ.   (n, d)·(m, d)ᵀ -> (n, m)
  static void ProductTransposedB(const Matrix& a, const Matrix& b, Matrix* out) {
    out->resize(a.rows(), b.rows());
    Table().gemm(Int(a.rows()), Int(b.rows()), Int(a.cols()), a.data(), Int(a.cols()), b.data(), Int(b.cols()), true,
                 nullptr, out->data(), Int(b.rows()));
  }
  // out = aᵀ b (backward only, not a hot spot of the forward pass): Eigen's.
  static void TransposedProduct(const Matrix& a, const Matrix& b, Matrix* out) {
    eigen::EigenOps<float>::TransposedProduct(a, b, out);
  }
};

}  // namespace attn::simd
