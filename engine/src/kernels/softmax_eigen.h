// Eigen variant of the row softmax; matches attn::reference::SoftmaxRows.
#pragma once

#include "attn/tensor.h"

namespace attn::eigen {

// s: (n, m) -> w: (n, m). Fully -inf rows give zeros.
void SoftmaxRows(const Matrix& s, float temperature, Matrix* w);

}  // namespace attn::eigen
