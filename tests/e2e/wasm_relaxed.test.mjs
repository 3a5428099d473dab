// The relaxed-SIMD build (issue 16): clang 14's prototype f32x4.fma rewritten into the standard
// f32x4.relaxed_madd after the link (scripts/wasm_relaxed_opcodes.mjs), and the loaders' choice
// between that build and the plain one (web/bindings/relaxed_simd.mjs).
//   - the rewrite: what it rewrites, what it refuses, that the result computes a·b + c from the
//     operands in the order clang passed the builtin's (2, 3, 5 → 11; the prototype's a + b·c is 17);
//   - the built modules: no prototype opcode left, valid only where relaxed SIMD is;
//   - the npm package: node without --experimental-wasm-relaxed-simd loads the plain build, node with
//     it the relaxed one, and the relaxed forward is within the float32 error bounds of float64;
//   - the page in Chromium (relaxed SIMD on by default) fetches the relaxed wasm alone, and the plain
//     one alone where WebAssembly.validate refuses relaxed SIMD.
// node 20 has relaxed SIMD only behind the flag, so the flagged runs are child processes.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { countWithWasmOpt, rewriteRelaxedOpcodes } from '../../scripts/wasm_relaxed_opcodes.mjs';
import { buildLib } from '../../scripts/build-lib.mjs';
import { multiplyAddsSaid } from './kernel_choice.mjs';
import { RELAXED_SIMD_PROBE, relaxedSimdAvailable } from '../../web/bindings/relaxed_simd.mjs';
import { assertWithin, exact, product, softmaxRows } from './float_bounds.mjs';
import { newPage, openBrowser, siteDir } from './browser.mjs';
import { seededMatrix } from './seeded_matrix.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const RELAXED_FLAG = '--experimental-wasm-relaxed-simd';
const which = (tool) => spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();

let temp;
before(() => { temp = mkdtempSync(join(tmpdir(), 'attnlab-relaxed-')); });
after(() => { if (temp) rmSync(temp, { recursive: true, force: true }); });

