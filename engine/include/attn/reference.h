// The readable reference: plain scalar loops with shape comments, templated on the scalar so
// tests can run it in double precision. Never optimised: it is the documentation of the math,
// and every fast kernel is checked against it.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

#include "attn/tensor.h"

namespace attn::reference {

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

// out = a b.   a: (n, m), b: (m, d) -> out: (n, d)
template <typename T>
void MatMul(const MatrixT<T>& a, const MatrixT<T>& b, MatrixT<T>* out) {
  const Eigen::Index n = a.rows(), m = a.cols(), d = b.cols();
  out->setZero(n, d);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < m; ++j)
      for (Eigen::Index c = 0; c < d; ++c) (*out)(i, c) += a(i, j) * b(j, c);
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

// Single-head self-attention without projections (Q = K = V = X).
// x: (n, d) -> raw: (n, n), scores: (n, n), weights: (n, n), y: (n, d)
template <typename T>
void SelfAttention(const MatrixT<T>& x, T scale, T temperature, MatrixT<T>* raw,
                   MatrixT<T>* scores, MatrixT<T>* weights, MatrixT<T>* y) {
  MatMulTransposedB(x, x, raw);  // raw_ij = x_i · x_j
  *scores = *raw;
  for (Eigen::Index i = 0; i < scores->size(); ++i) scores->data()[i] *= scale;
  SoftmaxRows(*scores, temperature, weights);
  MatMul(*weights, x, y);  // y_i = Σ_j w_ij x_j
}

}  // namespace attn::reference
