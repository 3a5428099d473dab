// View 3: query, key, value. Everything drawn is the engine's, and it is right.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, openPage, screenshot, settle } from './browser.mjs';
import { cellCentre, dragUntilVisible } from './cells.mjs';
import { U, assertWithin, exact, gamma, product, softmaxRows } from './float_bounds.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

const data = (m) => Array.from(Object.values(m.data));

// What the page drew, and the engine's own result for the same sentence and settings, computed
// independently through forward(): seeded weights times the scale, then the layer.
async function drawnAndEngine(page, { dk, dv, seed, scale }) {
  return page.evaluate(({ dk, dv, seed, scale }) => {
    const a = window.attnlab;
    const arr = (m) => Array.from(m.data);
    const x = a.view().embeddings;
    const config = { projectInputs: true, headDim: dk, valueHeadDim: dv, seed, kernel: a.view().viewKernel };
    const seeded = a.forward(config, { query: x }).parameters;
    const times = (m) => ({ rows: m.rows, cols: m.cols, data: new Float32Array(Array.from(m.data, (v) => Math.fround(v * scale))) });
    const params = { wq: times(seeded.wq), wk: times(seeded.wk), wv: times(seeded.wv) };
    const r = a.forward(config, { query: x }, params);
    const drawn = {};
    for (const name of ['qkv.Wq', 'qkv.Wk', 'qkv.Wv', 'qkv.Q', 'qkv.K', 'qkv.V', 'qkv.scores', 'qkv.W', 'qkv.Y']) {
      const m = a.matrix(name);
      drawn[name] = m && { rows: m.rows, cols: m.cols, data: arr(m) };
    }
    return {
      drawn, x: { rows: x.rows, cols: x.cols, data: arr(x) },
      engine: {
        'qkv.Wq': arr(params.wq), 'qkv.Wk': arr(params.wk), 'qkv.Wv': arr(params.wv),
        'qkv.Q': arr(r.heads[0].q), 'qkv.K': arr(r.heads[0].k), 'qkv.V': arr(r.heads[0].v),
        'qkv.scores': arr(r.heads[0].scaledScores), 'qkv.W': arr(r.heads[0].weights), 'qkv.Y': arr(r.output),
      },
    };
  }, { dk, dv, seed, scale });
}

// softmax((XWq)(XWk)ᵀ/√d_k) in float64, written independently of the engine, with its float32 error bound.
function referenceWeights(x, wq, wk, dk) {
  const X = exact(x);
  return softmaxRows(product(product(X, exact(wq)), product(X, exact(wk)), { transposeB: true }), { scale: 1 / Math.sqrt(dk) });
}

function assertDrawnIsEngine(r, shapes) {
  for (const [name, values] of Object.entries(r.engine)) {
    assert.ok(r.drawn[name], `${name} is drawn`);
    assert.deepEqual(r.drawn[name].data, values, `${name} is exactly the engine's`);
  }
  for (const [name, [rows, cols]] of Object.entries(shapes))
    assert.deepEqual([r.drawn[name].rows, r.drawn[name].cols], [rows, cols], `${name} shape`);
  const w = r.drawn['qkv.W'];
  const dk = r.drawn['qkv.Q'].cols;
  const ref = referenceWeights(r.x, r.drawn['qkv.Wq'], r.drawn['qkv.Wk'], dk);
  assertWithin(w, ref, 'weights');
}

