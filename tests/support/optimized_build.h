// Tests that train a model for hundreds of steps take seconds in the optimised builds (native
// Release, and WebAssembly under node) and many minutes in the sanitizer build (-O0 + ASan/UBSan),
// where Eigen's expression templates are not inlined. They run in the optimised builds; the
// sanitizer build still runs every code path they use through the short tests (a few steps, the
// gradient checks, the parsers), so memory safety is checked on the same code.
#pragma once

#include <gtest/gtest.h>

#ifdef NDEBUG
#define ATTN_SKIP_UNLESS_OPTIMIZED() \
  do {                               \
  } while (0)
#else
#define ATTN_SKIP_UNLESS_OPTIMIZED() \
  GTEST_SKIP() << "long training: runs in the optimised builds (native-release, wasm-release)"
#endif
