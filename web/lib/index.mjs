// attnlab, the npm package: the attention engine as WebAssembly, for browsers, Web Workers and
// node ≥ 18. Types and every option: index.d.ts; usage: README.md beside this file.
//
//   import { loadEngine } from 'attnlab';
//   const engine = await loadEngine();
//   const r = engine.forward({ numHeads: 2 }, { query: { rows: 4, cols: 8, data: new Float32Array(32) } });
//   if (r.ok) r.heads[0].weights.data;   // Float32Array (4, 4), row-major, a copy
//   else r.code, r.message;              // 'unknown_option', 'numHeds: unknown option (did you mean numHeads?)'
//
// The calls are the engine's JS API (web/bindings/engine_js.cpp, the one the page binds): each
// checks every argument strictly and returns {ok: true, ...} or {ok: false, code, message}, and
// never throws. Results are plain objects of copied arrays: there is nothing to free, except a layer
// from prepare(), which holds its weights in wasm memory until its delete().
import createAttnlabEngine from './attnlab-engine.mjs';
import createAttnlabLm from './attnlab-lm.mjs';
import { chooseWasmBuild, relaxedSimdAvailable } from './relaxed_simd.mjs';

const kWasmFile = 'attnlab-engine.wasm';
// The same engine built with relaxed SIMD (its kernels in both forms of the multiply-add:
// f32x4.relaxed_madd, fused on CPUs with FMA, and a multiply then an add; its kernel choice times both
// and runs the faster, engine.kernelChoice().fusedMultiplyAdd): loaded where the engine validates that
// instruction (Chromium; node 20 only with --experimental-wasm-relaxed-simd), the plain file
// elsewhere. Both work with the same glue.
const kRelaxedWasmFile = 'attnlab-engine-relaxed.wasm';


// Bytes of the wasm at `url`: read from disk for a file: URL (node), fetched otherwise.
async function readWasm(url) {
  if (url.protocol === 'file:') {
    // Hidden from bundlers: in a browser build this branch never runs.
    const { readFile } = await import(/* webpackIgnore: true */ /* @vite-ignore */ 'node:fs/promises');
    return readFile(url);
  }
  const response = await fetch(url);
  if (!response.ok) throw new Error(`attnlab: cannot load ${url}: HTTP ${response.status}`);
  return response.arrayBuffer();
}

// A compiled module from what loadEngine's `wasm` option gives, or from the file beside this one.
async function compileWasm(wasm) {
  if (wasm instanceof WebAssembly.Module) return wasm;
  if (wasm instanceof ArrayBuffer || ArrayBuffer.isView(wasm)) return WebAssembly.compile(wasm);
  const url = new URL(wasm ?? kWasmFile, import.meta.url);
  if (url.protocol !== 'file:' && typeof WebAssembly.compileStreaming === 'function') {
    // Streaming needs the server to say application/wasm; otherwise compile the bytes.
    try {
      return await WebAssembly.compileStreaming(fetch(url));
    } catch {
      // fall through
    }
  }
  return WebAssembly.compile(await readWasm(url));
}

// Each bundled wasm is compiled once per realm; each loadEngine() gets its own instance (memory).
const bundledModules = new Map();  // file name -> Promise<WebAssembly.Module>

const kLoadOptions = ['wasm', 'relaxedSimd'];

/**
 * Loads an engine: its own WebAssembly instance and memory.
 * @param {{wasm?: string | URL | ArrayBuffer | ArrayBufferView | WebAssembly.Module, relaxedSimd?: boolean}} [options]
 *   wasm: where attnlab-engine.wasm (or attnlab-engine-relaxed.wasm) is (for bundlers that move it; a
 *   relative string resolves against this file), its bytes, or a compiled module.
 *   relaxedSimd: which bundled wasm (without `wasm`): true the relaxed-SIMD build (rejects where the
 *   engine lacks relaxed SIMD), false the plain one (the same bits on every machine); default: the
 *   relaxed build where the engine has relaxed SIMD (engine.wasmBuild says which and why).
 */