// Runs `code` (an ES module) in a child node, with or without relaxed SIMD; returns its stdout as JSON.
function runNode(code, { relaxed }) {
  const file = join(temp, `child-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(file, code);
  const out = execFileSync(process.execPath, [...(relaxed ? [RELAXED_FLAG] : []), file], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop());
}

// ---- hand-made modules -------------------------------------------------------------------------

const uleb = (n) => {
  const out = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
};
const section = (id, bytes) => [id, ...uleb(bytes.length), ...bytes];
// A module exporting f: () -> f32 whose body is `body` (without its final end).
function moduleOf(body) {
  const code = [0x00, ...body, 0x0b];  // no locals
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [0x01, 0x60, 0x00, 0x01, 0x7d]),
    ...section(3, [0x01, 0x00]),
    ...section(7, [0x01, 0x01, 0x66, 0x00, 0x00]),
    ...section(10, [0x01, ...uleb(code.length), ...code]),
  ]);
}
const f32x4Const = (x) => [0xfd, 0x0c, ...Array(4).fill([...new Uint8Array(new Float32Array([x]).buffer)]).flat()];
const EXTRACT_LANE_0 = [0xfd, 0x1f, 0x00];
const PROTOTYPE_FMA = [0xfd, 0xaf, 0x01];

test('the prototype f32x4.fma becomes f32x4.relaxed_madd in place, which computes a·b + c (2, 3, 5 → 11)', () => {
  const bytes = moduleOf([...f32x4Const(2), ...f32x4Const(3), ...f32x4Const(5), ...PROTOTYPE_FMA, ...EXTRACT_LANE_0]);
  const before = bytes.slice();
  assert.deepEqual(rewriteRelaxedOpcodes(bytes), { rewritten: 1, relaxedMadd: 1 });
  const changed = [...bytes.keys()].filter((i) => bytes[i] !== before[i]);
  assert.deepEqual(changed.map((i) => [before[i], bytes[i]]), [[0xaf, 0x85], [0x01, 0x02]], 'two bytes, the sub-opcode');
  if (!relaxedSimdAvailable()) assert.equal(WebAssembly.validate(bytes), false, 'this node has no relaxed SIMD: invalid here');
  const r = runNode(`const m = new WebAssembly.Instance(new WebAssembly.Module(new Uint8Array(${JSON.stringify([...bytes])})));
console.log(JSON.stringify({ f: m.exports.f() }));`, { relaxed: true });
  assert.equal(r.f, 11, 'a·b + c with the operands in stack order (the prototype\'s a + b·c would be 17)');
  // Rewriting again finds nothing to do and reads the standard opcode.
  assert.deepEqual(rewriteRelaxedOpcodes(bytes), { rewritten: 0, relaxedMadd: 1 });
});

test('clang 14\'s __builtin_wasm_fma_f32x4(a, b, c), rewritten, is a·b + c, and wasm-opt counts what was rewritten', (t) => {
  const emcc = which('emcc');
  if (!emcc) return t.skip('no emcc');
  const source = join(temp, 'fma.c'), wasm = join(temp, 'fma.wasm');
  writeFileSync(source, `#include <wasm_simd128.h>
__attribute__((export_name("f"))) float f(float a, float b, float c) {
  return wasm_f32x4_extract_lane(__builtin_wasm_fma_f32x4(wasm_f32x4_splat(a), wasm_f32x4_splat(b), wasm_f32x4_splat(c)), 0);
}
__attribute__((export_name("g"))) float g(float a, float b, float c) {  // two more: the count is no accident
  v128_t x = __builtin_wasm_fma_f32x4(wasm_f32x4_splat(a), wasm_f32x4_splat(b), wasm_f32x4_splat(c));
  return wasm_f32x4_extract_lane(__builtin_wasm_fma_f32x4(x, x, wasm_f32x4_splat(c)), 0) + f(c, b, a);
}
`);
  execFileSync(emcc, ['-O2', '-msimd128', '-mrelaxed-simd', '--no-entry', source, '-o', wasm], { stdio: 'pipe' });
  const wasmOpt = which('wasm-opt');
  const binaryen = wasmOpt ? countWithWasmOpt(wasmOpt, wasm) : null;
  const bytes = new Uint8Array(readFileSync(wasm));
  const { rewritten } = rewriteRelaxedOpcodes(bytes);
  assert.ok(rewritten >= 2, `${rewritten} rewritten`);
  if (binaryen !== null) assert.equal(rewritten, binaryen, 'binaryen prints as many f32x4.relaxed_fma');
  const r = runNode(`const m = new WebAssembly.Instance(new WebAssembly.Module(new Uint8Array(${JSON.stringify([...bytes])})));
const e = 2 ** -13;
console.log(JSON.stringify({ f: m.exports.f(2, 3, 5), residual: m.exports.f(1 + e, 1 - e, -1) }));`, { relaxed: true });
  assert.equal(r.f, 11, 'builtin(2, 3, 5) = 2·3 + 5 (2 + 3·5 = 17 would be the prototype\'s order)');
  // (1 + e)(1 − e) − 1 = −e²: fused where the CPU has FMA, 0 where the engine multiplies and adds.
  t.diagnostic(`relaxed_madd on this machine: ${r.residual === -(2 ** -26) ? 'fused' : r.residual === 0 ? 'not fused' : r.residual}`);
});

test('the rewrite refuses other prototype opcodes, unknown opcodes and long encodings, and never looks inside an immediate', () => {
  const refuses = (body, pattern) => assert.throws(() => rewriteRelaxedOpcodes(moduleOf(body)), pattern);
  const three = [...f32x4Const(2), ...f32x4Const(3), ...f32x4Const(5)];
  refuses([...three, 0xfd, 0xb0, 0x01, ...EXTRACT_LANE_0], /prototype relaxed-SIMD f32x4\.fms \(0xfd 176\) in function 0/);
  refuses([...three, 0xfd, 0xcf, 0x01, ...EXTRACT_LANE_0], /f64x2\.fma/);
  refuses([...f32x4Const(1), 0xfd, 0x9a, 0x01, ...EXTRACT_LANE_0], /unknown opcode 0xfd 154 in function 0/);
  refuses([0x06, 0x40, 0x0b, 0x43, 0, 0, 0, 0], /unknown opcode 0x6 in function 0/);  // try (exceptions): not emitted here
  refuses([...three, 0xfd, 0xaf, 0x81, 0x00, ...EXTRACT_LANE_0], /prototype f32x4\.fma with a 3-byte opcode/);
  // A v128.const whose bytes spell 0xfd 0xaf 0x01: an immediate, left alone.
  const bytes = moduleOf([0xfd, 0x0c, ...Array(5).fill(PROTOTYPE_FMA).flat(), 0x00, ...EXTRACT_LANE_0]);
  const before = bytes.slice();
  assert.deepEqual(rewriteRelaxedOpcodes(bytes), { rewritten: 0, relaxedMadd: 0 });
  assert.deepEqual(bytes, before);
  assert.throws(() => rewriteRelaxedOpcodes(new Uint8Array([0, 0x61, 0x73, 0x6d, 2, 0, 0, 0])), /not a WebAssembly 1 module/);
});

test('the probe validates exactly where relaxed SIMD is: not in node 20 without the flag, in node with it', () => {
  assert.equal(relaxedSimdAvailable(), false, 'node 20 without --experimental-wasm-relaxed-simd');
  const r = runNode(`import { relaxedSimdAvailable } from ${JSON.stringify(join(root, 'web/bindings/relaxed_simd.mjs'))};
console.log(JSON.stringify({ available: relaxedSimdAvailable() }));`, { relaxed: true });
  assert.equal(r.available, true);
  // The same module with f32x4.add (0xfd 0xe4 0x01) for relaxed_madd and one splat fewer is valid
  // everywhere: what fails without the flag is the instruction, not the module around it.
  const plain = [...RELAXED_SIMD_PROBE];
  plain.splice(plain.length - 8, 4);  // one splat fewer: two operands
  plain.splice(plain.length - 4, 3, 0xfd, 0xe4, 0x01);
  plain[20] -= 4, plain[22] -= 4;  // section and body sizes
  assert.equal(WebAssembly.validate(new Uint8Array(plain)), true);
});

// ---- what the build made ------------------------------------------------------------------------

const kBuilt = {
  'page': [join(siteDir, 'attnlab-relaxed.wasm'), join(siteDir, 'attnlab.wasm')],
  'embeds\' lite module': [join(siteDir, 'attnlab-lite-relaxed.wasm'), join(siteDir, 'attnlab-lite.wasm')],
  'npm package': [join(root, 'build/wasm/lib/attnlab-engine-relaxed.wasm'), join(root, 'build/wasm/lib/attnlab-engine.wasm')],
  'bench': [join(root, 'build/wasm/bench/relaxed/attnlab_bench.wasm'), join(root, 'build/wasm/bench/attnlab_bench.wasm')],
};

for (const [what, [relaxedFile, plainFile]] of Object.entries(kBuilt)) {
  test(`the ${what}'s relaxed wasm holds f32x4.relaxed_madd and no prototype opcode; its plain twin neither`, (t) => {
    if (what === 'bench' && !existsSync(relaxedFile)) return t.skip('attnlab_bench\'s relaxed twin not built (npm run bench builds it)');
    const relaxed = rewriteRelaxedOpcodes(new Uint8Array(readFileSync(relaxedFile)));
    assert.equal(relaxed.rewritten, 0, 'every prototype fma was rewritten at the link');
    assert.ok(relaxed.relaxedMadd > 0, 'the kernel\'s multiply-adds are relaxed_madd');
    assert.equal(WebAssembly.validate(readFileSync(relaxedFile)), relaxedSimdAvailable());
    const plain = rewriteRelaxedOpcodes(new Uint8Array(readFileSync(plainFile)));
    assert.deepEqual(plain, { rewritten: 0, relaxedMadd: 0 });
    assert.equal(WebAssembly.validate(readFileSync(plainFile)), true);
  });
}

