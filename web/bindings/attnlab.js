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

export async function loadAttnlab(moduleOptions = {}) {
  const m = await createAttnlabModule(moduleOptions);
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
    // Page (only meaningful where a #canvas exists)
    start: (fontBytes) => m.start(fontBytes),
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
  };
}
