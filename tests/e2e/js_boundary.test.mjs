// The JS boundary of the npm package (issue 26, items 1 and 5), under node from the assembled
// package (scripts/build-lib.mjs; build with cmake --build --preset wasm-release --target
// attnlab_lib): a value that throws while it is read (a BigInt, a Symbol, a throwing valueOf, a
// Proxy) is refused with invalid_argument naming the matrix and the index, and wasm memory does not
// grow over many such calls (it grew 1 MB per call: 16 -> 1096 MB over 1000); data holds numbers
// only (strings, booleans, nulls and nested arrays were coerced); only own keys of an options
// object count (an inherited or polluted `causal` made the layer causal); integers are refused with
// the documented range; messages use the JS names.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildLib } from '../../scripts/build-lib.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const buildLibDir = process.env.ATTN_LIB_BUILD_DIR || join(root, 'build/wasm/lib');

let temp, engine, memory;

before(async () => {
  temp = await mkdtemp(join(tmpdir(), 'attnlab-boundary-'));
  await buildLib(buildLibDir, join(temp, 'lib'));
  const { loadEngine } = await import(pathToFileURL(join(temp, 'lib', 'index.mjs')).href);
  // The package does not expose its memory: the instance is caught as it is made.
  const instantiate = WebAssembly.instantiate;
  WebAssembly.instantiate = async (...args) => {
    const result = await instantiate(...args);
    memory = (result.instance ?? result).exports.memory ?? Object.values((result.instance ?? result).exports)
      .find((e) => e instanceof WebAssembly.Memory);
    return result;
  };
  try {
    engine = await loadEngine({ relaxedSimd: false });
  } finally {
    WebAssembly.instantiate = instantiate;
  }
  assert.ok(memory instanceof WebAssembly.Memory, 'the engine instance\'s memory');
});
after(async () => {
  if (temp) await rm(temp, { recursive: true, force: true });
});

const MiB = () => memory.buffer.byteLength / 2 ** 20;
const query = (data, rows, cols) => ({ query: { rows, cols, data } });

test('a value that throws while it is read is refused by name, and the memory of the refused call stays free', () => {
  const rows = 1024, cols = 256;
  const data = new Array(rows * cols).fill(0.5);
  const proxy = (index) => new Proxy(data.slice(), { get(t, k) { if (k === String(index)) throw new Error('no'); return t[k]; } });
  const hostile = [
    ['a BigInt', () => { const d = data.slice(); d[d.length - 1] = 1n; return d; }, /query\.data\[262143\]: expected a number, got the bigint 1$/],
    ['a Symbol', () => { const d = data.slice(); d[d.length - 1] = Symbol('s'); return d; }, /query\.data\[262143\]: expected a number, got a symbol$/],
    ['a throwing valueOf', () => { const d = data.slice(); d[d.length - 1] = { valueOf() { throw new Error('v'); } }; return d; },
      /query\.data\[262143\]: expected a number, got an object$/],
    ['a Proxy whose getter throws', () => proxy(rows * cols - 1), /query\.data\[262143\]: reading it threw no$/],
  ];
  assert.equal(engine.forward({}, query(data, 4, 4)).code, 'shape_mismatch');
  for (const [name, make, message] of hostile) {
    const d = make();
    const first = engine.forwardOutput({}, query(d, rows, cols));
    assert.deepEqual([first.code, first.ok], ['invalid_argument', false], name);
    assert.match(first.message, message, name);
    const start = MiB();
    for (let i = 0; i < 60; ++i) {
      const r = engine.forward({}, query(d, rows, cols));
      assert.equal(r.code, 'invalid_argument', name);
    }
    // Each refused call leaked its 1 MiB query before (60 calls: ≥ 60 MiB); now nothing stays.
    assert.ok(MiB() - start <= 4, `${name}: wasm memory ${start} -> ${MiB()} MiB over 60 refused calls`);
  }
  const ok = engine.forwardOutput({ kernel: 'wasm_simd128' }, query(Float32Array.from(data), rows, cols));
  assert.equal(ok.ok, true, ok.message);
});

