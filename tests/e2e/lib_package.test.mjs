// The npm package as a user gets it: scripts/build-lib.mjs assembles it from the wasm-release
// build (targets attnlab_lib and attnlab_lm), `npm pack` makes the tarball, and a consumer project in a temp folder
// installs it with `npm install --offline` (the package has no dependencies, so no registry is
// asked). Then (a) an ES module under node runs forward / forwardOutput / backward through
// `import 'attnlab'` and its numbers are checked against a float64 reference computed here, bad
// calls get their codes and the engine keeps working; (b) `tsc --noEmit --strict` type-checks a
// TypeScript example using every entry point and refuses a wrong one; (c) the same module runs in
// a Web Worker (and a page) in headless Chromium.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { buildLib, packLib } from '../../scripts/build-lib.mjs';
import { newPage, openBrowser } from './browser.mjs';
import { seededMatrix } from './seeded_matrix.mjs';
import { agrees, codeBlocks, quoted } from './readme.mjs';

const run = promisify(execFile);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const buildLibDir = process.env.ATTN_LIB_BUILD_DIR || join(root, 'build/wasm/lib');
const tsc = join(root, 'node_modules/typescript/bin/tsc');

let temp, consumer, sizes;

before(async () => {
  temp = await mkdtemp(join(tmpdir(), 'attnlab-lib-'));
  sizes = await buildLib(buildLibDir, join(temp, 'lib'));
  const tarball = packLib(join(temp, 'lib'), temp);
  consumer = join(temp, 'consumer');
  await mkdir(consumer);
  await writeFile(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  // --offline: a local tarball without dependencies needs no registry (a fresh npm cache in temp).
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--cache', join(temp, 'npm-cache'), tarball],
    { cwd: consumer });
});
after(async () => {
  if (temp) await rm(temp, { recursive: true, force: true });
});

// ---- float64 reference -------------------------------------------------------------------------

const matrix = seededMatrix;

function matmul(a, b) {  // (r, k)·(k, c), row-major number[]
  const out = { rows: a.rows, cols: b.cols, data: new Array(a.rows * b.cols).fill(0) };
  for (let i = 0; i < a.rows; ++i)
    for (let k = 0; k < a.cols; ++k)
      for (let j = 0; j < b.cols; ++j) out.data[i * b.cols + j] += a.data[i * a.cols + k] * b.data[k * b.cols + j];
  return out;
}

// The config the numeric checks use: two heads of width 4 over d_model 8, projections in and out,
// scaled dot product, softmax, causal. Returns {output, weights[h]} in float64.
const kConfig = { numHeads: 2, projectInputs: true, projectOutput: true, causal: true };
function referenceForward(x, p) {
  const q = matmul(x, p.wq), k = matmul(x, p.wk), v = matmul(x, p.wv);
  const n = x.rows, heads = 2, dk = q.cols / heads;
  const concat = { rows: n, cols: q.cols, data: new Array(n * q.cols).fill(0) };
  const weights = [];
  for (let h = 0; h < heads; ++h) {
    const w = new Array(n * n).fill(0);
    for (let i = 0; i < n; ++i) {
      const s = [];
      for (let j = 0; j <= i; ++j) {
        let dot = 0;
        for (let c = 0; c < dk; ++c) dot += q.data[i * q.cols + h * dk + c] * k.data[j * k.cols + h * dk + c];
        s.push(dot / Math.sqrt(dk));
      }
      const max = Math.max(...s);
      const e = s.map((x) => Math.exp(x - max));
      const sum = e.reduce((a, b) => a + b, 0);
      e.forEach((x, j) => { w[i * n + j] = x / sum; });
      for (let c = 0; c < dk; ++c) {
        let acc = 0;
        for (let j = 0; j <= i; ++j) acc += w[i * n + j] * v.data[j * v.cols + h * dk + c];
        concat.data[i * concat.cols + h * dk + c] = acc;
      }
    }
    weights.push(w);
  }
  return { output: matmul(concat, p.wo).data, weights };
}

// ∂L/∂(each entry of m) for L = Σ dY ∘ Y, by central differences in float64 (step 1e-6: truncation
// ~1e-12, rounding ~1e-10, far below float32's error).
function finiteDifference(m, loss) {
  const h = 1e-6;
  return m.data.map((value, i) => {
    m.data[i] = value + h;
    const up = loss();
    m.data[i] = value - h;
    const down = loss();
    m.data[i] = value;
    return (up - down) / (2 * h);
  });
}

function maxError(got, want) {
  assert.equal(got.length, want.length);
  let worst = 0;
  for (let i = 0; i < want.length; ++i) worst = Math.max(worst, Math.abs(got[i] - want[i]));
  return worst;
}

// Error bounds. A float32 sum of k products errs by at most γ_k·Σ|terms| (γ_k ≈ k·2⁻²⁴). Here
// x ∈ [-1, 1] and the weights lie in [-0.5, 0.5], so every sum has ≤ 8 terms with Σ|terms| ≤ 4:
// ≤ 8·6e-8·4 ≈ 2e-6 per stage. Five stages (x·W, q·kᵀ, softmax, P·V, concat·Wo); the softmax and
// the weighted average do not amplify an error, the output projection at most by Σ|Wo| ≤ 4 per
// column: about 1e-5. The backward pass runs the chain back once more: 2e-5. (Seen: ≤ 1.5e-7; a
// scale off by 0.1% is 8e-5 and fails.)
const kForwardTolerance = 1e-5;
const kBackwardTolerance = 2e-5;

// ---- (a) node --------------------------------------------------------------------------------

