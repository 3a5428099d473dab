// Kernel variants. The reference is always compiled in and never optimised; every other
// variant is tested against it.
#pragma once

#include <vector>

namespace attn {

enum class KernelId {
  kReference,  // plain scalar loops, the documentation of the math
  kEigen,      // Eigen expressions (auto-vectorised by the compiler)
};

// "reference", "eigen"
const char* KernelName(KernelId id);
// Variants compiled into this build and usable on this CPU, reference first.
std::vector<KernelId> AvailableKernels();

}  // namespace attn
