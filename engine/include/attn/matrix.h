// Matrix types shared by the engine and its callers. Row-major everywhere, so a result goes
// unchanged to a GL texture, a JS Float32Array or a CSV.
#pragma once

#include <Eigen/Core>

namespace attn {

template <typename T>
using MatrixT = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Matrix = MatrixT<float>;
using MatrixD = MatrixT<double>;

}  // namespace attn
