// attnlab for JavaScript: a thin wrapper over the embind module.
//
//   import { loadAttnlab } from './attnlab.js';
//   const attnlab = await loadAttnlab();
//   const r = attnlab.selfAttention(new Float32Array([1, 0, 0, 1]), 2, 2, { temperature: 1 });
//   if (r.ok) console.log(r.heads[0].weights.data);   // Float32Array, row-major (2, 2)
//   else console.error(r.code, r.message);
//
// Every result is a plain JS object of copied Float32Arrays: there is nothing to .delete().
//
// Strict arguments: every engine call returns {ok: true, ...} or {ok: false, code, message}, never
// throws. An options key the call does not know is "unknown_option" ("numHeds: unknown option (did
// you mean numHeads?)"); a value of the wrong type "invalid_argument" ("numHeads: expected an
// integer, got the string \"two\""; 2.7 is no integer, "no" no boolean); an integer outside int32
// "out_of_range" with the number given; a call over the documented sizes "resource_exhausted" before
// anything is allocated: one matrix holds at most 2^24 values, and forward() / selfAttention(), which
// keep five (n, m) matrices per head, at most heads·n·m = 2^24 scores (n = 4096 with one head):
// longer sequences go through forwardOutput({kernel: 'wasm_simd128', ...}), whose memory is O(n·d).
// Matrices are {rows, cols, data} with data a Float32Array (or any typed array, or an array of
// numbers) of rows·cols values; their other keys are ignored, so results can be passed back.
// If the module dies all the same (a wasm trap, an abort), every call returns
// {ok: false, code: 'module_died'} and onDied(fn) listeners hear why.
import { chooseWasmBuild } from './relaxed_simd.mjs';

// Two modules (web/app/module_views.h): attnlab.wasm with every view, and attnlab-lite.wasm — an
// embed's, when its view is one of those that train nothing — without the training code; each has
// its own glue (attnlab.mjs, attnlab-lite.mjs). Each wasm is fetched and compiled once per page; every
// instance (each embed on a page has its own memory, ImGui context and canvas) instantiates the same
// compiled module. Where the browser has relaxed SIMD (Chromium), the relaxed-SIMD build, whose
// kernels time its fused multiply-add against a multiply then an add and run the faster
// (relaxed_simd.mjs); else the plain one. One of the two is fetched, never both; both run with the
// same glue. The speed view says which and why (wasmBuild.reason, handed to the module as
// Module.attnlabWasmBuild) and which form runs (kernelChoice()).
export const wasmBuild = chooseWasmBuild();
export const wasmFile = wasmBuild.relaxed ? 'attnlab-relaxed.wasm' : 'attnlab.wasm';
export const liteWasmFile = wasmBuild.relaxed ? 'attnlab-lite-relaxed.wasm' : 'attnlab-lite.wasm';
const compiled = new Map();
function compileOnce(file) {
  if (!compiled.has(file)) {
    const url = new URL(file, import.meta.url);
    compiled.set(file, WebAssembly.compileStreaming(fetch(url))
      .catch(() => fetch(url).then((r) => r.arrayBuffer()).then((bytes) => WebAssembly.compile(bytes))));
  }
  return compiled.get(file);
}
const glue = (lite) => (lite ? import('./attnlab-lite.mjs') : import('./attnlab.mjs')).then((g) => g.default);

// How a value reads in a message (as the module's own messages say it): the string "two", the number 5.
function describe(v) {
  if (v === null) return 'null';
  if (typeof v === 'string') return `the string "${v.length > 40 ? `${v.slice(0, 40)}…` : v}"`;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return `the ${typeof v} ${String(v)}`;
  if (typeof v !== 'object') return typeof v === 'undefined' ? 'undefined' : `a ${typeof v}`;
  if (Array.isArray(v)) return 'an array';
  if (ArrayBuffer.isView(v)) return `a ${v.constructor.name}`;
  return 'an object';
}