// Runs in the consumer project: imports the installed package, prints what it computed as JSON.
const kNodeScript = `import { loadEngine } from 'attnlab';
import { readFileSync } from 'node:fs';
const { x, params, dOutput, config } = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const f32 = (m) => ({ rows: m.rows, cols: m.cols, data: new Float32Array(m.data) });
const query = f32(x);
const p = Object.fromEntries(Object.entries(params).map(([k, m]) => [k, f32(m)]));
const engine = await loadEngine();
const plain = (r) => JSON.parse(JSON.stringify(r, (k, v) => (ArrayBuffer.isView(v) ? Array.from(v) : v)));
const out = { version: engine.version, kernels: engine.kernels() };
out.forward = plain(engine.forward(config, { query }, p));
out.forwardOutput = plain(engine.forwardOutput(config, { query }, p));
out.fused = plain(engine.forwardOutput({ ...config, kernel: 'wasm_simd128' }, { query }, p));
out.backward = plain(engine.backward(config, { query }, f32(dOutput), p));
const sq = { rows: 2, cols: 2, data: new Float32Array(4) };
const bad = [
  engine.forward({ numHeds: 2 }, { query }),
  engine.forward({ numHeads: '2' }, { query }),
  engine.backward({ causal: 'yes' }, { query }, f32(dOutput)),
  engine.forwardOutput({ kernel: 'cuda' }, { query }),
  engine.forward({}, { query, kee: query }),
  engine.forward({}, { query: { rows: 2, cols: 2, data: new Float32Array(3) } }),
  engine.backward(config, { query }, { rows: 5, cols: 3, data: new Float32Array(15) }, p),
  engine.forward({}, { query: { rows: 5000, cols: 8, data: new Float32Array(40000) } }),
  engine.forward({}, { query: { rows: 1, cols: 2, data: [1n, 2n] } }),
  engine.forward(),
  // 4096² scores: seven (n, n) matrices for forward and gradients, over the 512 MiB a call may take.
  engine.backward({}, { query: { rows: 4096, cols: 8, data: new Float32Array(4096 * 8) } },
                  { rows: 4096, cols: 8, data: new Float32Array(4096 * 8) }),
  // The engine's message names C++ fields; the caller wrote numHeads and windowRight.
  engine.forward({ numHeads: 3 }, { query }),
  engine.forward({ windowRight: 1 << 30 }, { query }),
];
out.bad = bad.map((r) => ({ ok: r.ok, code: r.code, message: r.message }));
out.after = plain(engine.forward(config, { query }, p));
// One forward at n = 32, d_model = 64 (one head, defaults): the median of many calls.
const big = { rows: 32, cols: 64, data: new Float32Array(32 * 64).map((_, i) => Math.sin(i)) };
const median = (call) => {
  for (let i = 0; i < 200; ++i) call();
  const t = [];
  for (let i = 0; i < 2000; ++i) { const t0 = performance.now(); call(); t.push(performance.now() - t0); }
  return t.sort((a, b) => a - b)[t.length >> 1];
};
out.ms = {
  forward: median(() => engine.forward({}, { query: big })),
  forwardOutput: median(() => engine.forwardOutput({}, { query: big })),
  fused: median(() => engine.forwardOutput({ kernel: 'wasm_simd128' }, { query: big })),
};
console.log(JSON.stringify(out));
`;

function testInputs() {
  const x = matrix(5, 8, 1);
  const params = { wq: matrix(8, 8, 2, 0.5), wk: matrix(8, 8, 3, 0.5), wv: matrix(8, 8, 4, 0.5), wo: matrix(8, 8, 5, 0.5) };
  return { x, params, dOutput: matrix(5, 8, 6), config: kConfig };
}

