#include "kernels/softmax_eigen.h"

#include <limits>

namespace attn::eigen {

void SoftmaxRows(const Matrix& s, float temperature, Matrix* w) {
  const float inv_t = 1.0f / temperature;
  *w = s * inv_t;
  for (Eigen::Index i = 0; i < w->rows(); ++i) {
    auto row = w->row(i);
    const float row_max = row.maxCoeff();
    if (row_max == -std::numeric_limits<float>::infinity()) {
      row.setZero();  // fully masked row: zeros, not 0/0
      continue;
    }
    row = (row.array() - row_max).exp();
    row /= row.sum();
  }
}

}  // namespace attn::eigen
