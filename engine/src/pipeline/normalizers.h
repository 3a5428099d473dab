// Normalisers: one row of scores -> one row of weights, and their backward passes.
// Entries equal to −inf are masked: they get weight 0 under every normaliser, and a row with
// nothing left gives a zero row (never NaN).
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "attn/config.h"
#include "attn/matrix.h"

namespace attn::pipeline {

template <typename T>
bool IsMasked(T s) {
  return s == -std::numeric_limits<T>::infinity();
}

// Sparsemax (Martins & Astudillo 2016) of each row of z: the point of the simplex closest to z.
// Sort descending, find the support size k (largest k with 1 + k z_(k) > Σ_{i<=k} z_(i)), the
// threshold τ = (Σ_{i<=k} z_(i) − 1)/k, and w = max(z − τ, 0).   (n, M) -> (n, M)
template <typename T>
void SparsemaxRows(const MatrixT<T>& z, MatrixT<T>* w) {
  w->setZero(z.rows(), z.cols());
  std::vector<T> sorted;
  for (Eigen::Index i = 0; i < z.rows(); ++i) {
    sorted.clear();
    for (Eigen::Index j = 0; j < z.cols(); ++j)
      if (!IsMasked(z(i, j))) sorted.push_back(z(i, j));
    if (sorted.empty()) continue;
    std::sort(sorted.begin(), sorted.end(), [](T a, T b) { return a > b; });
    T prefix = 0, support_sum = 0;
    size_t support = 0;
    for (size_t k = 0; k < sorted.size(); ++k) {
      prefix += sorted[k];
      if (1 + static_cast<T>(k + 1) * sorted[k] > prefix) {
        support = k + 1;
        support_sum = prefix;
      }
    }
    const T threshold = (support_sum - 1) / static_cast<T>(support);
    for (Eigen::Index j = 0; j < z.cols(); ++j)
      if (!IsMasked(z(i, j))) (*w)(i, j) = std::max(z(i, j) - threshold, T(0));
  }
}

// relu(z) / Σ relu(z) per row; a zero row when the sum is 0.   (n, M) -> (n, M)
template <typename T>
void ReluNormalizeRows(const MatrixT<T>& z, MatrixT<T>* w) {
  w->resize(z.rows(), z.cols());
  for (Eigen::Index i = 0; i < z.rows(); ++i) {
    T sum = 0;
    for (Eigen::Index j = 0; j < z.cols(); ++j) sum += (*w)(i, j) = std::max(z(i, j), T(0));
    if (sum > 0) w->row(i) /= sum;
  }
}

// Applies the normaliser to scores / temperature. Ops supplies the (fast) softmax.
// s: (n, M) -> w: (n, M)
template <typename T, typename Ops>
void Normalize(Normalizer normalizer, const MatrixT<T>& s, T temperature, MatrixT<T>* w) {
  if (normalizer == Normalizer::kSoftmax) {
    Ops::Softmax(s, temperature, w);
    return;
  }
  const MatrixT<T> z = s / temperature;  // −inf stays −inf
  switch (normalizer) {
    case Normalizer::kSparsemax: SparsemaxRows(z, w); return;
    case Normalizer::kReluNormalized: ReluNormalizeRows(z, w); return;
    case Normalizer::kSigmoid:
      *w = z.unaryExpr([](T v) { return IsMasked(v) ? T(0) : T(1) / (1 + std::exp(-v)); });
      return;
    default:  // kNone: the scores themselves, masked entries 0
      *w = z.unaryExpr([](T v) { return IsMasked(v) ? T(0) : v; });
      return;
  }
}

// Backward of Normalize: given s, w and ∂L/∂w, returns ∂L/∂s (0 at masked entries).
// (n, M) each.
template <typename T>
void NormalizeBackward(Normalizer normalizer, const MatrixT<T>& s, const MatrixT<T>& w, T temperature,
                       const MatrixT<T>& d_w, MatrixT<T>* d_s) {
  d_s->setZero(s.rows(), s.cols());
  for (Eigen::Index i = 0; i < s.rows(); ++i) {
    T row_dot = 0, support = 0, support_sum = 0, relu_sum = 0;
    for (Eigen::Index j = 0; j < s.cols(); ++j) {
      row_dot += d_w(i, j) * w(i, j);
      if (w(i, j) > 0) {
        support += 1;
        support_sum += d_w(i, j);
      }
      if (!IsMasked(s(i, j))) relu_sum += std::max(s(i, j) / temperature, T(0));
    }
    for (Eigen::Index j = 0; j < s.cols(); ++j) {
      if (IsMasked(s(i, j))) continue;
      T d_z = 0;  // ∂L/∂z, z = s / temperature
      switch (normalizer) {
        case Normalizer::kSoftmax: d_z = w(i, j) * (d_w(i, j) - row_dot); break;
        case Normalizer::kSparsemax: d_z = w(i, j) > 0 ? d_w(i, j) - support_sum / support : T(0); break;
        case Normalizer::kReluNormalized:
          d_z = (relu_sum > 0 && s(i, j) > 0) ? (d_w(i, j) - row_dot) / relu_sum : T(0);
          break;
        case Normalizer::kSigmoid: d_z = d_w(i, j) * w(i, j) * (1 - w(i, j)); break;
        case Normalizer::kNone: d_z = d_w(i, j); break;
        case Normalizer::kCount: break;  // not a normaliser: validation refuses it
      }
      (*d_s)(i, j) = d_z / temperature;
    }
  }
}

}  // namespace attn::pipeline
