// The npm package's prepare(): a layer prepared once gives forwardOutput's numbers bit for bit (the
// same pipeline, on wasm_simd128 fused and on eigen), call after call and across query lengths;
// bad options, parameters and queries get the engine's codes and messages (a bad query the same as
// forwardOutput's); a deleted layer refuses forward; the engine keeps working. Node only, from the
// assembled package (scripts/build-lib.mjs; build with cmake --build --preset wasm-release --target
// attnlab_lib).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildLib } from '../../scripts/build-lib.mjs';
import { seededMatrix } from './seeded_matrix.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const buildLibDir = process.env.ATTN_LIB_BUILD_DIR || join(root, 'build/wasm/lib');

let temp, engine;

before(async () => {
  temp = await mkdtemp(join(tmpdir(), 'attnlab-prepare-'));
  await buildLib(buildLibDir, join(temp, 'lib'));
  const { loadEngine } = await import(pathToFileURL(join(temp, 'lib', 'index.mjs')).href);
  engine = await loadEngine();
});
after(async () => {
  if (temp) await rm(temp, { recursive: true, force: true });
});

// A deterministic float32 matrix with values in [-1, 1], its data a Float32Array.
function matrix(rows, cols, seed) {
  const m = seededMatrix(rows, cols, seed);
  return { ...m, data: Float32Array.from(m.data) };
}

const kConfig = { numHeads: 4, projectInputs: true, projectOutput: true, useBias: true, causal: true, seed: 5 };

test('prepare: forward gives forwardOutput\'s numbers bit for bit, call after call, on wasm_simd128 and eigen', () => {
  const params = { wq: matrix(16, 16, 1), bo: matrix(1, 16, 2) };
  for (const kernel of ['wasm_simd128', 'eigen']) {
    const config = { ...kConfig, kernel };
    const r = engine.prepare({ ...config, dModel: 16 }, params);
    assert.equal(r.ok, true, JSON.stringify(r));
    const { layer } = r;
    assert.equal(layer.dModel, 16);
    assert.equal(layer.dOut, 16);
    assert.equal(layer.fused, kernel === 'wasm_simd128');
    for (const [i, n] of [5, 5, 1, 33, 5].entries()) {
      const query = matrix(n, 16, 10 + i);
      const got = layer.forward(query);
      const want = engine.forwardOutput(config, { query }, params);
      assert.equal(got.ok, true, JSON.stringify(got));
      assert.deepEqual([got.output.rows, got.output.cols], [n, 16]);
      assert.deepEqual(Array.from(got.output.data), Array.from(want.output.data), `${kernel} call ${i}, n = ${n}`);
    }
    layer.delete();
  }
});

test('prepare: bad options, parameters and queries are refused with the engine\'s messages; a deleted layer refuses forward', () => {
  const bad = (r) => ({ ok: r.ok, code: r.code, message: r.message });
  assert.deepEqual(bad(engine.prepare({ numHeads: 2 })), {
    ok: false, code: 'invalid_argument', message: 'dModel: expected an integer (the width of the rows forward() takes), got undefined' });
  assert.deepEqual(bad(engine.prepare({ dModel: '8' })), {
    ok: false, code: 'invalid_argument', message: 'dModel: expected an integer, got the string "8"' });
  assert.deepEqual(bad(engine.prepare({ dModel: 0 })), {
    ok: false, code: 'out_of_range', message: 'dModel: expected an integer in 1..16777216, got 0' });
  assert.deepEqual(bad(engine.prepare({ dModel: 8, numHeds: 2 })), {
    ok: false, code: 'unknown_option', message: 'numHeds: unknown option (did you mean numHeads?)' });
  const wrongWq = engine.prepare({ dModel: 8, projectInputs: true }, { wq: matrix(7, 8, 1) });
  assert.equal(wrongWq.code, 'shape_mismatch');
  assert.match(wrongWq.message, /^wq: expected/);
  assert.equal(engine.prepare({ dModel: 8, numHeads: 3 }).code, 'shape_mismatch');
  assert.deepEqual(bad(engine.prepare({ dModel: 8 }, { wqq: null })), {
    ok: false, code: 'unknown_option', message: 'wqq: unknown option (did you mean wq?)' });

  const { layer } = engine.prepare({ dModel: 8, kernel: 'wasm_simd128' });
  const nan = matrix(3, 8, 4);
  nan.data[5] = NaN;
  assert.deepEqual(bad(layer.forward(nan)), bad(engine.forwardOutput({ kernel: 'wasm_simd128' }, { query: nan })));
  assert.equal(layer.forward(nan).code, 'non_finite');
  assert.deepEqual(bad(layer.forward(matrix(3, 7, 4))), {
    ok: false, code: 'shape_mismatch', message: 'query: expected (n, 8) (the dModel the layer was prepared for), got (3, 7)' });
  assert.deepEqual(bad(layer.forward({ rows: 2, cols: 8, data: new Float32Array(3) })), {
    ok: false, code: 'shape_mismatch', message: 'query: expected rows·cols = 16 values, got 3' });
  assert.equal(layer.forward().code, 'invalid_argument');
  assert.equal(layer.forward(matrix(3, 8, 4)).ok, true, 'after refused calls the layer still works');
  layer.delete();
  layer.delete();  // twice is harmless
  assert.deepEqual(bad(layer.forward(matrix(3, 8, 4))), {
    ok: false, code: 'invalid_argument', message: 'forward: this layer was deleted' });
  assert.equal(engine.forwardOutput({}, { query: matrix(3, 8, 4) }).ok, true, 'the engine keeps working');
});
