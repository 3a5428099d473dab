// The avx2 kernel variant: the templates of kernel_variant.h instantiated for VecAvx2.
// CMake compiles this file with the ISA's flags, and only for targets that have it.
#include "kernels/simd/vec_avx2.h"
#include "kernels/simd/kernel_variant.h"

namespace attn::simd {

const KernelTable& Avx2Table() {
  static const KernelTable table = MakeKernelTable<VecAvx2>();
  return table;
}

}  // namespace attn::simd