test('node: the installed package computes forward, forwardOutput and backward as a float64 reference; bad calls are refused and the engine keeps working', async (t) => {
  const inputs = testInputs();
  await writeFile(join(consumer, 'inputs.json'), JSON.stringify(inputs));
  await writeFile(join(consumer, 'run.mjs'), kNodeScript);
  const { stdout } = await run(process.execPath, ['run.mjs', 'inputs.json'], { cwd: consumer, maxBuffer: 1 << 26 });
  const out = JSON.parse(stdout);

  const rootPackage = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
  assert.equal(out.version, rootPackage.version, 'engine.version is the package version');
  assert.deepEqual(out.kernels, ['reference', 'eigen', 'wasm_simd128']);

  const { x, params, dOutput } = inputs;
  const want = referenceForward(x, params);
  assert.equal(out.forward.ok, true, JSON.stringify(out.forward));
  const errors = {
    forward: maxError(out.forward.output.data, want.output),
    weights: Math.max(...[0, 1].map((h) => maxError(out.forward.heads[h].weights.data, want.weights[h]))),
    forwardOutput: maxError(out.forwardOutput.output.data, want.output),
    fused: maxError(out.fused.output.data, want.output),
  };
  assert.equal(out.fused.fused, true, 'wasm_simd128 takes the fused path for this config');
  assert.equal(out.forwardOutput.fused, false);
  for (const [name, e] of Object.entries(errors)) assert.ok(e <= kForwardTolerance, `${name}: max error ${e}`);

  const loss = () => referenceForward(x, params).output.reduce((acc, y, i) => acc + y * dOutput.data[i], 0);
  const g = out.backward;
  assert.equal(g.ok, true, JSON.stringify(g));
  const gradients = { dQuery: x, dWq: params.wq, dWk: params.wk, dWv: params.wv, dWo: params.wo };
  for (const [name, m] of Object.entries(gradients)) {
    assert.deepEqual([g[name].rows, g[name].cols], [m.rows, m.cols], name);
    errors[name] = maxError(g[name].data, finiteDifference(m, loss));
    assert.ok(errors[name] <= kBackwardTolerance, `${name}: max error ${errors[name]}`);
  }
  for (const unused of ['dKey', 'dValue', 'dBq', 'dBo', 'dRelativeCenter']) assert.deepEqual([g[unused].rows, g[unused].cols], [0, 0], unused);
  t.diagnostic(`max |error| vs float64: ${Object.entries(errors).map(([k, v]) => `${k} ${v.toExponential(1)}`).join(', ')}`);

  assert.deepEqual(out.bad, [
    { ok: false, code: 'unknown_option', message: 'numHeds: unknown option (did you mean numHeads?)' },
    { ok: false, code: 'invalid_argument', message: 'numHeads: expected an integer, got the string "2"' },
    { ok: false, code: 'invalid_argument', message: 'causal: expected a boolean, got the string "yes"' },
    { ok: false, code: 'unknown_option', message: out.bad[3].message },
    { ok: false, code: 'unknown_option', message: 'kee: unknown option (did you mean key?)' },
    { ok: false, code: 'shape_mismatch', message: 'query: expected rows·cols = 4 values, got 3' },
    { ok: false, code: 'shape_mismatch', message: out.bad[6].message },
    { ok: false, code: 'resource_exhausted', message: out.bad[7].message },
    { ok: false, code: 'invalid_argument', message: out.bad[8].message },
    { ok: false, code: 'invalid_argument', message: 'inputs: expected an object, got undefined' },
    { ok: false, code: 'resource_exhausted', message: out.bad[10].message },
    { ok: false, code: 'shape_mismatch', message: 'numHeads: expected a divisor of query.cols() = 8, got 3' },
    { ok: false, code: 'out_of_range', message: 'windowRight: expected an integer in -1..16777216, got 1073741824' },
  ]);
  assert.match(out.bad[10].message, /over the limit of 512 MiB/);
  assert.match(out.bad[3].message, /^kernel: expected one of .*wasm_simd128.*, got 'cuda'$/);
  assert.match(out.bad[6].message, /dOutput/);
  assert.doesNotMatch(out.bad[6].message, /d_output/);
  assert.match(out.bad[7].message, /over the limit of 16777216/);
  assert.deepEqual(out.after, out.forward, 'after every refused call the same call gives the same numbers');

  t.diagnostic(`engine-only wasm ${sizes.wasmBytes} bytes (${sizes.wasmGzipBytes} gzip), glue ${sizes.glueBytes} (${sizes.glueGzipBytes} gzip); ` +
               `n = 32, d = 64 from node, median of 2000: forward ${out.ms.forward.toFixed(3)} ms, ` +
               `forwardOutput ${out.ms.forwardOutput.toFixed(3)} ms, fused ${out.ms.fused.toFixed(3)} ms`);
});

// ---- (b) TypeScript --------------------------------------------------------------------------

const kExample = `import { loadEngine, loadLanguageModel, openModel, type Checkpoint, type CheckpointInfo, type LanguageModel, type Engine, type ErrorCode, type Matrix, type AttentionConfig, type PreparedLayer } from 'attnlab';

const engine: Engine = await loadEngine();
const version: string = engine.version;
const kernels = engine.kernels();
const query = { rows: 2, cols: 4, data: new Float32Array(8) };
const config: AttentionConfig = { numHeads: 2, causal: true, score: 'cosine', normalizer: 'sparsemax', position: 'rope', kernel: kernels[0] };
const r = engine.forward(config, { query, key: null }, { wq: query });
if (r.ok) {
  const w: Float32Array = r.heads[0].weights.data;
  const out: Matrix = r.output;
  console.log(w, out.rows, r.parameters.wq.cols, r.concat, r.queryIn);
} else {
  const code: ErrorCode = r.code;
  console.log(code, r.message);
}
const f = engine.forwardOutput({ kernel: 'wasm_simd128' }, { query });
if (f.ok) console.log(f.fused, f.output.data);
const g = engine.backward({ projectInputs: true }, { query }, { rows: 2, cols: 4, data: new Float32Array(8) });
if (g.ok) console.log(g.dQuery.data, g.dWq.rows, g.dRelativeSharpness.cols);
const prepared = engine.prepare({ dModel: 4, kernel: 'wasm_simd128', numHeads: 2 }, { wq: null });
if (prepared.ok) {
  const layer: PreparedLayer = prepared.layer;
  const y = layer.forward(query);
  if (y.ok) console.log(y.output.data, layer.dOut, layer.fused);
  layer.delete();
}
const s = engine.selfAttention(new Float32Array(4), 2, 2, { temperature: 0.5 });
if (s.ok) console.log(s.heads.length);
const tokens = engine.tokenize('The cat');
if (tokens.ok) {
  const e = engine.hashEmbeddings(tokens.tokens, 16);
  if (e.ok) console.log(e.rows, e.data);
}
console.log(version, await loadEngine({ wasm: new URL('./node_modules/attnlab/attnlab-engine.wasm', import.meta.url) }));
const lm: LanguageModel = await loadLanguageModel();
const next = lm.nextWords('the jury said', { top: 3 });
if (next.ok) console.log(next.words[0], next.next[2][0].word, next.next[2][0].p, lm.info.heads);
const ran = lm.run('the jury', { knockedOut: [0, 5] });
if (ran.ok) console.log(ran.next.cols, ran.weights[3].layer, ran.weights[3].data);
const more = lm.generate('the jury said', { tokens: 5, temperature: 0, seed: 2 });
if (more.ok) console.log(more.generated.map((w) => w.word), more.cacheBytes);
const checkpoint: Checkpoint = await openModel(new Uint8Array(8), { n_head: 4, layer_norm_epsilon: 1e-5 });
const info: CheckpointInfo = checkpoint.info;
console.log(info.parameters, info.dtype, info.naming, info.activation, info.eps, info.bytesInMemory, checkpoint.vocabulary()[0]);
const tokenRun = checkpoint.run([1, 2], { knockedOut: [0] });
const tokenizer: 'words' | 'gpt2' | null = checkpoint.tokenizer;
const encoded = checkpoint.encode('The dog');
if (encoded.ok) console.log(tokenizer, encoded.ids[0], encoded.tokens[0], checkpoint.nextTokens('The dog', { top: 1 }).ok);
if (tokenRun.ok) console.log(tokenRun.logits.data, tokenRun.next.cols, tokenRun.weights[0].head);
const nextTokens = checkpoint.nextTokens(new Int32Array([1, 2]), { top: 3 });
if (nextTokens.ok) console.log(nextTokens.next[1][0].id, nextTokens.next[1][0].token, nextTokens.next[1][0].p);
const continued = checkpoint.generate([1], { tokens: 3, temperature: 0, seed: 1 });
if (continued.ok) console.log(continued.generated.map((t) => t.id), continued.cacheBytes);
await openModel(new ArrayBuffer(8), '{"n_head": 4}', { wasm: './attnlab-lm.wasm' });
await openModel(new ArrayBuffer(8), { heads: 12 });
`;

