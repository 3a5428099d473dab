// The SIMD kernel tables of this build that this CPU can run, slowest first. One definition per
// target family, chosen by CMake: kernel_registry_x86.cpp, kernel_registry_wasm.cpp or
// kernel_registry_none.cpp.
#pragma once

#include <vector>

#include "kernels/simd/kernel_table.h"

namespace attn::simd {

const std::vector<const KernelTable*>& CompiledKernelTables();

}  // namespace attn::simd
