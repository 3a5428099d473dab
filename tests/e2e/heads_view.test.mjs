// View 5: heads. Every head's map, the concatenation, Wᵒ and the output are the engine's, and right.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { dragUntilVisible } from './cells.mjs';
import { openBrowser, openPage, screenshot, settle } from './browser.mjs';
import { assertWithin, columns, exact, outside, product, softmaxRows } from './float_bounds.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

const data = (m) => Array.from(Object.values(m.data));

// The engine's forward() for the view's settings, called through embind beside the page.
async function engineHeads(page, heads, kvHeads, seed, temperature = 1) {
  return page.evaluate(({ heads, kvHeads, seed, temperature }) => {
    const x = window.attnlab.view().embeddings;
    const d = x.cols;
    const r = window.attnlab.forward({ numHeads: heads, numKvHeads: kvHeads, headDim: Math.floor(d / heads), valueHeadDim: Math.floor(d / heads),
      projectInputs: true, projectOutput: true, seed, temperature, kernel: window.attnlab.view().viewKernel }, { query: x });
    const plain = (m) => ({ rows: m.rows, cols: m.cols, data: Array.from(m.data) });
    return { ok: r.ok, x: plain(x), weights: r.heads.map((h) => plain(h.weights)), k: r.heads.map((h) => plain(h.k)), concat: plain(r.concat),
      output: plain(r.output), wq: plain(r.parameters.wq), wk: plain(r.parameters.wk), wo: plain(r.parameters.wo) };
  }, { heads, kvHeads, seed, temperature });
}

async function drawn(page, names) {
  return page.evaluate((names) => Object.fromEntries(names.map((n) => {
    const m = window.attnlab.matrix(n);
    return [n, m && { rows: m.rows, cols: m.cols, data: Array.from(m.data) }];
  })), names);
}

test('every head, the concatenation, Wᵒ and the output are the engine\'s, and right', async () => {
  const { page, problems } = await openPage(session);
  await page.evaluate(() => window.attnlab.setState('v=heads&h.tr=0&h.n=4&h.seed=7&h.t=0.04'));
  await settle(page);
  const e = await engineHeads(page, 4, 0, 7, 0.04);
  assert.equal(e.ok, true);
  const names = ['heads.W0', 'heads.W1', 'heads.W2', 'heads.W3', 'heads.concat', 'heads.Wo', 'heads.Y', 'heads.big'];
  const d = await drawn(page, names);
  for (let h = 0; h < 4; ++h) assert.deepEqual(d[`heads.W${h}`], e.weights[h], `head ${h} drawn = engine`);
  assert.equal(await page.evaluate(() => window.attnlab.matrix('heads.W4')), null, 'only 4 heads drawn');
  assert.deepEqual(d['heads.concat'], e.concat);
  assert.deepEqual(d['heads.Wo'], e.wo);
  assert.deepEqual(d['heads.Y'], e.output);
  assert.deepEqual(d['heads.big'], e.weights[0], 'head 0 enlarged by default');
  // Independently, in float64: head h's weights are softmax(X Wq_h (X Wk_h)ᵀ / (√25 τ)), and Y = concat · Wᵒ,
  // within float32's error bound (tests/e2e/float_bounds.mjs).
  const dk = 25, X = exact(e.x), Q = product(X, exact(e.wq)), K = product(X, exact(e.wk));
  const weightsOf = (Qh, Kh) => softmaxRows(product(Qh, Kh, { transposeB: true }), { scale: 1 / Math.sqrt(dk), temperature: 0.04 });
  for (let h = 0; h < 4; ++h) assertWithin(d[`heads.W${h}`], weightsOf(columns(Q, h * dk, dk), columns(K, h * dk, dk)), `head ${h}`);
  assertWithin(d['heads.Y'], product(exact(e.concat), exact(e.wo)), 'Y');
  // Not a vacuous bound: the keys one column short (a GEMM that drops its tail) fail it.
  const short = softmaxRows(product(columns(Q, 0, dk - 1), columns(K, 0, dk - 1), { transposeB: true }), { scale: 1 / Math.sqrt(dk), temperature: 0.04 });
  assert.ok(outside(d['heads.W0'], short).length > 0, 'a dot product one term short would fail the bound');
  assert.deepEqual(problems, []);
  await screenshot(page, 'heads-desktop');
  await page.close();
});