export async function loadEngine(options = {}) {
  if (options === null || typeof options !== 'object' || Array.isArray(options))
    throw new TypeError('attnlab: loadEngine(options): expected an object');
  for (const key of Object.keys(options)) {
    if (!kLoadOptions.includes(key))
      throw new TypeError(`attnlab: ${key}: unknown option of loadEngine (did you mean wasm or relaxedSimd?)`);
  }
  if (options.relaxedSimd !== undefined && typeof options.relaxedSimd !== 'boolean')
    throw new TypeError(`attnlab: relaxedSimd: expected a boolean, got ${typeof options.relaxedSimd}`);
  if (options.relaxedSimd !== undefined && options.wasm !== undefined)
    throw new TypeError('attnlab: relaxedSimd: chooses between the bundled files, so not with wasm (pass the file you want)');
  let file, relaxedSimd = null;  // null: a wasm the caller gave, whichever build it is
  let wasmBuild = 'the wasm given to loadEngine';
  if (options.wasm === undefined) {
    if (options.relaxedSimd === undefined) {
      const chosen = chooseWasmBuild();
      relaxedSimd = chosen.relaxed, wasmBuild = chosen.reason;
    } else {
      relaxedSimd = options.relaxedSimd;
      wasmBuild = `${relaxedSimd ? 'relaxed SIMD' : 'plain SIMD128'}: asked for by loadEngine's relaxedSimd option`;
    }
    if (relaxedSimd && !relaxedSimdAvailable())
      throw new Error('attnlab: relaxedSimd: true, but this WebAssembly engine has no relaxed SIMD');
    file = relaxedSimd ? kRelaxedWasmFile : kWasmFile;
  }
  // A trap or an abort kills the instance: every later call says so. The module reads every argument
  // inside try/catch (a BigInt among an array's numbers, a Proxy, a getter that throws: each is
  // invalid_argument naming the key and index); any JS error that still reached here is one too.
  const { m, guarded, isDead } = await instantiate(createAttnlabEngine, options.wasm, file, 'load a new engine');

  // A prepared layer (engine.prepare): forward(query) runs it on a query (n, dModel); delete() frees
  // its wasm memory (the packed weights and the workspace), after which forward is refused.
  const preparedLayer = ({ layer, dModel, dOut, fused }) => {
    let deleted = false;
    return Object.freeze({
      dModel,
      dOut,
      fused,
      forward: guarded('forward', (query) => (deleted
        ? { ok: false, code: 'invalid_argument', message: 'forward: this layer was deleted' }
        : layer.forward(query))),
      delete() {
        if (deleted) return;
        deleted = true;
        if (!isDead()) layer.delete();
      },
    });
  };

  return Object.freeze({
    version: m.version(),
    relaxedSimd,
    wasmBuild,
    kernelChoice: () => (isDead() ? null : m.kernelChoice()),
    kernels: () => (isDead() ? [] : m.availableKernels()),
    forward: guarded('forward', (config, inputs, params) => m.forward(config, inputs, params)),
    forwardOutput: guarded('forwardOutput', (config, inputs, params) => m.forwardOutput(config, inputs, params)),
    backward: guarded('backward', (config, inputs, dOutput, params) => m.backward(config, inputs, dOutput, params)),
    prepare: guarded('prepare', (options, params) => {
      const r = m.prepare(options, params);
      return r.ok ? { ok: true, layer: preparedLayer(r) } : r;
    }),
    selfAttention: guarded('selfAttention', (x, n, d, options) => m.selfAttention(x, n, d, options)),
    tokenize: guarded('tokenize', (text) => m.tokenize(text)),
    hashEmbeddings: guarded('hashEmbeddings', (tokens, dim) => m.hashEmbeddings(tokens, dim)),
  });
}

// [SECTION] The language model (the page's view 12): a small GPT trained by attnlab's engine on the
// Brown corpus (lm-brown.bin, bundled), in its own module (attnlab-lm.wasm, web/bindings/lm_js.cpp).

const kLmWasmFile = 'attnlab-lm.wasm';
const kLmModelFile = 'lm-brown.bin';
const kLmLoadOptions = ['model', 'wasm'];

const isBytes = (v) => v instanceof ArrayBuffer || ArrayBuffer.isView(v);
function wrongKeys(name, options, known) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) return `${name}: expected an object`;
  const unknown = Object.keys(options).find((k) => !known.includes(k));
  return unknown ? `${unknown}: unknown option of ${name} (known: ${known.join(', ')})` : '';
}
const refused = (message) => ({ ok: false, code: 'invalid_argument', message });
function checkInteger(name, v, min, max) {
  if (typeof v !== 'number' || !Number.isInteger(v)) return `${name}: expected an integer, got ${typeof v === 'number' ? v : typeof v}`;
  return v < min || v > max ? `${name}: expected ${min}–${max}, got ${v}` : '';
}

