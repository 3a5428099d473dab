// The wasm_simd128 kernel variant: the templates of kernel_variant.h instantiated for VecWasmSimd128.
// CMake compiles this file with the ISA's flags, and only for targets that have it.
#include "kernels/simd/vec_wasm_simd128.h"
#include "kernels/simd/kernel_variant.h"

namespace attn::simd {

const KernelTable& WasmSimd128Table() {
  static const KernelTable table = MakeKernelTable<VecWasmSimd128>();
  return table;
}

}  // namespace attn::simd