test('Wq, Wk, Wv, Q, K, V, scores, weights and outputs are the engine\'s; sliders recompute', async () => {
  const { page, problems } = await openPage(session, { width: 1200, height: 1800 });
  assert.equal(await page.evaluate(() => window.attnlab.setState('v=qkv&q.tr=0')), '');
  await settle(page);
  assert.equal((await page.evaluate(() => window.attnlab.view())).view, 2);
  let r = await drawnAndEngine(page, { dk: 8, dv: 8, seed: 1, scale: 3 });
  assertDrawnIsEngine(r, { 'qkv.Wq': [100, 8], 'qkv.Wv': [100, 8], 'qkv.Q': [12, 8], 'qkv.W': [12, 12], 'qkv.Y': [12, 8] });
  // Scores are not symmetric once Wq and Wk differ: "it" → "animal" is not "animal" → "it".
  const s = r.drawn['qkv.scores'].data;
  assert.notEqual(s[8 * 12 + 1], s[1 * 12 + 8]);
  await screenshot(page, 'qkv-desktop');

  // Sliders (through the state string): d_k = 4, d_v = 6, another seed, another scale.
  await page.evaluate(() => window.attnlab.setState('v=qkv&q.tr=0&q.dk=4&q.dv=6&q.s=7&q.sc=0.5'));
  await settle(page);
  r = await drawnAndEngine(page, { dk: 4, dv: 6, seed: 7, scale: 0.5 });
  assertDrawnIsEngine(r, { 'qkv.Wq': [100, 4], 'qkv.Wv': [100, 6], 'qkv.Q': [12, 4], 'qkv.V': [12, 6], 'qkv.Y': [12, 6] });

  // Moving the mouse redraws but computes nothing.
  const runs = await page.evaluate(() => window.attnlab.view().engineRuns);
  for (let k = 0; k < 5; ++k) await page.mouse.move(30 + k * 40, 30);
  await settle(page);
  assert.equal(await page.evaluate(() => window.attnlab.view().engineRuns), runs);
  assert.deepEqual(problems, []);
  await page.close();
});

test('clicking a weight follows that pair: qᵢ, kⱼ, qᵢ∘kⱼ, the dot product, the weight, the output', async () => {
  const { page, problems } = await openPage(session, { width: 1200, height: 2400 });
  await page.evaluate(() => window.attnlab.setState('v=qkv&q.tr=0'));
  await settle(page);
  const layout = await page.evaluate(() => window.attnlab.layout());
  const c = cellCentre(layout['qkv.W'], 12, 12, 3, 5);
  await page.mouse.click(c.x, c.y);
  await settle(page);
  assert.match(await page.evaluate(() => window.attnlab.state()), /q\.i=3&q\.j=5/);
  const p = await page.evaluate(() => {
    const a = window.attnlab;
    const arr = (m) => Array.from(a.matrix(m).data);
    return {
      q: arr('qkv.pair.q'), k: arr('qkv.pair.k'), qk: arr('qkv.pair.qk'), terms: a.matrix('qkv.pair.terms'),
      y: arr('qkv.pair.y'), bars: arr('qkv.pair.weights'), scalars: a.scalars(),
      Q: arr('qkv.Q'), K: arr('qkv.K'), W: arr('qkv.W'), Y: arr('qkv.Y'), scores: arr('qkv.scores'),
    };
  });
  const dk = p.q.length, n = 12;
  assert.deepEqual(p.q, p.Q.slice(3 * dk, 4 * dk), 'qᵢ is row 3 of Q');
  assert.deepEqual(p.k, p.K.slice(5 * dk, 6 * dk), 'kⱼ is row 5 of K');
  p.qk.forEach((v, c2) => assert.equal(v, Math.fround(p.q[c2] * p.k[c2]), `q∘k ${c2}`));
  // The dot product is the sum of the products shown: each product rounded to float32 (u) and the
  // page's sum within γ_dk, both of Σ|qₖ kₖ|.
  const dot = p.qk.reduce((a, b) => a + b, 0), magnitude = p.qk.reduce((a, b) => a + Math.abs(b), 0) * (1 + U);
  assert.ok(Math.abs(dot - p.scalars['qkv.pair.dot']) <= (gamma(dk) + gamma(1)) * magnitude, `sum of q∘k ${dot} vs ${p.scalars['qkv.pair.dot']}`);
  // Scaled by 1/√d_k: two more roundings (the scale's own and the product).
  assert.ok(Math.abs(p.scalars['qkv.pair.scaled'] - dot / Math.sqrt(dk)) <= (gamma(dk + 3) + gamma(1)) * magnitude / Math.sqrt(dk));
  assert.equal(p.scalars['qkv.pair.scaled'], p.scores[3 * n + 5]);
  assert.equal(p.scalars['qkv.pair.weight'], p.W[3 * n + 5]);
  assert.deepEqual(p.bars, p.W, 'the bars are drawn from the weights');
  assert.equal(p.scalars['qkv.pair.weights.row'], 3);
  // The weighted values add up to the output row of "cross".
  const dv = p.terms.cols, terms = Array.from(Object.values(p.terms.data));
  for (let c2 = 0; c2 < dv; ++c2) {
    let sum = 0;
    for (let j = 0; j < n; ++j) sum += terms[j * dv + c2];
    // Each term rounded to float32 (u), the page's weighted sum within γ_n, of Σ|terms|.
    let magnitude = 0;
    for (let j = 0; j < n; ++j) magnitude += Math.abs(terms[j * dv + c2]) * (1 + U);
    assert.ok(Math.abs(sum - p.y[c2]) <= (gamma(n) + gamma(1)) * magnitude, `column ${c2}: ${sum} vs ${p.y[c2]}`);
    assert.equal(p.y[c2], p.Y[3 * dv + c2]);
  }
  await screenshot(page, 'qkv-pair');
  assert.deepEqual(problems, []);
  await page.close();
});

