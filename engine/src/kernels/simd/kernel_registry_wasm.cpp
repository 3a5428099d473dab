// WebAssembly: the SIMD128 variant; a browser without SIMD fails to compile the module instead.
#include "kernels/simd/kernel_registry.h"

namespace attn::simd {

const std::vector<const KernelTable*>& CompiledKernelTables() {
  static const std::vector<const KernelTable*> tables = {&WasmSimd128Table()};
  return tables;
}

}  // namespace attn::simd
