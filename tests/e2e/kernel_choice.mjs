// What DescribeKernelChoice (attn/kernel_choice.h) says of the forms of the multiply-add in the
// relaxed-SIMD build, from kernelChoice()'s fields: one clause when the GEMM and the attention run
// the same form, else each part's.
const form = (fused) => (fused ? 'fused (f32x4.relaxed_madd)' : 'unfused (a multiply, then an add)');

export function multiplyAddsSaid(choice) {
  return choice.gemmFusedMultiplyAdd === choice.fusedMultiplyAdd
    ? `; multiply-adds ${form(choice.fusedMultiplyAdd)}`
    : `; the GEMM's multiply-adds ${form(choice.gemmFusedMultiplyAdd)}, the attention's ${form(choice.fusedMultiplyAdd)}`;
}
