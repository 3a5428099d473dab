// Kernel variants. The reference is always compiled in and never optimised; every other
// variant is tested against it. The SIMD variants are compiled where the target has the ISA
// (CMake chooses) and offered where the CPU has it (checked at run time).
#pragma once

#include <string>
#include <vector>

#include "attn/matrix.h"
#include "attn/status.h"

namespace attn {

enum class KernelId {
  kReference,    // plain scalar loops, the documentation of the math
  kEigen,        // Eigen expressions (auto-vectorised by the compiler)
  kWasmSimd128,  // hand-written: packed GEMM micro-kernel, fused attention (WebAssembly SIMD128)
  kAvx2,         // the same kernels on AVX2 + FMA (x86-64)
  kAvx512,       // the same kernels on AVX-512F (x86-64)
  kCount,        // how many there are (not a kernel)
};

// "reference", "eigen", "wasm_simd128", "avx2", "avx512"
const char* KernelName(KernelId id);
// The variant as this build compiled it: KernelName, except the wasm_simd128 kernel of the
// relaxed-SIMD WebAssembly build (multiply-add by f32x4.relaxed_madd), "wasm_relaxed_simd". For
// reports and the page; configs name the variant by KernelName in both builds.
const char* KernelBuildName(KernelId id);
// Variants compiled into this build and usable on this CPU, reference first.
std::vector<KernelId> AvailableKernels();
bool KernelAvailable(KernelId id);
// The fastest available variant (the last of AvailableKernels()).
KernelId FastestKernel();
// "reference, eigen, avx2": for messages.
std::string AvailableKernelNames();
// Ok, or kUnknownOption "kernel: avx512 is not available in this build on this CPU (available: …)".
Status CheckKernelAvailable(KernelId id);

// out = a b on the variant's GEMM (reference: plain loops; eigen: Eigen's).   a: (m, k), b: (k, n)
Status MatMul(KernelId kernel, const Matrix& a, const Matrix& b, Matrix* out);

// What MatMul's second form does with its operands and its output (a training step's products:
// a layer's backward needs xᵀ·dy and dy·Wᵀ and adds into the parameter gradients).
struct MatMulOptions {
  bool transpose_a = false;  // use aᵀ: a is given as (k, m)
  bool transpose_b = false;  // use bᵀ: b is given as (n, k)
  bool accumulate = false;   // out += the product: out must already be (m, n)
};
// out (+)= op(a) op(b) on the variant's GEMM, op(x) = xᵀ when the option says so. A SIMD variant
// copies a transposed a once (its GEMM reads B either way) and adds an accumulated product after
// computing it; the reference and Eigen compute the expression as written.
// op(a): (m, k)   op(b): (k, n)   -> out: (m, n)
Status MatMul(KernelId kernel, const Matrix& a, const Matrix& b, Matrix* out, const MatMulOptions& options);

// This core's measured multiply-add throughput with the variant's vectors (12 independent chains,
// no memory traffic), in GFLOP/s counting a multiply and an add as 2 flops; runs ≥ min_seconds.
// 0 for reference / eigen, which have no probe.
double MeasurePeakGflops(KernelId kernel, double min_seconds);

}  // namespace attn
