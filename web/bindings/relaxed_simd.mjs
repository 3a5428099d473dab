// Which WebAssembly build of the engine to run: the relaxed-SIMD one, whose multiply-adds are
// f32x4.relaxed_madd (fused where the CPU has FMA), only where this engine has relaxed SIMD *and* a
// short timed probe finds its multiply-add faster than SIMD128's multiply then add on this CPU; the
// plain SIMD128 build elsewhere (the same bits on every machine). The page (attnlab.js) and the npm
// package (index.mjs) both ask chooseWasmBuild(), once per page or process.

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

// [SECTION] the timed probe: the GEMM's 4 × 8 micro-kernel (gemm_tiled.h) written twice in wasm
// bytes, once with relaxed_madd and once with mul + add: per step two vector loads of a panel row,
// four broadcast loads of A and eight multiply-adds into eight accumulators, over 4 KB of memory.
const uleb = (n) => { const out = []; do { let b = n & 0x7f; n >>>= 7; if (n) b |= 0x80; out.push(b); } while (n); return out; };
const section = (id, body) => [id, ...uleb(body.length), ...body];
const vec = (items) => [...uleb(items.length), ...items.flat()];
const name = (s) => [...uleb(s.length), ...[...s].map((c) => c.charCodeAt(0))];
const SIMD = (op) => [0xfd, ...uleb(op)];
const get = (i) => [0x20, ...uleb(i)], set = (i) => [0x21, ...uleb(i)];
const i32 = (v) => [0x41, ...uleb(v)];

// (steps: i32) -> f32. Locals: 0 steps, 1 address, 2–9 accumulators, 10–11 panel row, 12–15 A's broadcasts.
function kernelBody(relaxed) {
  const code = [];
  code.push(0x03, 0x40);  // loop
  code.push(...get(1), ...SIMD(0x00), 0x04, 0x00, ...set(10));   // v128.load  panel[0..4)
  code.push(...get(1), ...SIMD(0x00), 0x04, 0x10, ...set(11));   // v128.load  panel[4..8)
  for (let r = 0; r < 4; ++r) code.push(...get(1), ...SIMD(0x09), 0x02, 0x20 + 4 * r, ...set(12 + r));  // load32_splat
  for (let r = 0; r < 4; ++r)
    for (let c = 0; c < 2; ++c) {
      const acc = 2 + 2 * r + c;
      if (relaxed) code.push(...get(12 + r), ...get(10 + c), ...get(acc), ...SIMD(0x105), ...set(acc));
      else code.push(...get(12 + r), ...get(10 + c), ...SIMD(0xe6), ...get(acc), ...SIMD(0xe4), ...set(acc));
    }
  code.push(...get(1), ...i32(48), 0x6a, ...i32(4095 - 63), 0x71, ...set(1));  // address = (address + 48) & 4032
  code.push(...get(0), ...i32(1), 0x6b, 0x22, 0x00, 0x0d, 0x00, 0x0b);           // br_if (steps = steps − 1) ≠ 0; end
  code.push(...get(2));
  for (let acc = 3; acc < 10; ++acc) code.push(...get(acc), ...SIMD(0xe4));
  code.push(...SIMD(0x1f), 0x00, 0x0b);  // f32x4.extract_lane 0: every chain is used
  const body = [...vec([[...uleb(1), 0x7f], [...uleb(14), 0x7b]]), ...code];
  return [...uleb(body.length), ...body];
}

const PROBE_KERNELS = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  ...section(1, vec([[0x60, 0x01, 0x7f, 0x01, 0x7d]])),                     // (i32) -> f32
  ...section(3, vec([[0x00], [0x00]])),                                     // two functions of it
  ...section(5, vec([[0x00, 0x01]])),                                       // one page of memory
  ...section(7, vec([[...name('relaxed'), 0x00, 0x00], [...name('plain'), 0x00, 0x01]])),
  ...section(10, vec([kernelBody(true), kernelBody(false)])),
]);

const now = () => (typeof performance === 'object' ? performance.now() : Date.now());

// Times both kernels: warm-up calls (the engine's optimising tier takes over after them), then five
// interleaved rounds, each kernel keeping its fastest. relaxed wins when ≥ 5% faster: otherwise the
// plain build's bits are the same on every machine, which is worth more than a small gain.
// -> {relaxed: boolean, reason: string, relaxedMs?, plainMs?}
export function chooseWasmBuild({ steps = 400000 } = {}) {
  if (!relaxedSimdAvailable())
    return { relaxed: false, reason: 'plain SIMD128: this WebAssembly engine has no relaxed SIMD' };
  let kernels;
  try {
    kernels = new WebAssembly.Instance(new WebAssembly.Module(PROBE_KERNELS)).exports;
  } catch (e) {
    return { relaxed: true, reason: `relaxed SIMD: the timed probe could not run (${e?.message || e}), so the build it validates` };
  }
  for (let i = 0; i < 6; ++i) kernels.relaxed(steps / 4), kernels.plain(steps / 4);
  let relaxedMs = Infinity, plainMs = Infinity;
  for (let round = 0; round < 5; ++round) {
    let t = now();
    kernels.relaxed(steps);
    relaxedMs = Math.min(relaxedMs, now() - t);
    t = now();
    kernels.plain(steps);
    plainMs = Math.min(plainMs, now() - t);
  }
  const ratio = relaxedMs > 0 ? plainMs / relaxedMs : 1;
  const timed = `${(8 * steps / 1e3).toFixed(0)} k vector multiply-adds: fused ${relaxedMs.toFixed(2)} ms, multiply then add ${plainMs.toFixed(2)} ms`;
  return ratio >= 1.05
    ? { relaxed: true, relaxedMs, plainMs, reason: `relaxed SIMD: its fused multiply-add ran ${ratio.toFixed(2)}× as fast as SIMD128's here (${timed})` }
    : { relaxed: false, relaxedMs, plainMs, reason: `plain SIMD128: relaxed SIMD's multiply-add was not ≥ 5% faster here (${ratio.toFixed(2)}×; ${timed})` };
}
