// The avx512 kernel variant: the templates of kernel_variant.h instantiated for VecAvx512.
// CMake compiles this file with the ISA's flags, and only for targets that have it.
#include "kernels/simd/vec_avx512.h"
#include "kernels/simd/kernel_variant.h"

namespace attn::simd {

const KernelTable& Avx512Table() {
  static const KernelTable table = MakeKernelTable<VecAvx512>();
  return table;
}

}  // namespace attn::simd
