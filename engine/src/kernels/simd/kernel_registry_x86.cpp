// x86-64: the AVX2 and AVX-512 variants are always compiled; each is offered only when the CPU
// (and the OS, which GCC's check includes) supports it.
#include "kernels/simd/kernel_registry.h"

namespace attn::simd {

const std::vector<const KernelTable*>& CompiledKernelTables() {
  static const std::vector<const KernelTable*> tables = [] {
    std::vector<const KernelTable*> list;
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) list.push_back(&Avx2Table());
    if (__builtin_cpu_supports("avx512f")) list.push_back(&Avx512Table());
    return list;
  }();
  return tables;
}

}  // namespace attn::simd