// ---- the npm package's choice, and the relaxed build's numbers ----------------------------------

const matrix = seededMatrix;

// The float64 answer with its float32 error bound (float_bounds.mjs) of the layer below.
const N = 37, D = 16, HEADS = 2, DK = D / HEADS;
const kConfig = { numHeads: HEADS, projectInputs: true, projectOutput: true, causal: true, kernel: 'wasm_simd128' };
function boundedForward(x, p) {
  const X = exact(x), q = product(X, exact(p.wq)), k = product(X, exact(p.wk)), v = product(X, exact(p.wv));
  const concat = { rows: N, cols: D, value: new Float64Array(N * D), bound: new Float64Array(N * D) };
  const cols = (m, h) => {
    const out = { rows: N, cols: DK, value: new Float64Array(N * DK), bound: new Float64Array(N * DK) };
    for (let i = 0; i < N; ++i)
      for (let c = 0; c < DK; ++c) {
        out.value[i * DK + c] = m.value[i * D + h * DK + c];
        out.bound[i * DK + c] = m.bound[i * D + h * DK + c];
      }
    return out;
  };
  for (let h = 0; h < HEADS; ++h) {
    // scaledA: the fused kernel scales the query before the product (a bound for the layer's path too).
    const scores = product(cols(q, h), cols(k, h), { transposeB: true, scaledA: true });
    const weights = softmaxRows(scores, { scale: 1 / Math.sqrt(DK), allowed: (i, j) => j <= i });
    const out = product(weights, cols(v, h));
    for (let i = 0; i < N; ++i)
      for (let c = 0; c < DK; ++c) {
        concat.value[i * D + h * DK + c] = out.value[i * DK + c];
        concat.bound[i * D + h * DK + c] = out.bound[i * DK + c];
      }
  }
  return product(concat, exact(p.wo));
}

