// The SIMD variant SimdOps calls on this thread (kernels/simd_ops.h).
#include "kernels/simd_ops.h"

namespace attn::simd {

const KernelTable*& ActiveKernelTable() {
  static thread_local const KernelTable* table = nullptr;
  return table;
}

}  // namespace attn::simd