// A page hook's argument of the wrong type: the hook answers with this (its error-string convention).
function wrongType(name, expected, v) {
  return typeof v === expected ? '' : `invalid_argument: ${name}: expected a ${expected}, got ${describe(v)}`;
}
// A string with a lone surrogate has no UTF-8 form: the module's conversion made 'a\ud800b' "a𐁢"
// (the surrogate swallowed the b). Refused, with where.
function notWellFormed(name, s) {
  const at = s.search(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
  return at < 0 ? '' : `invalid_argument: ${name}: expected well-formed text, got a lone surrogate at ${at}`;
}
function notBytes(name, v) {
  return v instanceof Uint8Array || v instanceof ArrayBuffer ? '' : `invalid_argument: ${name}: expected a Uint8Array, got ${describe(v)}`;
}

// The page's Web Workers for long work (web/bindings/job_host.mjs, web/app/offload.h): the pool's
// script loads with the first job, so an embed that never trains or times fetches none of it.
// navigator.hardwareConcurrency − 1 workers, 1–8; none without Worker or with `workers` false (the
// app then works on its own thread). A pool that cannot load answers the jobs it was given as failed.
function attachJobsLazily(m, wasm, workers, glueFile) {
  const size = Math.max(1, Math.min(8, (navigator.hardwareConcurrency || 2) - 1));
  if (!workers || typeof Worker === 'undefined') return { stop() {}, killForTesting() {} };
  let host = null, stopped = false;
  const load = () => (host ||= import('./job_host.mjs').then(({ attachJobWorker }) => attachJobWorker(m, wasm, size, glueFile)));
  const failed = (ticket, why) => stopped || m.jobDone(ticket, { ok: false, message: `the Web Worker stopped (${why})`, workerFailed: true });
  m.jobWorkers = () => size;
  // Until the pool is here: each job waits for it, in order (the pool replaces both hooks).
  m.postJob = (ticket, job) => {
    load().then(() => stopped || m.postJob(ticket, job) || failed(ticket, 'it could not start'),
                (e) => failed(ticket, e?.message || e));
    return true;
  };
  return {
    stop: () => { stopped = true; host?.then((h) => h.stop()); },
    killForTesting: () => host?.then((h) => h.killForTesting()),
  };
}

// `workers: false` keeps long work (training, timing) on the page's thread, a slice per frame, as
// where no Web Worker can start.
// `lite`: the module without the views that train (8, 11, 12), for an embed of another view.
export async function loadAttnlab(moduleOptions = {}, { workers = true, lite = false } = {}) {
  const [wasm, createAttnlabModule] = await Promise.all([compileOnce(lite ? liteWasmFile : wasmFile), glue(lite)]);
  // The module dies on abort() (Module.onAbort) or on a trap inside a frame (an exception escapes
  // the frame loop between preMainLoop and postMainLoop): the page is told once, through onDied.
  const life = { dead: '', inFrame: false, listeners: new Set() };
  const died = (why) => {
    if (life.dead) return;
    life.dead = String(why || 'unknown error');
    for (const fn of life.listeners) fn(life.dead);
  };
  const onError = (e) => { if (life.inFrame) died(e.error?.message || e.message); };
  addEventListener('error', onError);
  const m = await createAttnlabModule({
    instantiateWasm(imports, receive) {
      WebAssembly.instantiate(wasm, imports).then((instance) => receive(instance, wasm));
      return {};
    },
    attnlabWasmBuild: wasmBuild.reason,
    onAbort: (what) => died(what ? `aborted: ${what}` : 'aborted'),
    preMainLoop: () => { life.inFrame = true; },
    postMainLoop: () => { life.inFrame = false; },
    ...moduleOptions,
  });
  const jobs = attachJobsLazily(m, wasm, workers, lite ? 'attnlab-lite.mjs' : 'attnlab.mjs');  // long work off the main thread (web/app/offload.h)
  const probeWorker = (warmupMs) => (!workers || typeof Worker === 'undefined' ? Promise.resolve(null)
    : import('./job_host.mjs').then(({ probeInWorker }) => probeInWorker(wasm, lite ? 'attnlab-lite.mjs' : 'attnlab.mjs', warmupMs),
                                    () => null));
  // View 12's language model, in its own module and worker (web/app/lm_client.h): its host script
  // loads with the first request, so an embed of another view never fetches it.
  let lm = null;
  const lmHost = () => (lm ||= import('./lm_host.mjs').then(({ attachLmHost }) => attachLmHost(m)));
  m.lmPost = (ticket, request) => {
    lmHost().then((h) => h.post(ticket, request), (e) => m.lmFailed(ticket, `the model's script could not load (${e?.message || e})`));
    return true;
  };
  // The view's buttons (web/app/lm_client.h): 'pick' (Open a model…), 'reset', 'save' (Export weights).
  m.lmControl = (kind) => {
    lmHost().then((h) => h[kind]?.(), (e) => m.lmModelEvent('failed', `the model's script could not load (${e?.message || e})`));
  };
  const deadResult = () => ({ ok: false, code: 'module_died', message: `attnlab stopped working (${life.dead}); reload the page` });
  // After stop() (a mount's destroy()): every engine call answers module_died, every hook nothing.
  const stop = () => {
    removeEventListener('error', onError);
    jobs.stop();
    lm?.then((h) => h.stop());
    if (!life.dead) m.stop();
    life.dead ||= 'destroyed';
  };
  // Engine calls never throw: a trap is the module dying; the module reads every argument inside
  // try/catch (js_options.cpp), and any JS error that still reached here is a wrong argument.
  const engine = (name, call) => (...args) => {
    if (life.dead) return deadResult();
    try {
      return call(...args);
    } catch (e) {
      if (life.dead || e instanceof WebAssembly.RuntimeError || typeof e === 'number') {
        died(e?.message || e);
        return deadResult();
      }
      return { ok: false, code: 'invalid_argument', message: `${name}: ${e?.message || e}` };
    }
  };
  // Page hooks do nothing once the module died (what they would touch is gone).
  const page = (call) => (...args) => {
    if (life.dead) return undefined;
    try {
      return call(...args);
    } catch (e) {
      if (e instanceof WebAssembly.RuntimeError || typeof e === 'number') {
        died(e?.message || e);
        return undefined;
      }
      throw e;
    }
  };
  const text = (name, call) => page((v, ...rest) => wrongType(name, 'string', v) || notWellFormed(name, v) || call(v, ...rest));
  return {
    // Engine
    selfAttention: engine('selfAttention', (x, n, d, options = {}) => m.selfAttention(x, n, d, options)),
    // forward({numHeads: 2, projectInputs: true, score: 'cosine', ...}, {query: {rows, cols, data}, key?, value?})
    forward: engine('forward', (config, inputs, params = null) => m.forward(config, inputs, params)),
    // forwardOutput({kernel: 'wasm_simd128', numHeads: 4, ...}, inputs): {ok, output, fused} only; the fused
    // kernel keeps memory O(n·d), for long sequences and timing.
    forwardOutput: engine('forwardOutput', (config, inputs, params = null) => m.forwardOutput(config, inputs, params)),
    // tokenize('The cat'): {ok, tokens: ['the', 'cat']}; hashEmbeddings(tokens, dim): {ok, rows, cols, data}
    tokenize: engine('tokenize', (t) => m.tokenize(t)),
    hashEmbeddings: engine('hashEmbeddings', (tokens, dim) => m.hashEmbeddings(tokens, dim)),
    availableKernels: page(() => m.availableKernels()),
    // kernelChoice(): how this CPU tiles the fastest kernel (attn/kernel_choice.h), measured on the
    // first call; setKernelChoice(c) takes another instance's (the page's Web Workers take the page's).
    kernelChoice: page(() => m.kernelChoice()),
    kernelChoiceMade: page(() => m.kernelChoiceMade()),
    // useDefaultKernelChoice(): today's tiles, unmeasured; probeKernelChoiceInWorker(warmupMs): a
    // Promise of the settings a worker of its own measures (null where none can run), for a next load.
    useDefaultKernelChoice: page(() => m.useDefaultKernelChoice()),
    probeKernelChoiceInWorker: (warmupMs) => probeWorker(warmupMs),
    setKernelChoice: page((c) => m.setKernelChoice(c)),
    version: page(() => m.version()),
    // The module died (why), or '' while it lives; onDied(fn) calls fn(why) once when it dies.
    dead: () => life.dead,
    onDied: (fn) => { life.listeners.add(fn); if (life.dead) fn(life.dead); },
    // Test-only: 'abort' calls abort() in the module, 'trap' traps inside the next frame.
    crashForTesting: page((how) => m.crashForTesting(String(how))),
    // Test-only: the page's Web Worker dies; the work it held comes back to the page (web/app/offload.h).
    killWorkerForTesting: () => jobs.killForTesting(),
    // Page: start(fontBytes, '#canvas-id') draws on that canvas (web/public/mount.js does it all).
    start: page((fontBytes, canvasSelector = '#canvas') => m.start(fontBytes, canvasSelector)),
    // A link's state from the defaults ('v=masks&m.c=0'); returns '' or what was ignored or clamped.
    applyLink: text('text', (t) => m.applyLink(t)),
    setEmbedded: page((embedded) => wrongType('embedded', 'boolean', embedded) || m.setEmbedded(embedded)),
    setLightTheme: page((light) => wrongType('light', 'boolean', light) || m.setLightTheme(light)),
    needsWordVectors: page(() => m.needsWordVectors()),
    needsPrices: page(() => m.needsPrices()),
    needsTrainedHeads: page(() => m.needsTrainedHeads()),
    // After each frame the app calls fn(state, contentHeight, scroll, summary): sizes in CSS px, the
    // summary one sentence on what the view shows, for screen readers.
    onAfterFrame: (fn) => { m.afterFrame = fn; },
    setRunning: page((running) => wrongType('running', 'boolean', running) || m.setRunning(running)),
    // Figures leaving the page: the ⋯ menus call fnText(fileName, csv) and fnImage(fileName, width,
    // height, rgba Uint8Array, rows top first); saveViewPng() renders the whole view for fnImage.
    // fnFile(fileName, blob): view 12's Export weights (a checkpoint and its config.json).
    onExport: (fnText, fnImage, fnFile) => { m.exportText = fnText; m.exportImage = fnImage; m.exportFile = fnFile; },
    // View 12 opens a checkpoint: File objects (a .safetensors and its config.json), e.g. dropped.
    openModelFiles: page((files) => { lmHost().then((h) => h.openFiles(files)); }),
    saveViewPng: page(() => m.saveViewPng()),
    memoryBytes: () => m.HEAPU8.buffer.byteLength,  // this instance's WebAssembly memory
    setReducedMotion: page((reduced) => wrongType('reduced', 'boolean', reduced) || m.setReducedMotion(reduced)),
    // An embed asks its page to show `height` px from `top` (CSS px in the canvas): fn(top, height).
    onScrollHost: (fn) => { m.scrollHostTo = fn; },
    stop,
    // A problem with a part of the link the page reads itself (theme=…), for the link's note.
    noteLinkProblem: text('problem', (t) => m.noteLinkProblem(t)),
    renderNow: page(() => m.renderNow()),
    idle: page(() => m.idle()),
    lastFrameMs: page(() => m.lastFrameMs()),
    framesDrawn: page(() => m.framesDrawn()),
    state: page(() => m.pageState()),
    setState: text('text', (t) => m.setPageState(t)),
    // A text box's text: box 0 (the default) the shared sentence, 1 view 10's sentence B, 2 its query
    // word; more than the field holds (511, 511, 64 bytes of UTF-8) is cut at a character (the answer says so).
    setSentence: text('sentence', (s, box = 0) => wrongType('box', 'number', box) || m.setSentence(s, box)),
    // The page's HTML text boxes (web/public/sentence_box.js): after each frame the app calls
    // fn(shown, x, y, width, height, text, box, label) for each box with its place on the canvas in CSS
    // pixels; the box answers with the height its wrapped text needs.
    onSentenceBox: (fn) => { m.sentenceBox = fn; },
    setSentenceBoxHeight: page((px, box = 0) => wrongType('px', 'number', px) || wrongType('box', 'number', box) ||
      m.setSentenceBoxHeight(px, box)),
    scrollBy: page((px) => wrongType('px', 'number', px) || m.scrollBy(px)),
    view: page(() => m.pageView()),
    matrix: page((name) => (typeof name === 'string' ? m.pageMatrix(name) : null)),
    matrixNames: page(() => m.pageMatrixNames()),
    layout: page(() => m.pageLayout()),
    scalars: page(() => m.pageScalars()),
    // {name: word} drawn outside prose (view 12's next words and continuation)
    labels: page(() => m.pageLabels()),
    // Every sentence the view shows, as drawn this frame (their lines are layout()'s "text.N.L").
    texts: page(() => m.pageTexts()),
    // For each of texts(), its drawn lines' text: tests check that no number is split across lines.
    textLines: page(() => m.pageTextLines()),
    readPixel: page((x, y) => wrongType('x', 'number', x) || wrongType('y', 'number', y) || m.readPixel(x, y)),
    // readPixels(x, y, width, height) in CSS px: {width, height, data: RGBA Uint8Array} drawn and read in one frame.
    readPixels: page((x, y, w, h) => [['x', x], ['y', y], ['width', w], ['height', h]].map(([n, v]) => wrongType(n, 'number', v)).join('')
      || m.readPixels(x, y, w, h)),
    // True between webglcontextlost and webglcontextrestored (the page says "restoring graphics…").
    graphicsLost: page(() => m.graphicsLost()),
    loadWordVectors: page((bytes) => notBytes('bytes', bytes) || m.loadWordVectors(bytes)),
    wordVectorsFailed: text('why', (why) => m.wordVectorsFailed(why)),
    wordVectorsProgress: page((fraction) => wrongType('fraction', 'number', fraction) || m.wordVectorsProgress(fraction)),
    loadPrices: text('text', (t) => m.loadPrices(t)),
    pricesFailed: text('why', (why) => m.pricesFailed(why)),
    loadTrainedHeads: page((bytes) => notBytes('bytes', bytes) || m.loadTrainedHeads(bytes)),
    trainedHeadsFailed: text('why', (why) => m.trainedHeadsFailed(why)),
  };
}
