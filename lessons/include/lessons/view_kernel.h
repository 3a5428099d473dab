// The kernel every view computes with, chosen here once: the fastest variant this build offers on
// this CPU (wasm_simd128 in the page; avx512 or avx2 natively; eigen where no SIMD variant is
// compiled in). attn::Forward returns every intermediate on each of them (the SIMD variants run
// the same pipeline with their GEMM and softmax), so no view needs the slower ones to draw.
//
// What stays elsewhere, and why:
//   - training (views 8 and 11, and the tagger that labels view 3's and 5's trained heads) runs
//     through attn::train, whose forward and backward are Eigen's: the SIMD variants have no
//     backward kernels (attn/grad.h);
//   - view 14 times the kernel the reader picks.
#pragma once

#include "attn/config.h"
#include "attn/kernels.h"

namespace lessons {

// attn::FastestKernel(): the last of attn::AvailableKernels().
attn::KernelId ViewKernel();

// A default AttentionConfig (attn/config.h) computing on ViewKernel().
attn::AttentionConfig ViewConfig();

}  // namespace lessons
