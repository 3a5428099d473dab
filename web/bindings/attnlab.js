// attnlab for JavaScript: a thin wrapper over the embind module.
//
//   import { loadAttnlab } from './attnlab.js';
//   const attnlab = await loadAttnlab();
//   const r = attnlab.selfAttention(new Float32Array([1, 0, 0, 1]), 2, 2, { temperature: 1 });
//   if (r.ok) console.log(r.heads[0].weights.data);   // Float32Array, row-major (2, 2)
//   else console.error(r.code, r.message);
//
// Every result is a plain JS object of copied Float32Arrays: there is nothing to .delete().
import createAttnlabModule from './attnlab.mjs';

// The wasm is fetched and compiled once per page; every instance (each embed on a page has its own
// memory, ImGui context and canvas) instantiates the same compiled module.
let compiled = null;
function compileOnce() {
  if (!compiled) {
    const url = new URL('attnlab.wasm', import.meta.url);
    compiled = WebAssembly.compileStreaming(fetch(url))
      .catch(() => fetch(url).then((r) => r.arrayBuffer()).then((bytes) => WebAssembly.compile(bytes)));
  }
  return compiled;
}

export async function loadAttnlab(moduleOptions = {}) {
  const wasm = await compileOnce();
  const m = await createAttnlabModule({
    instantiateWasm(imports, receive) {
      WebAssembly.instantiate(wasm, imports).then((instance) => receive(instance, wasm));
      return {};
    },
    ...moduleOptions,
  });
  return {
    // Engine
    selfAttention: (x, n, d, options = {}) => m.selfAttention(x, n, d, options),
    // forward({numHeads: 2, projectInputs: true, score: 'cosine', ...}, {query: {rows, cols, data}, key?, value?})
    forward: (config, inputs, params = null) => m.forward(config, inputs, params),
    // forwardOutput({kernel: 'wasm_simd128', numHeads: 4, ...}, inputs): {output, fused} only; the fused
    // kernel keeps memory O(n·d), for long sequences and timing.
    forwardOutput: (config, inputs, params = null) => m.forwardOutput(config, inputs, params),
    tokenize: (text) => m.tokenize(text),
    hashEmbeddings: (tokens, dim) => m.hashEmbeddings(tokens, dim),
    availableKernels: () => m.availableKernels(),
    // Page: start(fontBytes, '#canvas-id') draws on that canvas (web/public/mount.js does it all).
    start: (fontBytes, canvasSelector = '#canvas') => m.start(fontBytes, canvasSelector),
    // A link's state from the defaults ('v=masks&m.c=0'); returns '' or what was ignored or clamped.
    applyLink: (text) => m.applyLink(text),
    setEmbedded: (embedded) => m.setEmbedded(embedded),
    setLightTheme: (light) => m.setLightTheme(light),
    needsWordVectors: () => m.needsWordVectors(),
    needsPrices: () => m.needsPrices(),
    needsTrainedHeads: () => m.needsTrainedHeads(),
    // After each frame the app calls fn(state, contentHeight, scroll, summary): sizes in CSS px, the
    // summary one sentence on what the view shows, for screen readers.
    onAfterFrame: (fn) => { m.afterFrame = fn; },
    setRunning: (running) => m.setRunning(running),
    // Figures leaving the page: the ⋯ menus call fnText(fileName, csv) and fnImage(fileName, width,
    // height, rgba Uint8Array, rows top first); saveViewPng() renders the whole view for fnImage.
    onExport: (fnText, fnImage) => { m.exportText = fnText; m.exportImage = fnImage; },
    saveViewPng: () => m.saveViewPng(),
    memoryBytes: () => m.HEAPU8.buffer.byteLength,
    setReducedMotion: (reduced) => m.setReducedMotion(reduced),
    // An embed asks its page to show `height` px from `top` (CSS px in the canvas): fn(top, height).
    onScrollHost: (fn) => { m.scrollHostTo = fn; },
    stop: () => m.stop(),
    renderNow: () => m.renderNow(),
    idle: () => m.idle(),
    lastFrameMs: () => m.lastFrameMs(),
    state: () => m.pageState(),
    setState: (text) => m.setPageState(text),
    setSentence: (s) => m.setSentence(s),
    // The page's HTML sentence box (web/public/sentence_box.js): after each frame the app calls
    // fn(shown, x, y, width, height, sentence) with its place on the canvas in CSS pixels; the box
    // answers with the height its wrapped text needs.
    onSentenceBox: (fn) => { m.sentenceBox = fn; },
    setSentenceBoxHeight: (px) => m.setSentenceBoxHeight(px),
    scrollBy: (px) => m.scrollBy(px),
    view: () => m.pageView(),
    matrix: (name) => m.pageMatrix(name),
    matrixNames: () => m.pageMatrixNames(),
    layout: () => m.pageLayout(),
    scalars: () => m.pageScalars(),
    readPixel: (x, y) => m.readPixel(x, y),
    loadWordVectors: (bytes) => m.loadWordVectors(bytes),
    wordVectorsFailed: (why) => m.wordVectorsFailed(why),
    wordVectorsProgress: (fraction) => m.wordVectorsProgress(fraction),
    loadPrices: (text) => m.loadPrices(text),
    pricesFailed: (why) => m.pricesFailed(why),
    loadTrainedHeads: (bytes) => m.loadTrainedHeads(bytes),
    trainedHeadsFailed: (why) => m.trainedHeadsFailed(why),
  };
}
