// The wasm_simd128 kernel variant: the templates of kernel_variant.h instantiated for VecWasmSimd128.
// CMake compiles this file with the ISA's flags, and only for targets that have it.
//
// The relaxed-SIMD build carries both forms of the multiply-add — f32x4.relaxed_madd and a multiply
// then an add — and its table's entries call the one the calling thread's KernelChoice names
// (gemm_fused_multiply_add for the GEMM, fused_multiply_add for the rest), which the probe picks by
// timing both on this CPU (attn/kernel_choice.h):
// the page loads the relaxed module wherever the browser validates it, and runs its fused form only
// where that is measured to be faster.
#include "kernels/simd/vec_wasm_simd128.h"
#include "kernels/simd/kernel_variant.h"

namespace attn::simd {
namespace {

#ifdef ATTN_WASM_RELAXED_SIMD
using Fused = VecWasmSimd128T<true>;
using Unfused = VecWasmSimd128T<false>;

// Either<F>::Call<form, fused, unfused>: a function of F's type that calls `fused` or `unfused`, as
// the calling thread's choice says for the part `form` names (KernelChoice::gemm_fused_multiply_add
// for the GEMM, fused_multiply_add for the rest), read once per call, as the kernels read their tiling.
template <class Function>
struct Either;
template <class R, class... Args>
struct Either<R (*)(Args...)> {
  template <bool KernelChoice::*kForm, R (*kFused)(Args...), R (*kUnfused)(Args...)>
  static R Call(Args... args) {
    return CurrentChoice(KernelId::kWasmSimd128).*kForm ? kFused(args...) : kUnfused(args...);
  }
};

// The choice's field each part's form is read from.
constexpr bool KernelChoice::*kGemmForm = &KernelChoice::gemm_fused_multiply_add;
constexpr bool KernelChoice::*kAttentionForm = &KernelChoice::fused_multiply_add;

KernelTable EitherFormTable() {
  KernelTable t = MakeKernelTable<Fused>();
  t.chooses_fusion = true;
  t.gemm = &Either<decltype(t.gemm)>::Call<kGemmForm, &Gemm<Fused>, &Gemm<Unfused>>;
  t.gemm_packed = &Either<decltype(t.gemm_packed)>::Call<kGemmForm, &GemmPacked<Fused>, &GemmPacked<Unfused>>;
  t.flash_attention = &Either<decltype(t.flash_attention)>::Call<kAttentionForm, &FlashAttention<Fused>, &FlashAttention<Unfused>>;
  t.exp = &Either<decltype(t.exp)>::Call<kAttentionForm, &ExpArray<Fused>, &ExpArray<Unfused>>;
  t.exp_non_positive =
      &Either<decltype(t.exp_non_positive)>::Call<kAttentionForm, &ExpNonPositiveArray<Fused, false>,
                                                  &ExpNonPositiveArray<Unfused, false>>;
  t.exp2_non_positive =
      &Either<decltype(t.exp2_non_positive)>::Call<kAttentionForm, &ExpNonPositiveArray<Fused, true>,
                                                   &ExpNonPositiveArray<Unfused, true>>;
  t.softmax_rows = &Either<decltype(t.softmax_rows)>::Call<kAttentionForm, &SoftmaxRows<Fused>, &SoftmaxRows<Unfused>>;
  t.peak_probe = &Either<decltype(t.peak_probe)>::Call<kAttentionForm, &PeakProbe<Fused>, &PeakProbe<Unfused>>;
  // Packing moves floats (the same panels for both forms); the finiteness tests' x·0 sums are the
  // same yes or no either way, and a maximum is exact: the fused form's, with no choice to read
  // (validation needs no probe).
  return t;
}
#endif

}  // namespace

const KernelTable& WasmSimd128Table() {
#ifdef ATTN_WASM_RELAXED_SIMD
  static const KernelTable table = EitherFormTable();
#else
  static const KernelTable table = MakeKernelTable<VecWasmSimd128>();
#endif
  return table;
}

}  // namespace attn::simd
