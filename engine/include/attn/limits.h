// The engine's documented limits: every public entry point checks its sizes against them, with
// overflow-checked 64-bit arithmetic, BEFORE it allocates, and returns kOutOfRange (a config
// integer or a dimension over max_dimension) or kResourceExhausted (a tensor or the whole call over
// the element or byte budget) instead of throwing std::bad_alloc, aborting (wasm) or overflowing int.
//
// Why these values:
//   max_dimension       2^24 = 16,777,216: any sequence length, width, head count, window, position
//                       or offset (and h·d_k, h·d_v). Far above every real use (the page and the
//                       bench stop at n = 16384); small enough that sums of three of them (a
//                       position plus a window plus a tile) stay far below 2^31, so the kernels'
//                       int arithmetic cannot overflow.
//   max_heads           2^16 = 65,536 query or key/value heads: each head costs a fixed amount of
//                       work and bookkeeping whatever its size (the fused kernel's tile is 48 × 64
//                       scores), so 2^24 one-column heads would take minutes in little memory.
//                       Real models use at most a few hundred.
//   max_threads         64 threads for one call (AttentionConfig::threads): far above the cores a
//                       call's 4-16 heads can use; each thread keeps its own packed keys and
//                       values (m·(d_k + d_v) floats), which the call budget counts per thread.
//   max_tensor_elements 2^28 floats (1 GiB) in any one matrix: every int index of a kernel
//                       (row · leading dimension + column) stays below 2^31.
//   max_call_bytes      what one call may allocate, estimated from its sizes before it starts
//                       (inputs after positions, projections, caches, parameters, the (n, M)
//                       intermediates Forward publishes per head, the fused kernel's packed keys).
//                       Native 1 GiB. WebAssembly 512 MiB: wasm32's heap tops out at 2 GiB
//                       (emscripten's default maximum with memory growth; 4 GiB at most), and the
//                       page holds its own data beside the call. Real uses measured by this
//                       estimate: the bench's ForwardOutput at n = 16384, d_model 256, 4 heads
//                       (fused) about 0.2 GiB; the speed view's materialised Forward at n = 1024
//                       about 0.1 GiB; the page's fused path at n = 8192 about 0.1 GiB. Forward
//                       at n = 16000 with 4 heads would need 20 GB and is refused at once.
#pragma once

#include <cstdint>

namespace attn {

struct Limits {
  static constexpr int64_t max_dimension = int64_t{1} << 24;
  static constexpr int64_t max_heads = int64_t{1} << 16;
  static constexpr int64_t max_threads = 64;
  static constexpr int64_t max_tensor_elements = int64_t{1} << 28;
#ifdef __EMSCRIPTEN__
  static constexpr int64_t max_call_bytes = int64_t{512} << 20;
#else
  static constexpr int64_t max_call_bytes = int64_t{1} << 30;
#endif
};

}  // namespace attn