// A fresh instance of an emscripten module (`factory`) over the caller's `wasm` or the bundled `file`
// (compiled once per realm), and `guarded`: a call that returns {ok: false, …} instead of throwing,
// and module_died (saying `again`: what to do) for every call after a trap or an abort; isDead()
// for what must not touch a dead instance (freeing its memory).
async function instantiate(factory, wasm, file, again) {
  if (wasm === undefined && !bundledModules.has(file))
    bundledModules.set(file, compileWasm(file).catch((e) => { bundledModules.delete(file); throw e; }));
  const compiled = await (wasm === undefined ? bundledModules.get(file) : compileWasm(wasm));
  let dead = '';
  const m = await factory({
    instantiateWasm(imports, receive) {
      WebAssembly.instantiate(compiled, imports).then((instance) => receive(instance, compiled));
      return {};
    },
    onAbort: (what) => { dead ||= what ? `aborted: ${what}` : 'aborted'; },
  });
  const died = () => ({ ok: false, code: 'module_died', message: `attnlab stopped working (${dead}); ${again}` });
  const guarded = (name, call) => (...args) => {
    if (dead) return died();
    try {
      return call(...args);
    } catch (e) {
      if (dead || e instanceof WebAssembly.RuntimeError || typeof e === 'number') {
        dead ||= String(e?.message ?? e);
        return died();
      }
      return refused(`${name}: ${e?.message ?? e}`);
    }
  };
  return { m, guarded, isDead: () => dead !== '' };
}

// A fresh instance of the LM module, from `wasm` (loadLanguageModel's option) or the bundled file.
const instantiateLm = (wasm) => instantiate(createAttnlabLm, wasm, kLmWasmFile, 'load the model again');

// The `top` likeliest entries of each row of probabilities `next` (n, V), highest first (lowest id on
// ties): one pass keeping the best `top` in order, O(V·top) a row where sorting the row was
// O(V log V) (GPT-2's V is 50,257). Ids come in ascending order, so an equal later one never moves
// ahead of an earlier one.
function topOfRows(next, top, entry) {
  const rows = [];
  for (let i = 0; i < next.rows; ++i) {
    const row = next.data.subarray(i * next.cols, (i + 1) * next.cols);
    const best = [];
    for (let id = 0; id < row.length; ++id) {
      const p = row[id];
      if (best.length === top && !(p > row[best[top - 1]])) continue;
      let k = best.length < top ? best.push(id) - 1 : top - 1;
      while (k > 0 && row[best[k - 1]] < p) best[k] = best[--k];
      best[k] = id;
    }
    rows.push(best.map((id) => entry(id, row[id])));
  }
  return rows;
}

// generate's options, checked: [tokens, temperature, seed], or the reason they are refused.
function generateOptions(name, options, context) {
  const { tokens = 20, temperature = 0.8, seed = 1 } = options ?? {};
  const bad = wrongKeys(name, options, ['tokens', 'temperature', 'seed']) ||
    checkInteger('tokens', tokens, 1, context - 1) || checkInteger('seed', seed, 0, 2 ** 31 - 1) ||
    (typeof temperature === 'number' && Number.isFinite(temperature) && temperature >= 0 ? '' : `temperature: expected a finite number ≥ 0, got ${temperature}`);
  return bad ? { bad } : { args: [tokens, temperature, seed] };
}
const bytesOf = (v) => new Uint8Array(ArrayBuffer.isView(v) ? v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength) : v);

/**
 * Loads the language model: its own WebAssembly instance, with the bundled lm-brown.bin or `model`'s
 * bytes (an asset in the same format, e.g. one scripts/build-lm.mjs trained).
 * @param {{model?: string | URL | ArrayBuffer | ArrayBufferView, wasm?: string | URL | ArrayBuffer | ArrayBufferView | WebAssembly.Module}} [options]
 */
