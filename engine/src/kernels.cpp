#include "attn/kernels.h"

namespace attn {

const char* KernelName(KernelId id) {
  switch (id) {
    case KernelId::kReference: return "reference";
    case KernelId::kEigen: return "eigen";
  }
  return "unknown";
}

std::vector<KernelId> AvailableKernels() { return {KernelId::kReference, KernelId::kEigen}; }

}  // namespace attn
