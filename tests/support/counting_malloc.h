// What this process allocates, counted by replacing glibc's malloc, calloc, realloc and the aligned
// ones with counting wrappers around glibc's own (counting_malloc.cpp; operator new and Eigen both
// end in malloc). Only for test binaries built natively against glibc without sanitizers (ASan and
// Emscripten bring their own malloc): tests/CMakeLists.txt builds them so.
#pragma once

#include <functional>

namespace attn::testing {

struct Allocated {
  long calls = 0;        // allocation calls, failed ones included
  long long bytes = 0;   // bytes those calls asked for (realloc: the new size), failed ones included
};

// What the process allocated while `run` ran.
Allocated AllocatedDuring(const std::function<void()>& run);

}  // namespace attn::testing