export async function loadLanguageModel(options = {}) {
  const problem = wrongKeys('loadLanguageModel', options, kLmLoadOptions);
  if (problem) throw new TypeError(`attnlab: ${problem}`);
  const bytes = isBytes(options.model) ? bytesOf(options.model)
    : new Uint8Array(await readWasm(new URL(options.model ?? kLmModelFile, import.meta.url)));
  const { m, guarded } = await instantiateLm(options.wasm);
  const error = m.loadModel(bytes);
  if (error) throw new Error(`attnlab: model: ${error}`);
  const text = (name, v) => (typeof v === 'string' ? '' : `${name}: expected a string, got ${typeof v}`);
  const { layers, heads, dModel, context, vocabulary: words } = m.info();
  const info = Object.freeze({ layers, heads, dModel, context, vocabulary: words });
  const vocabulary = m.vocabulary();
  const run = (t, knockedOut) => {
    const r = m.run(t, knockedOut);
    return r.ok ? { ok: true, words: r.words, next: r.next, weights: r.weights } : r;
  };
  return Object.freeze({
    info,
    run: guarded('run', (t, options = {}) => {
      const bad = text('text', t) || wrongKeys('run', options, ['knockedOut']);
      if (bad) return refused(bad);
      const knockedOut = options.knockedOut ?? [];
      if (!Array.isArray(knockedOut)) return refused('knockedOut: expected an array of head numbers (layer · heads + head)');
      for (const h of knockedOut) {
        const why = checkInteger('knockedOut', h, 0, info.layers * info.heads - 1);
        if (why) return refused(why);
      }
      return run(t, knockedOut);
    }),
    nextWords: guarded('nextWords', (t, options = {}) => {
      const bad = text('text', t) || wrongKeys('nextWords', options, ['top']) || checkInteger('top', options.top ?? 5, 1, 100);
      if (bad) return refused(bad);
      const r = m.run(t, []);
      if (!r.ok) return r;
      return { ok: true, words: r.words, next: topOfRows(r.next, options.top ?? 5, (id, p) => ({ word: vocabulary[id], p })) };
    }),
    generate: guarded('generate', (t, options = {}) => {
      const { bad, args } = generateOptions('generate', options, info.context);
      const why = text('text', t) || bad;
      if (why) return refused(why);
      return m.generate(t, ...args);
    }),
  });
}

// [SECTION] Checkpoints: GPT-2 (Hugging Face) and nanoGPT safetensors files, and attnlab's assets,
// by token ids or by text (checkpointTokenizer).

const kOpenOptions = ['wasm'];
// GPT-2's vocabulary, and nanoGPT's padding of it (its extra ids are never a text's).
const kGpt2Tokens = 50257, kNanoGptPaddedTokens = 50304;

// How a checkpoint reads a text: attnlab's word models by their words (as loadLanguageModel does);
// GPT-2's vocabulary by GPT-2's byte-level BPE from js-tiktoken (MIT; an optional peer dependency,
// imported only then: `npm install js-tiktoken`), its tokens' text as the vocabulary; any other
// vocabulary without words takes ids only. {kind, encode?, vocabulary?, why}
async function checkpointTokenizer(m, info) {
  if (info.words) return { kind: 'words', encode: (text) => m.wordIds(text), why: '' };
  if (info.vocabulary < kGpt2Tokens || info.vocabulary > kNanoGptPaddedTokens)
    return { kind: null, why: `text: this checkpoint's ${info.vocabulary} tokens have no words (GPT-2's BPE needs 50257): pass token ids` };
  let Tiktoken, ranks;
  try {
    ({ Tiktoken } = await import('js-tiktoken/lite'));
    ranks = (await import('js-tiktoken/ranks/gpt2')).default;
  } catch (e) {
    return { kind: null, why: `text: GPT-2's BPE needs the package js-tiktoken (npm install js-tiktoken), which did not load (${e?.message || e}): pass token ids` };
  }
  const bpe = new Tiktoken(ranks);
  const vocabulary = Array.from({ length: info.vocabulary }, (_, id) => (id < kGpt2Tokens ? bpe.decode([id]) : `[${id}]`));
  return { kind: 'gpt2', encode: (text) => bpe.encode(text, [], []), vocabulary, why: '' };
}

