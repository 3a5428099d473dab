// The hot spots of attention as plain scalar loops: projection GEMM, QKᵀ, softmax, weights·V.
// Templated on the scalar so the tests can run them in double precision. Never optimised: every
// fast kernel (attn::eigen::EigenOps; attn::simd::SimdOps over the hand-written wasm_simd128, avx2
// and avx512 variants) implements the same static functions and is checked against these.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

#include "attn/matrix.h"

namespace attn::reference {

// out = a b.   a: (n, m), b: (m, d) -> out: (n, d)
template <typename T>
void MatMul(const MatrixT<T>& a, const MatrixT<T>& b, MatrixT<T>* out) {
  const Eigen::Index n = a.rows(), m = a.cols(), d = b.cols();
  out->setZero(n, d);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < m; ++j)
      for (Eigen::Index c = 0; c < d; ++c) (*out)(i, c) += a(i, j) * b(j, c);
}

// out = a bᵀ.   a: (n, d), b: (m, d) -> out: (n, m)
template <typename T>
void MatMulTransposedB(const MatrixT<T>& a, const MatrixT<T>& b, MatrixT<T>* out) {
  const Eigen::Index n = a.rows(), m = b.rows(), d = a.cols();
  out->resize(n, m);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < m; ++j) {
      T sum = 0;
      for (Eigen::Index c = 0; c < d; ++c) sum += a(i, c) * b(j, c);
      (*out)(i, j) = sum;
    }
  }
}

// out = aᵀ b.   a: (n, m), b: (n, d) -> out: (m, d)
template <typename T>
void MatMulTransposedA(const MatrixT<T>& a, const MatrixT<T>& b, MatrixT<T>* out) {
  const Eigen::Index n = a.rows(), m = a.cols(), d = b.cols();
  out->setZero(m, d);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < m; ++j)
      for (Eigen::Index c = 0; c < d; ++c) (*out)(j, c) += a(i, j) * b(i, c);
}

// Row-wise softmax of s / temperature, stable: subtract the row max before exp.
// A row whose entries are all -inf (fully masked) becomes all zeros, never NaN.
// s: (n, m) -> w: (n, m)
template <typename T>
void SoftmaxRows(const MatrixT<T>& s, T temperature, MatrixT<T>* w) {
  w->resize(s.rows(), s.cols());
  for (Eigen::Index i = 0; i < s.rows(); ++i) {
    T row_max = -std::numeric_limits<T>::infinity();
    for (Eigen::Index j = 0; j < s.cols(); ++j) row_max = std::max(row_max, s(i, j) / temperature);
    if (row_max == -std::numeric_limits<T>::infinity()) {
      for (Eigen::Index j = 0; j < s.cols(); ++j) (*w)(i, j) = 0;
      continue;
    }
    T sum = 0;
    for (Eigen::Index j = 0; j < s.cols(); ++j) {
      const T e = std::exp(s(i, j) / temperature - row_max);
      (*w)(i, j) = e;
      sum += e;
    }
    for (Eigen::Index j = 0; j < s.cols(); ++j) (*w)(i, j) /= sum;
  }
}

// The kernel interface the attention pipeline (engine/src/pipeline/) calls; one struct per kernel
// variant. attn/reference.h runs the pipeline with this one in double precision.
template <typename T>
struct ReferenceOps {
  // out = x w + b (b empty: no bias).   x: (n, d_in), w: (d_in, d_out), b: (1, d_out)
  static void Project(const MatrixT<T>& x, const MatrixT<T>& w, const MatrixT<T>& b, MatrixT<T>* out) {
    MatMul(x, w, out);
    if (b.size() == 0) return;
    for (Eigen::Index i = 0; i < out->rows(); ++i)
      for (Eigen::Index c = 0; c < out->cols(); ++c) (*out)(i, c) += b(0, c);
  }
  // out = q kᵀ.   q: (n, d_k), k: (M, d_k) -> (n, M)
  static void QueryKeyScores(const MatrixT<T>& q, const MatrixT<T>& k, MatrixT<T>* out) {
    MatMulTransposedB(q, k, out);
  }
  // w = softmax_rows(s / temperature).   (n, M) -> (n, M)
  static void Softmax(const MatrixT<T>& s, T temperature, MatrixT<T>* w) { SoftmaxRows(s, temperature, w); }
  // out = w v.   w: (n, M), v: (M, d_v) -> (n, d_v)
  static void WeightedSum(const MatrixT<T>& w, const MatrixT<T>& v, MatrixT<T>* out) { MatMul(w, v, out); }
  // out = a b (backward pass).   a: (n, m), b: (m, d) -> (n, d)
  static void Product(const MatrixT<T>& a, const MatrixT<T>& b, MatrixT<T>* out) { MatMul(a, b, out); }
  // out = a bᵀ (backward pass).   a: (n, d), b: (m, d) -> (n, m)
  static void ProductTransposedB(const MatrixT<T>& a, const MatrixT<T>& b, MatrixT<T>* out) {
    MatMulTransposedB(a, b, out);
  }
  // out = aᵀ b (backward pass).   a: (n, m), b: (n, d) -> (m, d)
  static void TransposedProduct(const MatrixT<T>& a, const MatrixT<T>& b, MatrixT<T>* out) {
    MatMulTransposedA(a, b, out);
  }
};

}  // namespace attn::reference
