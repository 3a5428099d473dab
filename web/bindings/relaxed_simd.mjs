// Which WebAssembly build of the engine to run: the relaxed-SIMD one where this engine has relaxed
// SIMD; the plain SIMD128 build elsewhere (the same bits on every machine). The page (attnlab.js) and
// the npm package (index.mjs) both ask chooseWasmBuild(), once per page or process, and say why (the
// speed view, engine.wasmBuild).
//
// Validation decides which file, timing decides which code: the relaxed build carries its kernels in
// both forms of the multiply-add (f32x4.relaxed_madd, fused where the CPU has FMA; and a multiply then
// an add, the plain build's) and its kernel choice times the two on this CPU at the first forward,
// running relaxed_madd only where it is faster (attn/kernel_choice.h; engine.kernelChoice() and the
// speed view say which). An earlier probe here, the two hot loops written in wasm bytes and timed in
// JS, mispredicted (it picked the plain build in Chromium on Zen 5, where the engine runs 5–14%
// faster relaxed): only the engine's own kernels, timed both ways, answer the question.

// A module of one function that computes f32x4.relaxed_madd (0xfd 0x85 0x02) of three zero vectors:
// it validates exactly where relaxed SIMD is there (Chromium; node 20 with --experimental-wasm-relaxed-simd).
export const RELAXED_SIMD_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,  // magic, version
  0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b,        // types: () -> v128
  0x03, 0x02, 0x01, 0x00,                          // one function of type 0
  0x0a, 0x13, 0x01, 0x11, 0x00,                    // code: one body of 17 bytes, no locals
  0x41, 0x00, 0xfd, 0x11,                          // i32.const 0, i32x4.splat: a
  0x41, 0x00, 0xfd, 0x11,                          // b
  0x41, 0x00, 0xfd, 0x11,                          // c
  0xfd, 0x85, 0x02,                                // f32x4.relaxed_madd
  0x0b,                                            // end
]);

export function relaxedSimdAvailable() {
  return typeof WebAssembly === 'object' && WebAssembly.validate(RELAXED_SIMD_PROBE);
}

// -> {relaxed: boolean, reason: string}
export function chooseWasmBuild() {
  return relaxedSimdAvailable()
    ? { relaxed: true, reason: 'relaxed SIMD: this WebAssembly engine has it (its kernels time f32x4.relaxed_madd against a multiply then an add, and run the faster)' }
    : { relaxed: false, reason: 'plain SIMD128: this WebAssembly engine has no relaxed SIMD' };
}
