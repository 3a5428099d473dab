// Which WebAssembly build of the engine to run: the relaxed-SIMD one, whose multiply-adds are
// f32x4.relaxed_madd (fused where the CPU has FMA), where this engine has relaxed SIMD; the plain
// SIMD128 build elsewhere (the same bits on every machine). The page (attnlab.js) and the npm package
// (index.mjs) both ask chooseWasmBuild(), once per page or process, and say why (the speed view,
// engine.wasmBuild).
//
// Not timed, though issue 30 asked for it: a probe that timed the engine's two hot loops written in
// wasm bytes (the GEMM's 4 × 8 micro-kernel and the exp's Horner chain, each with relaxed_madd and
// with mul then add) picked the plain build in Chromium on Zen 5 (0.67×: its exp loop ran twice as
// fast unfused) while the engine itself runs 5–14% faster relaxed there (forwardOutput of the bench
// layer, n = 1024: 21 against 22–25 ms; n = 4096: 322–330 against 346–348), and in node it was right
// for a reason it did not see. On every CPU measured so far the relaxed build was the faster one
// (docs/engine.md, "Relaxed SIMD"); a faithful probe has to time the engine's own kernels both ways.

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
    ? { relaxed: true, reason: 'relaxed SIMD: this WebAssembly engine has it (multiply-adds fused where the CPU has FMA)' }
    : { relaxed: false, reason: 'plain SIMD128: this WebAssembly engine has no relaxed SIMD' };
}
