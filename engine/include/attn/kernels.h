// Kernel variants. The reference is always compiled in and never optimised; every other
// variant is tested against it. The SIMD variants are compiled where the target has the ISA
// (CMake chooses) and offered where the CPU has it (checked at run time).
#pragma once

#include <cstdint>
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
// The fastest available variant, measured (attn/kernel_choice.h): the widest SIMD variant (the last of
// AvailableKernels()) unless another one's probe ran ≥ 10% faster on this CPU (an AVX-512 core that
// lowers its clock for 512-bit code may run AVX2 faster). Measured on the first call, then kept.
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

// B packed once for a SIMD variant's GEMM (a model's weights, multiplied on every call): MatMul with
// it gives MatMul(kernel, a, b)'s bits (or a·bᵀ's, packed from a transposed b) without packing B on
// every call. The packed floats are as many as B's, rounded up to whole panels of 2·lanes columns.
class PackedMatrix {
 public:
  KernelId kernel() const { return kernel_; }
  int rows() const { return k_; }  // k: the product's depth
  int cols() const { return n_; }  // n: the product's columns
  bool transposed() const { return transposed_; }  // packed from bᵀ given as (n, k)
  const float* source() const { return source_; }   // the data pointer it was packed from (a cache key)
  bool empty() const { return data_.empty(); }
  int64_t bytes() const { return static_cast<int64_t>(data_.size() * sizeof(float)); }

 private:
  friend Status PackMatrix(KernelId, const Matrix&, bool, PackedMatrix*);
  friend Status MatMul(const Matrix&, const PackedMatrix&, Matrix*);
  KernelId kernel_ = KernelId::kReference;
  int k_ = 0, n_ = 0;
  bool transposed_ = false;
  const float* source_ = nullptr;
  std::vector<float> data_;
};
// Packs b (k, n), or b given as (n, k) when `transposed`, for `kernel`: kInvalidArgument for the
// reference and Eigen (they have no packed form), kUnknownOption for a kernel this CPU lacks, sizes
// past attn::Limits refused as MatMul refuses them. On error *out is untouched.
Status PackMatrix(KernelId kernel, const Matrix& b, bool transposed, PackedMatrix* out);
// out = a · B on the variant B was packed for.   a: (m, k) -> out: (m, n)
Status MatMul(const Matrix& a, const PackedMatrix& b, Matrix* out);

// This core's measured multiply-add throughput with the variant's vectors (12 independent chains,
// no memory traffic), in GFLOP/s counting a multiply and an add as 2 flops; runs ≥ min_seconds.
// 0 for reference / eigen, which have no probe.
double MeasurePeakGflops(KernelId kernel, double min_seconds);

}  // namespace attn
