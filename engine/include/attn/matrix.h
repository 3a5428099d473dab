// Matrix types shared by the engine and its callers. Row-major everywhere, so a result goes
// unchanged to a GL texture, a JS Float32Array or a CSV.
#pragma once

#include <Eigen/Core>

namespace attn {

template <typename T>
using MatrixT = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Matrix = MatrixT<float>;
using MatrixD = MatrixT<double>;

// True when no entry of `x` (a matrix, a row's run, any Eigen expression) is ±inf or NaN: x·0 is 0
// for every finite x and NaN otherwise, so one vectorised sum tests them all. True when empty.
template <typename Derived>
bool AllFiniteEntries(const Eigen::DenseBase<Derived>& x) {
  using Scalar = typename Derived::Scalar;
  return (x.derived().array() * Scalar(0)).sum() == Scalar(0);
}

}  // namespace attn