test('the npm package loads the relaxed build where relaxed SIMD validates, the plain one elsewhere, and says why; both within the float32 bounds', async () => {
  const lib = join(temp, 'lib');
  await buildLib(join(root, 'build/wasm/lib'), lib);
  const x = matrix(N, D, 1), params = { wq: matrix(D, D, 2, 0.5), wk: matrix(D, D, 3, 0.5), wv: matrix(D, D, 4, 0.5), wo: matrix(D, D, 5, 0.5) };
  const script = `import { loadEngine } from ${JSON.stringify(join(lib, 'index.mjs'))};
const f32 = (m) => ({ rows: m.rows, cols: m.cols, data: new Float32Array(m.data) });
const x = f32(${JSON.stringify(x)}), p = Object.fromEntries(Object.entries(${JSON.stringify(params)}).map(([k, m]) => [k, f32(m)]));
const run = (engine) => {
  const layer = engine.forward(${JSON.stringify(kConfig)}, { query: x }, p);
  const fused = engine.forwardOutput(${JSON.stringify(kConfig)}, { query: x }, p);
  if (!layer.ok || !fused.ok) throw new Error(layer.message ?? fused.message);
  return { relaxedSimd: engine.relaxedSimd, wasmBuild: engine.wasmBuild, choice: engine.kernelChoice(),
           output: Array.from(layer.output.data), fused: fused.fused, fusedOutput: Array.from(fused.output.data) };
};
const out = { auto: run(await loadEngine()), plain: run(await loadEngine({ relaxedSimd: false })) };
try {
  out.forced = run(await loadEngine({ relaxedSimd: true }));
} catch (e) {
  out.forced = e.message;
}
out.refused = [];
for (const options of [{ relaxedSimd: 'yes' }, { relaxedSimd: false, wasm: new Uint8Array(8) }]) {
  try {
    await loadEngine(options);
  } catch (e) {
    out.refused.push(e.message);
  }
}
console.log(JSON.stringify(out));`;
  const without = runNode(script, { relaxed: false }), withFlag = runNode(script, { relaxed: true });
  assert.equal(without.auto.relaxedSimd, false, 'node without the flag: the plain build');
  assert.equal(without.plain.relaxedSimd, false);
  assert.equal(without.forced, 'attnlab: relaxedSimd: true, but this WebAssembly engine has no relaxed SIMD');
  assert.deepEqual(without.refused, ['attnlab: relaxedSimd: expected a boolean, got string',
                                     'attnlab: relaxedSimd: chooses between the bundled files, so not with wasm (pass the file you want)']);
  assert.equal(without.auto.wasmBuild, 'plain SIMD128: this WebAssembly engine has no relaxed SIMD');
  assert.equal(withFlag.auto.relaxedSimd, true, 'node with the flag: the relaxed build');
  assert.match(withFlag.auto.wasmBuild, /^relaxed SIMD: this WebAssembly engine has it \(/);
  assert.equal(withFlag.plain.relaxedSimd, false, 'relaxedSimd: false picks the plain build');
  assert.equal(withFlag.plain.wasmBuild, "plain SIMD128: asked for by loadEngine's relaxedSimd option");
  // kernelChoice(): the tiling the probe picked, in fields and in a sentence that says the same; the
  // relaxed build times each setting in both forms of the multiply-add (16 settings, 8 in the plain
  // build, whose only form is a multiply then an add) and says which form runs.
  for (const r of [without.auto, withFlag.forced]) {
    const c = r.choice, relaxed = c.build === 'wasm_relaxed_simd';
    assert.equal(c.ok, true);
    assert.equal(c.kernel, 'wasm_simd128');
    assert.equal(c.gemmRows, 4);
    assert.ok([16, 32].includes(c.gemmSliceKb) && [16, 32].includes(c.attentionRows) && [64, 128, 256].includes(c.attentionKeys), JSON.stringify(c));
    assert.ok(c.candidates === (relaxed ? 16 : 8) && c.probeMs > 0 && c.gemmGflops > 0 && c.attentionGflops > 0, JSON.stringify(c));
    if (!relaxed) assert.ok(!c.fusedMultiplyAdd && !c.gemmFusedMultiplyAdd, JSON.stringify(c));
    const form = relaxed ? multiplyAddsSaid(c) : '';
    assert.ok(c.text.startsWith(`${c.build}: GEMM tiles of 4 rows, ${c.gemmSliceKb} KB slices; attention tiles of ${c.attentionRows} queries × ${c.attentionKeys} keys${form} (the fastest of ${c.candidates} settings timed in `), c.text);
  }
  assert.equal(without.auto.choice.build, 'wasm_simd128');
  assert.equal(withFlag.forced.choice.build, 'wasm_relaxed_simd');
  assert.equal(withFlag.forced.relaxedSimd, true);
  assert.deepEqual(withFlag.plain.output, without.auto.output, 'the plain build gives the same bits with or without the flag');

  const reference = boundedForward(x, params);
  for (const [name, r] of [['plain', without.auto], ['relaxed', withFlag.forced]]) {
    assertWithin(r.output, reference, `${name} build, forward on wasm_simd128`);
    assert.equal(r.fused, true, `${name}: forwardOutput took the fused kernel`);
    assertWithin(r.fusedOutput, reference, `${name} build, fused forwardOutput`);
  }
});

// ---- the page ---------------------------------------------------------------------------------

// Opens the page; returns the wasm files it fetched and the errors it reported. `withoutRelaxed`
// makes WebAssembly.validate refuse relaxed SIMD's instructions before any script runs, as in a
// browser without relaxed SIMD (Chromium 156 has it on and keeps it on under --js-flags).
async function wasmFetched(session, { withoutRelaxed = false, hash = '' } = {}) {
  const page = await newPage(session.browser);
  const wasm = [], problems = [];
  page.on('request', (r) => { if (/\.wasm($|\?)/.test(r.url())) wasm.push(new URL(r.url()).pathname.split('/').pop()); });
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
  if (withoutRelaxed) {
    await page.addInitScript(() => {
      const validate = WebAssembly.validate;
      const relaxed = (b) => { for (let i = 0; i + 2 < b.length; ++i) if (b[i] === 0xfd && b[i + 1] === 0x85 && b[i + 2] === 0x02) return true; return false; };
      WebAssembly.validate = (bytes) => !relaxed(new Uint8Array(ArrayBuffer.isView(bytes) ? bytes.buffer : bytes)) && validate(bytes);
    });
  }
  await page.goto(session.url + hash);
  await page.waitForSelector('html[data-ready=true]');
  const relaxedValidates = await page.evaluate((probe) => WebAssembly.validate(new Uint8Array(probe)), [...RELAXED_SIMD_PROBE]);
  // The page's own answer (attnlab.js, already loaded: the same module instance).
  const build = await page.evaluate(async () => (await import(new URL('attnlab.js', location.href).href)).wasmBuild);
  await page.close();
  return { wasm, problems, relaxedValidates, build };
}

test('the page fetches attnlab-relaxed.wasm alone where relaxed SIMD validates (Chromium), attnlab.wasm alone elsewhere (an embed: the lite twins)', async () => {
  const session = await openBrowser();
  try {
    const relaxed = await wasmFetched(session);
    assert.equal(relaxed.relaxedValidates, true, 'this Chromium has relaxed SIMD');
    assert.deepEqual(relaxed.build, { relaxed: true, reason: 'relaxed SIMD: this WebAssembly engine has it (its kernels time f32x4.relaxed_madd against a multiply then an add, and run the faster)' });
    assert.deepEqual(relaxed.wasm, ['attnlab-relaxed.wasm']);
    assert.deepEqual(relaxed.problems, []);
    const plain = await wasmFetched(session, { withoutRelaxed: true });
    assert.equal(plain.relaxedValidates, false);
    assert.equal(plain.build.reason, 'plain SIMD128: this WebAssembly engine has no relaxed SIMD');
    assert.deepEqual(plain.wasm, ['attnlab.wasm']);
    assert.deepEqual(plain.problems, []);
    // An embed of a view that trains nothing: the lite module (web/app/module_views.h), the same choice.
    assert.deepEqual((await wasmFetched(session, { hash: '#embed&v=cnn' })).wasm, ['attnlab-lite-relaxed.wasm']);
    assert.deepEqual((await wasmFetched(session, { hash: '#embed&v=cnn', withoutRelaxed: true })).wasm, ['attnlab-lite.wasm']);
  } finally {
    await session.close();
  }
});
