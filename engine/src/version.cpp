#include "attn/version.h"

// engine/CMakeLists.txt defines ATTN_VERSION from the CMake project version for this file alone, so
// a version bump recompiles one file and no number is written here.
#ifndef ATTN_VERSION
#error "ATTN_VERSION must be defined by the build (engine/CMakeLists.txt)"
#endif

namespace attn {

const char* Version() { return ATTN_VERSION; }

}  // namespace attn
