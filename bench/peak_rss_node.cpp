#include <emscripten.h>

#include "peak_rss.h"

namespace attnlab_bench {

// The whole node process (V8 and the wasm heap), like VmHWM natively.
double PeakRssMb() { return EM_ASM_DOUBLE({ return process.resourceUsage().maxRSS / 1024; }); }

}  // namespace attnlab_bench