test('data holds numbers only: strings, booleans, nulls and nested arrays are invalid_argument naming the index', () => {
  const cases = [
    [['1', '2'], 'query.data[0]: expected a number, got the string "1"'],
    [[true, false], 'query.data[0]: expected a number, got the boolean true'],
    [[null, null], 'query.data[0]: expected a number, got null'],
    [[[1], [2]], 'query.data[0]: expected a number, got an array'],
    [['0x10', ''], 'query.data[0]: expected a number, got the string "0x10"'],
    [[1, 'a'], 'query.data[1]: expected a number, got the string "a"'],
  ];
  for (const [data, message] of cases) {
    for (const call of ['forward', 'forwardOutput']) {
      assert.deepEqual(engine[call]({}, query(data, 1, 2)), { ok: false, code: 'invalid_argument', message }, `${call} ${JSON.stringify(data)}`);
    }
  }
  // A NaN is a number: the engine's non_finite, as before.
  assert.equal(engine.forward({}, query([1, NaN], 1, 2)).code, 'non_finite');
  const r = engine.backward({}, query([1, 2], 1, 2), { rows: 1, cols: 2, data: [1, '2'] });
  assert.deepEqual(r, { ok: false, code: 'invalid_argument', message: 'dOutput.data[1]: expected a number, got the string "2"' });
  assert.deepEqual(engine.hashEmbeddings(['a', 3], 4), { ok: false, code: 'invalid_argument', message: 'tokens[1]: expected a string, got the number 3' });
});

test('only own keys count: an inherited or polluted option is not applied', () => {
  const x = query([3, 0, 0, 3], 2, 2);
  const plain = engine.forward({}, x).heads[0].weights.data;
  const causal = engine.forward({ causal: true }, x).heads[0].weights.data;
  assert.notDeepEqual(plain, causal);
  assert.deepEqual(engine.forward(Object.create({ causal: true }), x).heads[0].weights.data, plain);
  Object.prototype.causal = true;  // eslint-disable-line no-extend-native
  try {
    assert.deepEqual(engine.forward({}, x).heads[0].weights.data, plain);
    assert.deepEqual(engine.forward({}, { query: Object.assign(Object.create({ rows: 2, cols: 2 }), { data: [3, 0, 0, 3] }) }).code,
      'invalid_argument', 'inherited rows and cols are not read');
  } finally {
    delete Object.prototype.causal;
  }
  const getter = engine.forward({ get numHeads() { throw new Error('getter'); } }, x);
  assert.deepEqual(getter, { ok: false, code: 'invalid_argument', message: 'config: reading its keys threw getter' });
});

test('integers outside the documented range quote it; messages use the JS names', () => {
  const x = query([1, 2], 1, 2);
  assert.deepEqual(engine.forward({ numHeads: 1e6 }, x),
    { ok: false, code: 'out_of_range', message: 'numHeads: expected an integer in 1..65536, got 1000000' });
  assert.deepEqual(engine.forward({ windowRight: 2 ** 31 - 1 }, x),
    { ok: false, code: 'out_of_range', message: 'windowRight: expected an integer in -1..16777216, got 2147483647' });
  assert.deepEqual(engine.forward({ window_right: 3 }, x),
    { ok: false, code: 'unknown_option', message: 'window_right: unknown option (did you mean windowRight?)' });
  assert.deepEqual(engine.forward({ numHeads: 2n }, x),
    { ok: false, code: 'invalid_argument', message: 'numHeads: expected an integer, got the bigint 2' });
});

test('backward checks dOutput\'s shape before the forward pass, and its gradients are finite when ok', () => {
  const n = 4;
  const q = new Float32Array(n * n).map((_, i) => 1e18 * Math.sin(i));
  const dOutput = { rows: n, cols: n, data: new Float32Array(n * n).fill(1e20) };
  for (const config of [{ projectInputs: true, projectOutput: true }, { projectInputs: true }]) {
    const r = engine.backward(config, query(q, n, n), dOutput);
    if (!r.ok) {
      assert.equal(r.code, 'non_finite', r.message);
      continue;
    }
    for (const [name, m] of Object.entries(r)) {
      if (m?.data) assert.ok(m.data.every(Number.isFinite), `${JSON.stringify(config)}: ${name} has a non-finite entry`);
    }
  }
  // Scores that overflow and a dOutput of the wrong shape: the shape is what the caller hears of.
  const r = engine.backward({}, query(new Float32Array(12).fill(1e30), 3, 4), { rows: 2, cols: 4, data: new Float32Array(8) });
  assert.equal(r.code, 'shape_mismatch', r.message);
  assert.match(r.message, /^dOutput: expected \(3, 4\)/);
});