/**
 * Opens a model: a .safetensors checkpoint (GPT-2 or nanoGPT naming; F32, F16 or BF16) or an attnlab
 * asset (ATTNLM01), told apart by its first bytes, in its own WebAssembly instance.
 * @param {ArrayBuffer | ArrayBufferView} bytes  the file's bytes
 * @param {string | object} [config]  config.json's text or parsed object (n_head is required for a
 *   checkpoint; n_embd, n_layer, n_positions, vocab_size are checked against the shapes;
 *   layer_norm_epsilon, activation_function), and/or {heads} (n_head, winning over the config's)
 * @param {{wasm?: string | URL | ArrayBuffer | ArrayBufferView | WebAssembly.Module}} [options]
 */
export async function openModel(bytes, config, options = {}) {
  const problem = wrongKeys('openModel', options, kOpenOptions);
  if (problem) throw new TypeError(`attnlab: ${problem}`);
  if (!isBytes(bytes))
    throw new TypeError(`attnlab: openModel: bytes: expected a Uint8Array or an ArrayBuffer (a .safetensors file or an attnlab asset), got ${bytes === null ? 'null' : typeof bytes}`);
  let configJson = '', heads = 0;
  if (typeof config === 'string') {
    configJson = config;
  } else if (config !== undefined) {
    if (config === null || typeof config !== 'object' || Array.isArray(config))
      throw new TypeError(`attnlab: openModel: config: expected config.json's text or object, or {heads}, got ${config === null ? 'null' : Array.isArray(config) ? 'an array' : typeof config}`);
    const { heads: h, ...rest } = config;
    if (h !== undefined) {
      const why = checkInteger('heads', h, 1, 2 ** 31 - 1);
      if (why) throw new TypeError(`attnlab: openModel: ${why}`);
      heads = h;
    }
    if (Object.keys(rest).length) configJson = JSON.stringify(rest);
  }
  const { m, guarded } = await instantiateLm(options.wasm);
  const opened = m.openModel(bytesOf(bytes), configJson, heads);
  if (!opened.ok) throw new Error(`attnlab: model: ${opened.message}`);
  const { ok, ...rest } = opened;
  const info = Object.freeze(rest);
  const tokenizer = await checkpointTokenizer(m, info);
  const vocabulary = tokenizer.vocabulary ?? m.vocabulary();
  // A call's ids: a text through the model's tokenizer (refused where it has none), ids as they are.
  const idsOf = (ids) => {
    if (typeof ids !== 'string') return { ids: ArrayBuffer.isView(ids) ? Array.from(ids) : ids };
    return tokenizer.encode ? { ids: tokenizer.encode(ids) } : { refusal: refused(tokenizer.why) };
  };
  return Object.freeze({
    info,
    tokenizer: tokenizer.kind,
    vocabulary: () => vocabulary.slice(),
    encode: guarded('encode', (text) => {
      if (typeof text !== 'string') return refused(`text: expected a string, got ${typeof text}`);
      const { ids, refusal } = idsOf(text);
      return refusal ?? { ok: true, ids, tokens: ids.map((id) => vocabulary[id]) };
    }),
    run: guarded('run', (ids, options = {}) => {
      const bad = wrongKeys('run', options, ['knockedOut']);
      if (bad) return refused(bad);
      const { ids: read, refusal } = idsOf(ids);
      if (refusal) return refusal;
      const r = m.runIds(read, options.knockedOut ?? [], true);
      return r.ok ? { ok: true, ids: Array.from(read), logits: r.logits, next: r.next, weights: r.weights } : r;
    }),
    nextTokens: guarded('nextTokens', (ids, options = {}) => {
      const bad = wrongKeys('nextTokens', options, ['top']) || checkInteger('top', options.top ?? 5, 1, info.vocabulary);
      if (bad) return refused(bad);
      const { ids: read, refusal } = idsOf(ids);
      if (refusal) return refusal;
      const r = m.runIds(read, [], false);
      if (!r.ok) return r;
      return { ok: true, ids: Array.from(read), next: topOfRows(r.next, options.top ?? 5, (id, p) => ({ id, token: vocabulary[id], p })) };
    }),
    generate: guarded('generate', (ids, options = {}) => {
      const { bad, args } = generateOptions('generate', options, info.context);
      if (bad) return refused(bad);
      const { ids: read, refusal } = idsOf(ids);
      if (refusal) return refusal;
      const r = m.generateIds(read, ...args);
      return r.ok ? { ok: true, generated: r.generated.map((g) => ({ ...g, token: vocabulary[g.id] })), cacheBytes: r.cacheBytes } : r;
    }),
  });
}