test('clicking a head enlarges it; idle frames do not re-run the engine', async () => {
  const { page, problems } = await openPage(session);
  await page.evaluate(() => window.attnlab.setState('v=heads&h.tr=0&h.n=6'));
  await settle(page);
  const layout = await page.evaluate(() => window.attnlab.layout());
  const r = layout['heads.W4'];
  assert.ok(r && r.width > 40, 'head 4 tile drawn');
  const beforeClick = await page.evaluate(() => window.attnlab.view().engineRuns);
  await page.mouse.click(r.x + r.width / 2, r.y + r.height / 2);
  await settle(page);
  assert.match(await page.evaluate(() => window.attnlab.state()), /h.sel=4/);
  // Enlarging a head redraws what was computed: the engine does not run again.
  assert.equal(await page.evaluate(() => window.attnlab.view().engineRuns), beforeClick, 'a click on a head re-ran the engine');
  const e = await engineHeads(page, 6, 0, 1);
  assert.deepEqual((await drawn(page, ['heads.big']))['heads.big'], e.weights[4]);
  assert.equal((await page.evaluate(() => window.attnlab.scalars()))['heads.selected'], 4);
  const runs = await page.evaluate(() => window.attnlab.view().engineRuns);
  for (let k = 0; k < 5; ++k) await page.mouse.move(30 + 40 * k, 30);
  await settle(page);
  assert.equal(await page.evaluate(() => window.attnlab.view().engineRuns), runs, 'no engine run without a change');
  assert.deepEqual(problems, []);
  await screenshot(page, 'heads-enlarged');
  await page.close();
});

test('grouped-query: heads of a group share keys; a bad group count is reported, the picture stays', async () => {
  const { page, problems } = await openPage(session);
  await page.evaluate(() => window.attnlab.setState('v=heads&h.tr=0&h.n=8&h.kv=2&h.l=1'));
  await settle(page);
  const e = await engineHeads(page, 8, 2, 1);
  assert.equal(e.ok, true);
  assert.deepEqual(e.k[0], e.k[3], 'query heads 0..3 read key/value head 0');
  assert.notDeepEqual(e.k[3], e.k[4], 'head 4 reads key/value head 1');
  const d = await drawn(page, ['heads.W0', 'heads.W5', 'heads.W7', 'heads.Wo']);
  assert.deepEqual(d['heads.W5'], e.weights[5]);
  assert.deepEqual(d['heads.W7'], e.weights[7]);
  assert.deepEqual(d['heads.Wo'], e.wo);
  // Without grouping the same seed gives other keys, hence other maps.
  const full = await engineHeads(page, 8, 0, 1);
  assert.notDeepEqual(full.weights[5], e.weights[5]);
  // Lines view: one colour per head; hovering a word keeps only its lines.
  const lines = (await page.evaluate(() => window.attnlab.layout()))['heads.lines'];
  assert.ok(lines && lines.height > 0);
  await page.mouse.move(lines.x + 10, lines.y + lines.height * (1.5 / 12));
  await settle(page);
  assert.equal((await page.evaluate(() => window.attnlab.scalars()))['heads.lines.focus'], 1);
  await screenshot(page, 'heads-grouped');
  // 3 key/value heads do not divide 8 query heads: the engine refuses, the last picture stays.
  await page.evaluate(() => window.attnlab.setState('h.kv=3'));
  await settle(page);
  assert.equal((await page.evaluate(() => window.attnlab.scalars()))['heads.error'], 1);
  const kept = await drawn(page, ['heads.W5']);
  assert.deepEqual(kept['heads.W5'], e.weights[5]);
  assert.ok(kept['heads.W5'].data.every(Number.isFinite));
  assert.deepEqual(problems, []);
  await page.close();
});

test('on a phone (380 px, dpr 2): the grid fits and a tap enlarges a head', async () => {
  const { page, problems } = await openPage(session, { width: 380, height: 800, dpr: 2, touch: true });
  await page.evaluate(() => window.attnlab.setState('v=heads&h.tr=0&h.n=4&h.l=0'));
  await settle(page);
  const layout = await page.evaluate(() => window.attnlab.layout());
  for (const name of ['heads.W0', 'heads.W3', 'heads.concat', 'heads.Wo'])
    assert.ok(layout[name].x >= 0 && layout[name].x + layout[name].width <= 380, `${name} fits: ${JSON.stringify(layout[name])}`);
  const r = (await dragUntilVisible(page, 'heads.W1', { top: 500 }))['heads.W1'];
  assert.ok(r.y + r.height < 800, `head 1 on screen at ${r.y}`);
  await page.touchscreen.tap(r.x + r.width / 2, r.y + r.height / 2);
  await settle(page);
  assert.match(await page.evaluate(() => window.attnlab.state()), /h.sel=1/);
  await screenshot(page, 'heads-phone');
  assert.deepEqual(problems, []);
  await page.close();
});