const kWrong = `import { loadEngine } from 'attnlab';
const engine = await loadEngine();
engine.forward({ numHeads: '2' }, { query: { rows: 1, cols: 1, data: new Float32Array(1) } });
engine.forward({ numHeds: 2 }, { query: { rows: 1, cols: 1, data: new Float32Array(1) } });
engine.forwardOutput({ kernel: 'cuda' }, { query: { rows: 1, cols: 1, data: new Float32Array(1) } });
engine.prepare({ numHeads: 2 });
import('attnlab').then(async ({ openModel }) => (await openModel(new Uint8Array(8))).nextTokens(['a'], { top: 1 }));
`;

async function typeCheck(name, text) {
  await writeFile(join(consumer, name), text);
  const args = [tsc, '--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', name];
  return run(process.execPath, args, { cwd: consumer }).then(() => ({ code: 0, stdout: '' }), (e) => ({ code: e.code, stdout: e.stdout }));
}

// The language model in the package (loadLanguageModel): its next words, every head, a
// continuation equal to the native CLI's (same words; p within the float32 bound of
// tests/e2e/lm_view.test.mjs), and refused arguments that leave it working.
const kLmScript = `import { loadLanguageModel } from 'attnlab';
const lm = await loadLanguageModel();
const out = { info: lm.info };
out.next = lm.nextWords('The jury said it', { top: 3 });
out.run = lm.run('the jury said', { knockedOut: [0] });
out.gen = lm.generate('the jury said', { tokens: 20, temperature: 0.8, seed: 1 });
out.bad = [lm.generate('x', { tokens: 0 }), lm.generate(5), lm.run('x', { knockedOut: [99] }), lm.nextWords('x', { tops: 3 }),
  lm.generate('x', { temperature: -1 })];
out.after = lm.nextWords('the', { top: 1 });
try { await loadLanguageModel({ model: new Uint8Array([1, 2, 3]) }); } catch (e) { out.badModel = e.message; }
console.log(JSON.stringify(out, (k, v) => (v instanceof Float32Array ? Array.from(v) : v)));
`;

test('node: the installed package runs the language model: next words, every head, the CLI\'s continuation; bad calls refused', async () => {
  await writeFile(join(consumer, 'lm.mjs'), kLmScript);
  const { stdout } = await run(process.execPath, ['lm.mjs'], { cwd: consumer, maxBuffer: 1 << 28 });
  const out = JSON.parse(stdout);
  assert.deepEqual(out.info, { layers: 4, heads: 4, dModel: 128, context: 64, vocabulary: 4096 });
  assert.equal(out.next.ok, true, JSON.stringify(out.next));
  assert.deepEqual(out.next.words, ['the', 'jury', 'said', 'it']);
  for (const row of out.next.next) {
    assert.equal(row.length, 3);
    assert.ok(row[0].p >= row[1].p && row[1].p >= row[2].p && row[2].p > 0);
  }
  assert.equal(out.run.ok, true, JSON.stringify(out.run));
  assert.deepEqual([out.run.next.rows, out.run.next.cols], [3, 4096]);
  for (let i = 0; i < 3; ++i) {
    const sum = out.run.next.data.slice(i * 4096, (i + 1) * 4096).reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(sum - 1) < 1e-4, `row ${i} sums to ${sum}`);
  }
  assert.equal(out.run.weights.length, 16);
  for (const w of out.run.weights) assert.deepEqual([w.rows, w.cols], [3, 3]);
  assert.equal(out.gen.ok, true, JSON.stringify(out.gen));
  assert.equal(out.gen.generated.length, 20);
  assert.equal(out.gen.cacheBytes, 4 * 2 * 4 * 128 * 22);
  const cli = join(root, 'build/native/engine/attnlab');
  const native = JSON.parse((await run(cli, ['generate', '--prompt', 'the jury said', '--tokens', '20', '--temperature', '0.8', '--seed', '1',
    '--model', join(root, 'web/assets/lm-brown.bin'), '--json'])).stdout.trim().split('\n').pop());
  assert.deepEqual(out.gen.generated.map((w) => w.word), native.generated.map((w) => w.word));
  out.gen.generated.forEach((w, k) => assert.ok(Math.abs(Math.log(w.p) - Math.log(native.generated[k].p)) <= 2 * 4224 * 2 ** -24 * 64, `word ${k}`));
  for (const bad of out.bad) assert.equal(bad.ok, false, JSON.stringify(bad));
  assert.match(out.bad[0].message, /tokens: expected 1–63, got 0/);
  assert.match(out.bad[1].message, /text: expected a string/);
  assert.match(out.bad[2].message, /knockedOut: expected 0–15, got 99/);
  assert.match(out.bad[3].message, /tops: unknown option of nextWords/);
  assert.match(out.bad[4].message, /temperature: expected a finite number ≥ 0/);
  assert.equal(out.after.ok, true, 'the model keeps working');
  assert.match(out.badModel, /^attnlab: model: parse_error: not an attnlab asset \(no "ATTNLM01"\), so read as safetensors: file of 3 bytes/);
});

