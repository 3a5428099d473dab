// The npm package's JS boundary fuzzed from node (scripts/fuzz.sh runs it as the target
// "js_convert"): hostile values (BigInts, Symbols, Proxies whose traps throw, getters, throwing
// valueOf, revoked Proxies, inherited keys, nested arrays, every typed array, huge or fractional
// sizes) built from a seeded stream go into every engine call, for a given time. Each call must
// answer {ok: true, …} or {ok: false, code, message} with a known code and a non-empty message,
// never throw, and wasm memory must not keep growing (a refused call leaked its copies before,
// issue 26): after the first 200 calls, the instance's memory may grow by at most 16 MiB.
//   node tests/fuzz/js_convert_fuzz.mjs [--seconds N] [--seed S] [--lib build/wasm/lib]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildLib } from '../../scripts/build-lib.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const arg = (name, fallback) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : fallback; };
const seconds = Number(arg('--seconds', 60));
let seed = Number(arg('--seed', Date.now() % 2 ** 31));
const libDir = resolve(arg('--lib', join(root, 'build/wasm/lib')));

// mulberry32: a seeded stream (the seed is printed, so a finding replays).
function random() {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const below = (n) => Math.floor(random() * n);
const pick = (list) => list[below(list.length)];

const thrower = () => { throw new Error('hostile'); };
function hostileScalar() {
  return pick([
    () => 1n, () => Symbol('s'), () => ({ valueOf: thrower }), () => ({ toString: thrower, valueOf: thrower }), () => '1', () => '',
    () => true, () => null, () => undefined, () => NaN, () => Infinity, () => -0, () => 2 ** 31, () => 2.5, () => -1,
    () => 1e40, () => [1], () => ({}), () => () => 1, () => new Proxy({}, { get: thrower }),
    () => { const p = Proxy.revocable({}, {}); p.revoke(); return p.proxy; },
  ])();
}
function number() { return pick([0, 1, -1, 0.5, 1e30, -1e30, 1e-40, 3.4e38]); }
function data(count) {
  const kind = below(12);
  const n = below(8) === 0 ? count + pick([-1, 1]) : count;
  if (kind === 0) return new Float32Array(Math.max(0, n)).map(number);
  if (kind === 1) return new (pick([Float64Array, Int8Array, Uint8Array, Int32Array, Uint16Array]))(Math.max(0, n));
  if (kind === 2) return new (pick([BigInt64Array, BigUint64Array]))(Math.max(0, n));
  if (kind === 3) return new DataView(new ArrayBuffer(Math.max(0, n) * 4));
  const a = Array.from({ length: Math.max(0, n) }, number);
  if (kind === 4 && a.length) a[below(a.length)] = hostileScalar();
  if (kind === 5) return new Proxy(a, { get: (t, k) => (k === String(below(Math.max(1, a.length))) ? thrower() : t[k]) });
  if (kind === 6) return new Proxy(a, { ownKeys: thrower, getOwnPropertyDescriptor: thrower, get: (t, k) => t[k] });
  if (kind === 7) { const ta = new Float32Array(Math.max(0, n)); Object.defineProperty(ta, 'length', { get: thrower }); return ta; }
  if (kind === 8) return hostileScalar();
  return a;
}
function matrix() {
  const rows = below(10) === 0 ? pick([-1, 2.5, 2 ** 24, 1n, '3', null]) : 1 + below(6);
  const cols = below(10) === 0 ? pick([-1, 0.5, 2 ** 31, Symbol('c'), undefined]) : 1 + below(6);
  const count = typeof rows === 'number' && typeof cols === 'number' && rows > 0 && cols > 0 && rows * cols < 1e5 ? rows * cols : 4;
  const m = { rows, cols, data: data(count) };
  const variant = below(8);
  if (variant === 0) return Object.create(m);  // every key inherited
  if (variant === 1) return new Proxy(m, { get: (t, k) => (k === 'data' ? thrower() : t[k]) });
  if (variant === 2) Object.defineProperty(m, 'rows', { get: thrower, enumerable: true, configurable: true });
  if (variant === 3) return hostileScalar();
  return m;
}
const kConfigKeys = ['scale', 'temperature', 'numHeads', 'numKvHeads', 'headDim', 'windowLeft', 'windowRight', 'seed',
  'projectInputs', 'projectOutput', 'useBias', 'causal', 'score', 'normalizer', 'position', 'kernel', 'numHeds', '__proto__'];
function config() {
  const c = below(6) === 0 ? Object.create({ causal: true, numHeads: 2 }) : {};
  for (let i = below(4); i > 0; --i) {
    const key = pick(kConfigKeys);
    const value = below(3) === 0 ? hostileScalar() : pick([1, 2, 4, 0, -1, true, false, 'wasm_simd128', 'eigen', 'softmax']);
    const descriptor = below(5) === 0 ? { get: thrower } : { value, writable: true };
    Object.defineProperty(c, key, { ...descriptor, enumerable: true, configurable: true });
  }
  return below(12) === 0 ? hostileScalar() : below(12) === 0 ? new Proxy(c, { ownKeys: thrower }) : c;
}
const inputs = () => (below(10) === 0 ? hostileScalar() : { query: matrix(), ...(below(3) === 0 ? { key: matrix(), value: matrix() } : {}) });

const kCodes = new Set(['empty_input', 'non_finite', 'shape_mismatch', 'out_of_range', 'unknown_option', 'invalid_argument',
  'parse_error', 'resource_exhausted']);

const temp = await mkdtemp(join(tmpdir(), 'attnlab-js-fuzz-'));
let failure = '';
try {
  await buildLib(libDir, join(temp, 'lib'));
  const { loadEngine } = await import(pathToFileURL(join(temp, 'lib', 'index.mjs')).href);
  let memory;
  const instantiate = WebAssembly.instantiate;
  WebAssembly.instantiate = async (...a) => {
    const result = await instantiate(...a);
    memory = Object.values((result.instance ?? result).exports).find((e) => e instanceof WebAssembly.Memory);
    return result;
  };
  const engine = await loadEngine({ relaxedSimd: false });
  WebAssembly.instantiate = instantiate;
  const MiB = () => memory.buffer.byteLength / 2 ** 20;
  const calls = [
    ['forward', () => engine.forward(config(), inputs())],
    ['forwardOutput', () => engine.forwardOutput(config(), inputs())],
    ['backward', () => engine.backward(config(), inputs(), matrix())],
    ['selfAttention', () => engine.selfAttention(data(4), pick([2, 2.5, -1, 1n]), 2, config())],
    ['hashEmbeddings', () => engine.hashEmbeddings(below(2) ? ['a', hostileScalar()] : data(2), pick([4, 0, 1e9]))],
    ['tokenize', () => engine.tokenize(below(2) ? 'the cat' : hostileScalar())],
    // A large query with one hostile value at the end (every scalar above, the throwing ones included):
    // a refused call that kept its 256 KiB copy shows in the memory check within seconds.
    ['forward, large', () => {
      const big = new Array(256 * 256).fill(0.25);
      big[big.length - 1] = hostileScalar();
      return engine[pick(['forward', 'forwardOutput'])]({}, { query: { rows: 256, cols: 256, data: big } });
    }],
    ['prepare', () => {
      const options = config();
      try { if (options && typeof options === 'object') options.dModel = pick([4, 0, 2.5, 1n]); } catch { /* a hostile options object */ }
      const r = engine.prepare(options);
      r.layer?.delete();
      return r;
    }],
  ];
  const startSeed = seed;
  const end = Date.now() + seconds * 1000;
  let runs = 0, warm = 0;
  while (Date.now() < end && !failure) {
    const [name, call] = pick(calls);
    let r;
    try {
      r = call();
    } catch (e) {
      failure = `${name} threw ${e?.message ?? e}`;
      break;
    }
    const ok = r && typeof r === 'object' && (r.ok === true || (r.ok === false && kCodes.has(r.code) && typeof r.message === 'string' && r.message.length > 0));
    if (!ok) failure = `${name} answered ${String(r?.code)}: ${String(r?.message)}`;
    ++runs;
    if (!warm && runs >= 200) warm = MiB();
  }
  const grew = warm ? MiB() - warm : 0;
  if (!failure && grew > 16) failure = `wasm memory grew ${grew.toFixed(0)} MiB (${warm.toFixed(0)} -> ${MiB().toFixed(0)}) over ${runs} calls`;
  console.log(`js_convert_fuzz: ${runs} runs in ${((Date.now() - end) / 1000 + seconds).toFixed(0)} s from seed ${startSeed}; ` +
              `wasm memory ${MiB().toFixed(0)} MiB` +
              (failure ? `\nFAILED: ${failure} (replay: --seed ${startSeed})` : ''));
} finally {
  await rm(temp, { recursive: true, force: true });
}
process.exit(failure ? 1 : 0);
