// Positional encodings: additive tables (sinusoidal), score biases (ALiBi, quadratic relative)
// and the rotary embedding (RoPE). Templated on the scalar; positions are absolute token indices.
#pragma once

#include <cmath>
#include <vector>

#include "attn/matrix.h"

namespace attn {

// Row r = PE(first_position + r): PE(p)_{2t} = sin(p / base^{2t/d}), PE(p)_{2t+1} = cos(same).
// -> (rows, d)
template <typename T>
MatrixT<T> SinusoidalEncoding(Eigen::Index rows, Eigen::Index d, Eigen::Index first_position, T base) {
  MatrixT<T> pe(rows, d);
  for (Eigen::Index r = 0; r < rows; ++r) {
    const T p = static_cast<T>(first_position + r);
    for (Eigen::Index c = 0; c < d; ++c) {
      const Eigen::Index pair = c / 2;
      const T angle = p / std::pow(base, static_cast<T>(2 * pair) / static_cast<T>(d));
      pe(r, c) = (c % 2 == 0) ? std::sin(angle) : std::cos(angle);
    }
  }
  return pe;
}

// The ALiBi slope of head `head` of `heads` (Press et al.): the geometric sequence 2^(−8/H)… over
// the largest power of two H <= heads, then every other slope of the sequence for 2H heads. O(log
// heads), so a call with many heads does not spend heads² on its slopes.
template <typename T>
T AlibiSlope(int heads, int head) {
  int power = 1;
  while (power <= heads / 2) power *= 2;
  if (head < power) return std::pow(std::pow(T(2), T(-8) / static_cast<T>(power)), static_cast<T>(head + 1));
  const T half_ratio = std::pow(T(2), T(-8) / static_cast<T>(2 * power));
  return std::pow(half_ratio, static_cast<T>(2 * (head - power) + 1));
}

// Every head's slope.   -> heads entries
template <typename T>
std::vector<T> AlibiSlopes(int heads) {
  std::vector<T> slopes;
  for (int head = 0; head < heads; ++head) slopes.push_back(AlibiSlope<T>(heads, head));
  return slopes;
}

// Rotates each pair (2t, 2t+1) of row r by angle (first_position + r) / base^{2t/d}; `direction`
// −1 applies the inverse rotation (used by the backward pass). x: (rows, d), d even.
template <typename T>
void ApplyRope(MatrixT<T>* x, Eigen::Index first_position, T base, int direction = 1) {
  const Eigen::Index d = x->cols();
  for (Eigen::Index r = 0; r < x->rows(); ++r) {
    const T p = static_cast<T>(first_position + r);
    for (Eigen::Index c = 0; c + 1 < d; c += 2) {
      const T angle = direction * p / std::pow(base, static_cast<T>(c) / static_cast<T>(d));
      const T cs = std::cos(angle), sn = std::sin(angle);
      const T a = (*x)(r, c), b = (*x)(r, c + 1);
      (*x)(r, c) = a * cs - b * sn;
      (*x)(r, c + 1) = a * sn + b * cs;
    }
  }
}

// Additive score bias of ALiBi: −slope·|p_q − p_k|, with p_q = query_offset + i, p_k = j.
// -> (n, M)
template <typename T>
MatrixT<T> AlibiBias(Eigen::Index n, Eigen::Index keys, Eigen::Index query_offset, T slope) {
  MatrixT<T> bias(n, keys);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < keys; ++j)
      bias(i, j) = -slope * static_cast<T>(std::abs(query_offset + i - j));
  return bias;
}

// δ − Δ for query row i and key j (δ = p_k − p_q): how far key j lies from the offset Δ a
// quadratic relative head prefers.
template <typename T>
T OffsetFromCenter(Eigen::Index i, Eigen::Index j, Eigen::Index query_offset, T center) {
  return static_cast<T>(j - (query_offset + i)) - center;
}

// Quadratic relative score bias (Cordonnier, Loukas & Jaggi 2020): −α (δ − Δ)², δ = p_k − p_q.
// Large α makes the head attend (almost) only to the key at offset Δ.   -> (n, M)
template <typename T>
MatrixT<T> QuadraticRelativeBias(Eigen::Index n, Eigen::Index keys, Eigen::Index query_offset, T center,
                                 T sharpness) {
  MatrixT<T> bias(n, keys);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < keys; ++j) {
      const T delta = OffsetFromCenter(i, j, query_offset, center);
      bias(i, j) = -sharpness * delta * delta;
    }
  }
  return bias;
}

// Backward of QuadraticRelativeBias: ∂L/∂Δ and ∂L/∂α from ∂L/∂bias, with ∂bias/∂Δ = 2α (δ − Δ) and
// ∂bias/∂α = −(δ − Δ)². Pairs whose bias the loss never saw (masked) must carry 0 in d_bias.
// d_bias: (n, M)
template <typename T>
void QuadraticRelativeBiasBackward(Eigen::Index query_offset, T center, T sharpness, const MatrixT<T>& d_bias,
                                   T* d_center, T* d_sharpness) {
  *d_center = 0;
  *d_sharpness = 0;
  for (Eigen::Index i = 0; i < d_bias.rows(); ++i) {
    for (Eigen::Index j = 0; j < d_bias.cols(); ++j) {
      const T delta = OffsetFromCenter(i, j, query_offset, center);
      *d_center += d_bias(i, j) * 2 * sharpness * delta;
      *d_sharpness -= d_bias(i, j) * delta * delta;
    }
  }
}

}  // namespace attn