// Checkpoints in the package (openModel): every fixture of tests/data/checkpoints (GPT-2 and nanoGPT
// namings; F32, F16, BF16, written by tests/torch/gpt2_checkpoints.py's own PyTorch GPT-2) gives its
// golden float64 logits within tests/train/lm_checkpoint_test.cpp's float32 bound; generation by
// ids is seeded and greedy is nextTokens' argmax; hostile files and calls get their reasons.
const kCheckpoints = ['gpt2-f32', 'gpt2-f16', 'gpt2-bf16', 'nanogpt-f32', 'nanogpt-f16', 'nanogpt-bf16'];
// lm_checkpoint_test.cpp's kRelativeBound (10 × 14 stages × √64 × u), times max(1, max |logit|).
const kCheckpointRelativeBound = 10 * 14 * 8 * 2 ** -24;

// The goldens: "ids a,b,…" then n rows of V logits, per sequence.
function readGolden(text) {
  const lines = text.split('\n');
  const out = [];
  for (let i = 0; i < lines.length; ++i) {
    if (!lines[i].startsWith('ids ')) continue;
    const ids = lines[i].slice(4).split(',').map(Number);
    out.push({ ids, logits: ids.map((_, r) => lines[i + 1 + r].trim().split(/\s+/).map(Number)) });
  }
  return out;
}

