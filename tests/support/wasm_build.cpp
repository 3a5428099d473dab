#include "wasm_build.h"

bool TestBuildIsRelaxedSimd() {
#ifdef ATTN_WASM_RELAXED_SIMD
  return true;
#else
  return false;
#endif
}
