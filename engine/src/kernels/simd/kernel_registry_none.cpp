// Targets without a hand-written variant: reference and eigen only.
#include "kernels/simd/kernel_registry.h"

namespace attn::simd {

const std::vector<const KernelTable*>& CompiledKernelTables() {
  static const std::vector<const KernelTable*> tables;
  return tables;
}

}  // namespace attn::simd