// The same safetensors file with one more tensor, lm_head.bias (V) = `bias` (F32) after the data:
// attnlab's output bias, which a checkpoint may carry (lm_checkpoint.h).
function withOutputBias(bytes, bias) {
  const view = new DataView(bytes.buffer, bytes.byteOffset);
  const n = Number(view.getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
  const data = bytes.subarray(8 + n);
  header['lm_head.bias'] = { dtype: 'F32', shape: [bias.length], data_offsets: [data.length, data.length + 4 * bias.length] };
  const text = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(8 + text.length + data.length + 4 * bias.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(text.length), true);
  out.set(text, 8);
  out.set(data, 8 + text.length);
  const at = new DataView(out.buffer, 8 + text.length + data.length);  // not 4-aligned in general: no Float32Array view
  bias.forEach((b, i) => at.setFloat32(4 * i, b, true));
  return out;
}

const kCheckpointScript = (dir, names) => `import { openModel, loadLanguageModel } from 'attnlab';
import { readFileSync } from 'node:fs';
const dir = ${JSON.stringify(dir)};
const out = {};
for (const name of ${JSON.stringify(names)}) {
  const bytes = readFileSync(dir + '/' + name + '.safetensors');
  const config = JSON.parse(readFileSync(dir + '/' + name + '.config.json', 'utf8'));
  const model = await openModel(bytes, config);
  const golden = ${readGolden.toString()}(readFileSync(dir + '/' + name + '.logits.txt', 'utf8'));
  out[name] = { info: model.info, runs: golden.map(({ ids }) => model.run(ids, {})), golden };
}
const text = readFileSync(dir + '/gpt2-f32.config.json', 'utf8');
const bytes = readFileSync(dir + '/gpt2-f32.safetensors');
const m = await openModel(new Uint8Array(bytes), text);
const prompt = [5, 17, 96, 0];
out.seeded = [m.generate(prompt, { tokens: 12, temperature: 1, seed: 7 }), m.generate(prompt, { tokens: 12, temperature: 1, seed: 7 }),
  m.generate(new Int32Array(prompt), { tokens: 12, temperature: 1, seed: 8 })];
out.greedy = m.generate(prompt, { tokens: 12, temperature: 0 });
out.argmax = [];
for (let k = 0; k < 12 && out.greedy.ok; ++k) {
  const r = m.nextTokens([...prompt, ...out.greedy.generated.slice(0, k).map((g) => g.id)], { top: 1 });
  out.argmax.push(r.ok ? r.next.at(-1)[0].id : r);
}
out.knocked = [m.run(prompt, { knockedOut: [0, 7] }), m.run(prompt)];
out.top = m.nextTokens(prompt, { top: 97 });
const bias = new Float32Array(97); bias[96] = 1000;
const last = await openModel((${withOutputBias.toString()})(new Uint8Array(bytes), bias), text);
out.last = [last.generate(prompt, { tokens: 5, temperature: 0 }), last.generate(prompt, { tokens: 5, temperature: 1, seed: 3 })];
out.bad = [m.run([0, 97]), m.run(Array(17).fill(1)), m.run([]), m.run([1.5]), m.run('5 17'), m.run(prompt, { knockedOut: [8] }),
  m.nextTokens(prompt, { top: 0 }), m.generate(Array(15).fill(1), { tokens: 2 }), m.generate(prompt, { tokens: 0 }),
  m.run(prompt, { knockOut: [1] })];
out.after = m.nextTokens(prompt, { top: 1 });
const refusal = (p) => p.then(() => 'opened', (e) => e.message);
out.hostile = {
  truncated: await refusal(openModel(bytes.subarray(0, bytes.length >> 1), text)),
  short: await refusal(openModel(new Uint8Array(3), text)),
  indivisible: await refusal(openModel(bytes, { ...JSON.parse(text), n_head: 3 })),
  noHeads: await refusal(openModel(bytes, (({ n_head, ...rest }) => rest)(JSON.parse(text)))),
  headsOnly: await refusal(openModel(bytes, { heads: 4 })),
  notBytes: await refusal(openModel('gpt2.safetensors')),
  assetWithConfig: await refusal(openModel(readFileSync(${JSON.stringify(join(root, 'web/assets/lm-brown.bin'))}), text)),
};
out.reopened = (await openModel(bytes, text)).nextTokens(prompt, { top: 1 });
const asset = await openModel(readFileSync(${JSON.stringify(join(root, 'web/assets/lm-brown.bin'))}));
out.asset = { info: asset.info, generated: asset.generate([1, 2, 3], { tokens: 20, temperature: 0.8, seed: 1 }) };
// Texts: an asset reads words, GPT-2's vocabulary GPT-2's BPE (js-tiktoken), other checkpoints ids only.
out.text = { asset: [asset.tokenizer, asset.encode('The jury said'), asset.nextTokens('The jury said', { top: 2 })] };
out.text.asset.push(asset.nextTokens(out.text.asset[1].ids, { top: 2 }));
const gpt2 = await openModel(readFileSync('gpt2-vocab.safetensors'), readFileSync('gpt2-vocab.config.json', 'utf8'));
const hello = gpt2.encode('Hello world, "the" €.');
out.text.gpt2 = [gpt2.tokenizer, hello, gpt2.nextTokens('Hello world, "the" €.', { top: 3 }), gpt2.nextTokens(hello.ids, { top: 3 }),
  gpt2.vocabulary()[995], gpt2.generate('Hello', { tokens: 2, temperature: 0 }), gpt2.encode(5)];
out.text.ids = [m.tokenizer, m.encode('5 17')];
out.builtin = (await loadLanguageModel()).generate('x', { tokens: 1 });
console.log(JSON.stringify(out, (k, v) => (v instanceof Float32Array ? Array.from(v) : v)));
`;

test('node: openModel opens every GPT-2 / nanoGPT fixture: logits as PyTorch\'s within the float32 bound, seeded and greedy generation, texts by the model\'s tokenizer, hostile input refused', async () => {
  await writeFile(join(consumer, 'checkpoints.mjs'), kCheckpointScript(join(root, 'tests/data/checkpoints'), kCheckpoints));
  // A GPT-2-vocabulary checkpoint (random weights), and js-tiktoken installed as a user would (the
  // package's optional peer dependency; --offline above cannot fetch it).
  const { gpt2Checkpoint, gpt2Config } = await import('./gpt2_checkpoint.mjs');
  await writeFile(join(consumer, 'gpt2-vocab.safetensors'), gpt2Checkpoint());
  await writeFile(join(consumer, 'gpt2-vocab.config.json'), JSON.stringify(gpt2Config));
  for (const name of ['js-tiktoken', 'base64-js'])
    await cp(join(root, 'node_modules', name), join(consumer, 'node_modules', name), { recursive: true });
  const { stdout } = await run(process.execPath, ['checkpoints.mjs'], { cwd: consumer, maxBuffer: 1 << 28 });
  const out = JSON.parse(stdout);
  for (const name of kCheckpoints) {
    const { info, runs, golden } = out[name];
    assert.equal(info.naming, name.startsWith('gpt2') ? 'gpt2 (Conv1D)' : 'nanogpt (Linear)');
    assert.equal(info.dtype, name.split('-')[1].toUpperCase());
    const config = JSON.parse(await readFile(join(root, `tests/data/checkpoints/${name}.config.json`), 'utf8'));
    assert.deepEqual([info.layers, info.heads, info.dModel, info.context, info.vocabulary, info.activation, info.eps, info.positions],
      [2, 4, 16, 16, 97, config.activation_function === 'gelu' ? 'gelu' : 'gelu_new', config.layer_norm_epsilon, 'learned']);
    assert.equal(info.bytesInMemory, 4 * info.parameters);
    // Every weight matrix packed once more (panels padded to whole vectors): at least the matrices' floats.
    const d = info.dModel, matrices = info.layers * 12 * d * d + info.vocabulary * d;
    assert.ok(info.packedBytes >= 4 * matrices && info.packedBytes < 4 * info.parameters * 1.2, `${info.packedBytes}`);
    let worst = 0, scale = 1;
    runs.forEach((r, i) => {
      assert.equal(r.ok, true, JSON.stringify(r).slice(0, 300));
      assert.deepEqual([r.logits.rows, r.logits.cols, r.next.rows, r.weights.length], [golden[i].ids.length, 97, golden[i].ids.length, 8]);
      golden[i].logits.forEach((row, t) => row.forEach((want, v) => {
        worst = Math.max(worst, Math.abs(r.logits.data[t * 97 + v] - want));
        scale = Math.max(scale, Math.abs(want));
      }));
      // The probabilities are the logits' softmax.
      const row = r.logits.data.slice(0, 97), max = Math.max(...row), z = row.reduce((a, x) => a + Math.exp(x - max), 0);
      assert.ok(Math.abs(r.next.data[5] - Math.exp(row[5] - max) / z) < 1e-6);
    });
    const bound = kCheckpointRelativeBound * scale;
    console.log(`[ checkpoint ] ${name}: max |Δ logit| ${worst.toExponential(2)} (bound ${bound.toExponential(2)})`);
    assert.ok(worst <= bound, `${name}: max |Δ logit| ${worst} > ${bound}`);
  }
  const [a, b, c] = out.seeded;
  assert.equal(a.ok, true, JSON.stringify(a));
  assert.deepEqual(a, b, 'the same seed, the same tokens');
  assert.notDeepEqual(a.generated.map((g) => g.id), c.generated.map((g) => g.id), 'another seed, other tokens');
  assert.equal(a.cacheBytes, 4 * 2 * 2 * 16 * (4 + 11));
  assert.equal(out.greedy.ok, true, JSON.stringify(out.greedy));
  assert.deepEqual(out.greedy.generated.map((g) => g.id), out.argmax, 'greedy = nextTokens\' argmax');
  assert.equal(out.top.next[3].length, 97);
  assert.equal(out.top.next[3][0].token, '[' + out.top.next[3][0].id + ']');
  const [knocked, plain] = out.knocked;
  assert.equal(knocked.ok && plain.ok, true);
  assert.ok(knocked.logits.data.some((x, i) => x !== plain.logits.data[i]), 'knocking heads out changes the logits');
  assert.deepEqual(out.last[0].generated.map((g) => g.id), [96, 96, 96, 96, 96], 'the last id is a token a checkpoint can generate');
  assert.ok(out.last[1].generated.every((g) => g.id === 96));
  for (const bad of out.bad) assert.equal(bad.ok, false, JSON.stringify(bad).slice(0, 200));
  const messages = out.bad.map((r) => r.message);
  assert.match(messages[0], /^ids\[1\]: expected an integer 0–96, got 97$/);
  assert.match(messages[1], /^ids: expected at most 16 entries, got 17$/);
  assert.match(messages[2], /^ids: expected at least one token id, got none$/);
  assert.match(messages[3], /^ids\[0\]: expected an integer 0–96, got 1\.5$/);
  assert.match(messages[4], /^text: this checkpoint's 97 tokens have no words/);
  assert.match(messages[5], /^knockedOut\[0\]: expected an integer 0–7, got 8$/);
  assert.match(messages[6], /^top: expected 1–97, got 0$/);
  assert.match(messages[7], /tokens: expected 1–1 \(the context less the prompt\), got 2/);
  assert.match(messages[8], /^tokens: expected 1–15, got 0$/);
  assert.match(messages[9], /^knockOut: unknown option of run/);
  assert.equal(out.after.ok, true, 'the model keeps working after refused calls');
  const h = out.hostile;
  assert.match(h.truncated, /^attnlab: model: not an attnlab asset \(no "ATTNLM01"\), so read as safetensors: .*beyond/);
  assert.match(h.short, /^attnlab: model: not an attnlab asset .*safetensors: file of 3 bytes/);
  assert.match(h.indivisible, /^attnlab: model: checkpoint: n_head: 3 does not divide n_embd 16$/);
  assert.match(h.noHeads, /^attnlab: model: checkpoint: n_head: not in the config/);
  assert.equal(h.headsOnly, 'opened', '{heads} alone suffices: the rest is read off the shapes');
  assert.match(h.notBytes, /^attnlab: openModel: bytes: expected a Uint8Array or an ArrayBuffer/);
  assert.match(h.assetWithConfig, /^attnlab: model: config: an attnlab asset \(ATTNLM01\) holds its own settings/);
  assert.equal(out.reopened.ok, true, 'a model opens after refused files');
  assert.deepEqual([out.asset.info.naming, out.asset.info.vocabulary, out.asset.info.parameters * 4], ['attnlab asset (ATTNLM01)', 4096, out.asset.info.bytesInMemory]);
  assert.equal(out.asset.generated.ok, true);
  assert.ok(out.asset.generated.generated.every((g) => g.id !== 4095), 'an asset\'s <unk> is never generated');
  assert.equal(out.builtin.ok, true);
  const [kind, encoded, byText, byIds] = out.text.asset;
  assert.equal(kind, 'words');
  assert.deepEqual(encoded.tokens, ['the', 'jury', 'said']);
  assert.deepEqual(byText, byIds, 'a text is its ids');
  const [gpt2Kind, hello, helloByText, helloByIds, world, generated, notText] = out.text.gpt2;
  assert.equal(gpt2Kind, 'gpt2');
  assert.deepEqual(hello.ids, [15496, 995, 11, 366, 1169, 1, 10432, 13], 'js-tiktoken\'s ids (and the CLI\'s)');
  assert.deepEqual(hello.tokens.slice(0, 4), ['Hello', ' world', ',', ' "']);
  assert.deepEqual(helloByText, helloByIds);
  assert.equal(world, ' world');
  assert.equal(generated.ok, true, JSON.stringify(generated));
  assert.equal(notText.ok, false);
  const [idsKind, refusedText] = out.text.ids;
  assert.equal(idsKind, null);
  assert.match(refusedText.message, /^text: this checkpoint's 97 tokens have no words \(GPT-2's BPE needs 50257\): pass token ids$/);
});

test('TypeScript: tsc --strict accepts an example using every entry point and refuses wrong options', async () => {
  const good = await typeCheck('example.ts', kExample);
  assert.equal(good.code, 0, good.stdout);
  const bad = await typeCheck('wrong.ts', kWrong);
  assert.notEqual(bad.code, 0);
  assert.match(bad.stdout, /wrong\.ts\(3,.*'string' is not assignable to type 'number'/);
  assert.match(bad.stdout, /wrong\.ts\(4,.*'numHeds' does not exist in type 'AttentionConfig'/);
  assert.match(bad.stdout, /wrong\.ts\(5,.*'"cuda"' is not assignable to type 'Kernel/);
  assert.match(bad.stdout, /wrong\.ts\(6,[\s\S]*'dModel' is missing/);
  assert.match(bad.stdout, /wrong\.ts\(7,.*'string\[\]' is not assignable to parameter of type 'string \| TokenIds'/);
});

test('README: the package\'s wasm sizes it quotes are the build\'s', () => {
  const kib = (bytes) => bytes / 1024;
  const raw = quoted(/`attnlab-engine\.wasm`, ([\d,]+) KiB/), gz = quoted(/`attnlab-engine\.wasm`, [\d,]+ KiB, ([\d,]+) KiB gzipped/);
  assert.ok(agrees(raw, kib(sizes.wasmBytes)), `README says ${raw} KiB; the build gives ${kib(sizes.wasmBytes).toFixed(0)}`);
  assert.ok(agrees(gz, kib(sizes.wasmGzipBytes)), `README says ${gz} KiB gzipped; the build gives ${kib(sizes.wasmGzipBytes).toFixed(0)}`);
});

// README's TypeScript example, in a project set up as README says ("type": "module"), compiled with
// the tsc line README prints and run with node: it compiles (the refused option is the
// @ts-expect-error line) and prints what its comments say.
test('README: the TypeScript example compiles with README\'s tsc line and runs as printed', async () => {
  const [example] = codeBlocks('ts');
  const command = codeBlocks('sh').map((b) => b.split('\n').find((l) => l.includes(' tsc '))).find(Boolean);
  assert.ok(example && command, 'README has a ```ts example and a tsc line');
  const tscArgs = command.replace(/#.*$/, '').split('&&')[0].trim().split(/\s+/);
  assert.deepEqual(tscArgs.slice(0, 4), ['npx', '-p', 'typescript', 'tsc']);
  assert.equal(tscArgs.at(-1), 'example.ts');
  await writeFile(join(consumer, 'example.ts'), example);
  const compiled = await run(process.execPath, [tsc, ...tscArgs.slice(4)], { cwd: consumer }).then(() => '', (e) => e.stdout || e.message);
  assert.equal(compiled, '', 'tsc reports nothing');
  const { stdout } = await run(process.execPath, ['example.js'], { cwd: consumer });
  const lines = stdout.trim().split('\n');
  assert.match(lines[0], /^Float32Array\(9\) \[/, 'the second head\'s (3, 3) weights');
  assert.match(stdout, /^true Float32Array\(24\) \[/m, 'the fused output (3, 8)');
  assert.equal(lines.at(-1), 'false unknown_option numHeds: unknown option (did you mean numHeads?)');
});

// ---- (c) browser: a Web Worker and a page --------------------------------------------------

test('browser: the same module runs in a Web Worker and in a page', async () => {
  const { x, params } = testInputs();
  const want = referenceForward(x, params).output;
  const job = JSON.stringify({ x, params, config: kConfig });
  await writeFile(join(consumer, 'worker.mjs'), `import { loadEngine } from './node_modules/attnlab/index.mjs';
const engine = await loadEngine();
self.onmessage = ({ data }) => {
  const { x, params, config } = JSON.parse(data);
  const f32 = (m) => ({ rows: m.rows, cols: m.cols, data: new Float32Array(m.data) });
  const p = Object.fromEntries(Object.entries(params).map(([k, m]) => [k, f32(m)]));
  const r = engine.forwardOutput({ ...config, kernel: 'wasm_simd128' }, { query: f32(x) }, p);
  const bad = engine.forward({ numHeds: 2 }, { query: f32(x) });
  self.postMessage({ version: engine.version, output: Array.from(r.output.data), fused: r.fused, bad: bad.message });
};
self.postMessage('ready');
`);
  await writeFile(join(consumer, 'page.mjs'), `import { loadEngine } from './node_modules/attnlab/index.mjs';
window.inPage = loadEngine().then((e) => e.kernels());
window.inWorker = (job) => new Promise((resolve, reject) => {
  const worker = new Worker('./worker.mjs', { type: 'module' });
  worker.onerror = (e) => reject(new Error(e.message));
  worker.onmessage = ({ data }) => { if (data === 'ready') worker.postMessage(job); else resolve(data); };
});
`);
  await writeFile(join(consumer, 'index.html'), `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'wasm-unsafe-eval'">
<script type="module" src="page.mjs"></script></head><body></body></html>`);
  const session = await openBrowser(consumer);
  try {
    const page = await newPage(session.browser);
    const problems = [];
    page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(session.url);
    await page.waitForFunction(() => window.inWorker && window.inPage);
    assert.deepEqual(await page.evaluate(() => window.inPage), ['reference', 'eigen', 'wasm_simd128']);
    const got = await page.evaluate((j) => window.inWorker(j), job);
    assert.equal(got.fused, true);
    assert.equal(got.bad, 'numHeds: unknown option (did you mean numHeads?)');
    const e = maxError(got.output, want);
    assert.ok(e <= kForwardTolerance, `worker output: max error ${e}`);
    assert.deepEqual(problems, []);
  } finally {
    await session.close();
  }
});