test('identity projections give back view 1; a value out of range is clamped and reported', async () => {
  const { page, problems } = await openPage(session);
  await page.evaluate(() => window.attnlab.setState('v=qkv&q.tr=0&q.id=1'));
  await settle(page);
  const r = await page.evaluate(() => {
    const a = window.attnlab;
    const x = a.view().embeddings;
    const kernel = a.view().viewKernel;
    return { w: Array.from(a.matrix('qkv.W').data), view1: Array.from(a.selfAttention(x.data, x.rows, x.cols, { kernel }).heads[0].weights.data), wq: a.matrix('qkv.Wq') };
  });
  assert.deepEqual([r.wq.rows, r.wq.cols], [100, 100]);
  // X·I is X exactly (each sum has one non-zero term), so the same kernel gives view 1's weights to the bit.
  assert.deepEqual(r.w, r.view1, 'identity projections give view 1\'s weights');
  assert.match(await page.evaluate(() => window.attnlab.setState('q.dk=99')), /out_of_range: state 'q.dk'/);
  await settle(page);
  assert.match(await page.evaluate(() => window.attnlab.state()), /q\.dk=64/, 'clamped to the largest d_k');
  assert.ok((await page.evaluate(() => Array.from(window.attnlab.matrix('qkv.W').data))).every(Number.isFinite));
  assert.deepEqual(problems, []);
  await page.close();
});

test('on a phone (380 px, devicePixelRatio 2): it fits and a tap shows a cell', async () => {
  const { page, problems } = await openPage(session, { width: 380, height: 800, dpr: 2, touch: true });
  await page.evaluate(() => window.attnlab.setState('v=qkv'));
  await settle(page);
  let layout = await page.evaluate(() => window.attnlab.layout());
  for (const name of ['qkv.Wq', 'qkv.Q', 'qkv.W', 'qkv.scores', 'qkv.Y', 'qkv.pair.terms'])
    assert.ok(layout[name].x >= 0 && layout[name].x + layout[name].width <= 380, `${name} fits: ${JSON.stringify(layout[name])}`);
  layout = await dragUntilVisible(page, 'qkv.Q');
  assert.equal(await page.evaluate(() => window.attnlab.state()), 'v=qkv', 'scrolling moved no slider');
  const q = await page.evaluate(() => window.attnlab.matrix('qkv.Q'));
  const p = cellCentre(layout['qkv.Q'], q.rows, q.cols, 2, 1);
  assert.ok(p.y > 0 && p.y < 800, `cell on screen at ${p.y}`);
  await page.touchscreen.tap(p.x, p.y);
  await settle(page);
  const hovered = (await page.evaluate(() => window.attnlab.view())).hovered;
  assert.deepEqual(hovered, { map: 'qkv.Q', row: 2, col: 1, value: Object.values(q.data)[2 * q.cols + 1] });
  await screenshot(page, 'qkv-phone');
  // A tap on a weight follows that pair, as a click does; a drag over it scrolls instead.
  layout = await dragUntilVisible(page, 'qkv.W', { top: 300 });
  const w = cellCentre(layout['qkv.W'], 12, 12, 6, 4);
  await page.touchscreen.tap(w.x, w.y);
  await settle(page);
  assert.equal(await page.evaluate(() => window.attnlab.state()), 'v=qkv&q.i=6&q.j=4');
  assert.equal((await page.evaluate(() => window.attnlab.scalars()))['qkv.pair.weight'],
    (await page.evaluate(() => Array.from(window.attnlab.matrix('qkv.W').data)))[6 * 12 + 4]);
  assert.deepEqual(problems, []);
  await page.close();
});
