// The hot spots with Eigen expressions (GEMMs auto-vectorised by the compiler); same interface and
// results as attn::reference::ReferenceOps, which the tests hold it to.
#pragma once

#include <limits>

#include "attn/matrix.h"

namespace attn::eigen {

template <typename T>
struct EigenOps {
  // out = x w + b (b empty: no bias).   x: (n, d_in), w: (d_in, d_out), b: (1, d_out)
  static void Project(const MatrixT<T>& x, const MatrixT<T>& w, const MatrixT<T>& b, MatrixT<T>* out) {
    out->noalias() = x * w;
    if (b.size()) out->rowwise() += b.row(0);
  }
  // out = q kᵀ.   q: (n, d_k), k: (M, d_k) -> (n, M)
  static void QueryKeyScores(const MatrixT<T>& q, const MatrixT<T>& k, MatrixT<T>* out) {
    out->noalias() = q * k.transpose();
  }
  // w = softmax_rows(s / temperature); a fully −inf row gives zeros.   (n, M) -> (n, M)
  static void Softmax(const MatrixT<T>& s, T temperature, MatrixT<T>* w) {
    *w = s * (T(1) / temperature);
    for (Eigen::Index i = 0; i < w->rows(); ++i) {
      auto row = w->row(i);
      const T row_max = row.maxCoeff();
      if (row_max == -std::numeric_limits<T>::infinity()) {
        row.setZero();  // fully masked row: zeros, not 0/0
        continue;
      }
      // Eigen's exp clamps its input at about −88 and returns a tiny denormal for −inf: clamp the
      // exponent well inside the normal range (exp(−80) ≈ 2e−35, no slow denormals), then give
      // masked keys exactly 0.
      row = (row.array() - row_max).max(T(-80)).exp();
      row = (s.row(i).array() == -std::numeric_limits<T>::infinity()).select(T(0), row);
      row /= row.sum();
    }
  }
  // out = w v.   w: (n, M), v: (M, d_v) -> (n, d_v)
  static void WeightedSum(const MatrixT<T>& w, const MatrixT<T>& v, MatrixT<T>* out) { out->noalias() = w * v; }
  // out = a b.   (n, m)·(m, d) -> (n, d)
  static void Product(const MatrixT<T>& a, const MatrixT<T>& b, MatrixT<T>* out) { out->noalias() = a * b; }
  // out = a bᵀ.   (n, d)·(m, d)ᵀ -> (n, m)
  static void ProductTransposedB(const MatrixT<T>& a, const MatrixT<T>& b, MatrixT<T>* out) {
    out->noalias() = a * b.transpose();
  }
  // out = aᵀ b.   (n, m)ᵀ·(n, d) -> (m, d)
  static void TransposedProduct(const MatrixT<T>& a, const MatrixT<T>& b, MatrixT<T>* out) {
    out->noalias() = a.transpose() * b;
  }
};

}  // namespace attn::eigen
