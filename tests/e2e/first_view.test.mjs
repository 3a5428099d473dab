// The first view: a sentence, its word vectors and the attention heatmap, all from the engine.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, openPage, screenshot, settle } from './browser.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

// softmax(XXᵀ/√d/τ) in float64, written independently of the engine.
function referenceWeights(x, n, d, temperature) {
  const w = new Float64Array(n * n);
  for (let i = 0; i < n; ++i) {
    const s = [];
    for (let j = 0; j < n; ++j) {
      let dot = 0;
      for (let c = 0; c < d; ++c) dot += x[i * d + c] * x[j * d + c];
      s.push(dot / Math.sqrt(d) / temperature);
    }
    const max = Math.max(...s);
    const e = s.map((v) => Math.exp(v - max));
    const sum = e.reduce((a, b) => a + b, 0);
    for (let j = 0; j < n; ++j) w[i * n + j] = e[j] / sum;
  }
  return w;
}

function cellCentre(layout, n, i, j) {
  const r = layout.weights;
  return { x: r.x + (j + 0.5) * (r.width / n), y: r.y + (i + 0.5) * (r.height / n) };
}

test('the heatmap shows the engine\'s weights, and they are right', async () => {
  const { page, problems } = await openPage(session);
  const { state, view, layout } = await page.evaluate(() => ({
    state: window.attnlab.state(), view: window.attnlab.view(), layout: window.attnlab.layout(),
  }));
  const n = view.tokens.length;
  assert.deepEqual(view.tokens, ['The', 'animal', 'did', "n't", 'cross', 'the', 'street', 'because', 'it', 'was', 'too', 'tired']);
  assert.equal(state.vectors, 'glove');
  assert.equal(view.embeddings.cols, 100, 'GloVe vectors are 100-d');
  assert.ok(view.known.every(Boolean), 'every word of the preset is in the vocabulary');
  const w = view.result.heads[0].weights;
  assert.equal(w.rows, n);
  // Hovering a cell shows that cell's exact weight.
  const c = cellCentre(layout, n, 3, 5);
  await page.mouse.move(c.x, c.y);
  await settle(page);
  const hovered = await page.evaluate(() => window.attnlab.view().hovered);
  assert.deepEqual(hovered, { map: 'W', row: 3, col: 5, value: w.data[3 * n + 5] });
  assert.equal(w.cols, n);
  // The page's numbers are exactly what the engine returns for the same input...
  const engine = await page.evaluate(({ x, n, d, t }) => {
    const r = window.attnlab.selfAttention(new Float32Array(x), n, d, { temperature: t });
    return Array.from(r.heads[0].weights.data);
  }, { x: Object.values(view.embeddings.data), n, d: view.embeddings.cols, t: state.temperature });
  assert.deepEqual(Object.values(w.data), engine);
  // ...and the engine agrees with an independent float64 softmax(XXᵀ/√d/τ).
  const ref = referenceWeights(Object.values(view.embeddings.data), n, view.embeddings.cols, state.temperature);
  const data = Object.values(w.data);
  for (let k = 0; k < n * n; ++k) assert.ok(Math.abs(data[k] - ref[k]) <= 1e-6 + 1e-5 * ref[k], `weight ${k}: ${data[k]} vs ${ref[k]}`);

  // The shader coloured the largest weight brighter than the smallest (viridis: purple -> yellow).
  let hi = 0, lo = 0;
  data.forEach((v, k) => { if (v > data[hi]) hi = k; if (v < data[lo]) lo = k; });
  const pHi = cellCentre(layout, n, Math.floor(hi / n), hi % n);
  const pLo = cellCentre(layout, n, Math.floor(lo / n), lo % n);
  const [cHi, cLo] = await page.evaluate(([a, b]) => [window.attnlab.readPixel(a.x, a.y), window.attnlab.readPixel(b.x, b.y)], [pHi, pLo]);
  assert.ok(cHi[0] + cHi[1] > 300, `largest weight should be drawn yellow, got rgb ${cHi}`);
  assert.ok(cLo[0] + cLo[1] < 150 && cLo[2] > 60, `smallest weight should be drawn dark purple, got rgb ${cLo}`);

  await screenshot(page, 'first-view-desktop');
  assert.deepEqual(problems, []);
  await page.close();
});

