// Whether this WebAssembly engine has relaxed SIMD: the page (attnlab.js) and the npm package
// (index.mjs) then load the relaxed-SIMD build of the engine, whose multiply-adds are
// f32x4.relaxed_madd (fused on CPUs with FMA), and the plain SIMD128 build elsewhere.

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