test('typing a new sentence recomputes the heatmap; idle frames do not', async () => {
  const { page, problems } = await openPage(session);
  const before = await page.evaluate(() => ({ layout: window.attnlab.layout(), runs: window.attnlab.view().engineRuns }));
  const box = before.layout.sentence;
  const probe = cellCentre(before.layout, 12, 1, 1);  // "animal" on the diagonal
  const pixelBefore = await page.evaluate((p) => window.attnlab.readPixel(p.x, p.y), probe);

  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Backspace');
  await page.keyboard.type('Sky is clear today zxqvw');
  await settle(page);

  const after = await page.evaluate(() => ({ view: window.attnlab.view(), state: window.attnlab.state(), layout: window.attnlab.layout() }));
  assert.equal(after.state.sentence, 'Sky is clear today zxqvw');
  assert.deepEqual(after.view.tokens, ['Sky', 'is', 'clear', 'today', 'zxqvw']);
  assert.deepEqual(after.view.known, [true, true, true, true, false], 'the made-up word is marked unknown');
  assert.equal(after.view.result.heads[0].weights.rows, 5);
  assert.ok(after.view.engineRuns > before.runs, 'the engine ran for the new sentence');
  const pixelAfter = await page.evaluate((p) => window.attnlab.readPixel(p.x, p.y), probe);
  assert.notDeepEqual(pixelAfter, pixelBefore, 'the heatmap changed under the probe');

  // Moving the mouse redraws frames but changes nothing: the engine must not run again.
  const runs = after.view.engineRuns;
  for (let k = 0; k < 5; ++k) await page.mouse.move(20 + k * 30, 20);
  await settle(page);
  assert.equal(await page.evaluate(() => window.attnlab.view().engineRuns), runs);

  await screenshot(page, 'first-view-typed');
  assert.deepEqual(problems, []);
  await page.close();
});

test('an empty sentence shows a message and keeps the last picture, never NaN', async () => {
  const { page, problems } = await openPage(session);
  await page.evaluate(() => window.attnlab.setSentence('   '));
  await settle(page);
  const view = await page.evaluate(() => window.attnlab.view());
  assert.match(view.error, /Type a sentence/);
  assert.equal(view.tokens.length, 12, 'the previous sentence stays drawn');
  assert.ok(Object.values(view.result.heads[0].weights.data).every(Number.isFinite));
  // The engine itself refuses bad input with a status, not a crash.
  const bad = await page.evaluate(() => window.attnlab.selfAttention(new Float32Array([1, NaN]), 1, 2));
  assert.equal(bad.ok, false);
  assert.equal(bad.code, 'non_finite');
  const mismatch = await page.evaluate(() => window.attnlab.selfAttention(new Float32Array(5), 2, 2));
  assert.equal(mismatch.code, 'shape_mismatch');
  assert.deepEqual(problems, []);
  await page.close();
});

test('on a phone (380 px, devicePixelRatio 2) the heatmap fits and a tap shows a cell', async () => {
  const { page, problems } = await openPage(session, { width: 380, height: 800, dpr: 2, touch: true });
  const layout = await page.evaluate(() => window.attnlab.layout());
  assert.ok(layout.weights.x + layout.weights.width <= 380, `heatmap ends at ${layout.weights.x + layout.weights.width}`);
  assert.ok(layout.weights.width >= 200, `heatmap is ${layout.weights.width} px wide`);
  const canvas = await page.evaluate(() => {
    const c = document.getElementById('canvas');
    return { w: c.width, h: c.height };
  });
  assert.deepEqual(canvas, { w: 760, h: 1600 }, 'backing store at device pixels');
  // Tap the visible diagonal cell of "The" (row 0): the tooltip's value is the engine's weight.
  const p = cellCentre(layout, 12, 0, 2);
  assert.ok(p.y < 800, 'cell on screen');
  await page.touchscreen.tap(p.x, p.y);
  await settle(page);
  const view = await page.evaluate(() => window.attnlab.view());
  assert.deepEqual({ map: view.hovered?.map, row: view.hovered?.row, col: view.hovered?.col }, { map: 'W', row: 0, col: 2 });
  assert.equal(view.hovered.value, view.result.heads[0].weights.data[2]);
  // Tapping the sentence raises the phone keyboard (the hidden #ime input takes focus) and
  // text from it (IME-style 'input' events, no key presses) reaches the sentence.
  const box = layout.sentence;
  await page.touchscreen.tap(box.x + box.width - 10, box.y + box.height / 2);
  await settle(page);
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'ime');
  await page.keyboard.press('End');
  await page.keyboard.insertText(' again');
  await settle(page);
  const state = await page.evaluate(() => window.attnlab.state());
  assert.match(state.sentence, / again$/);
  await screenshot(page, 'first-view-phone');
  assert.deepEqual(problems, []);
  await page.close();
});
