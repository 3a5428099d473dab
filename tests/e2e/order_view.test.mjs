// View 2: shuffling permutes the outputs (difference 0) until positions are added.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, openPage, screenshot, settle } from './browser.mjs';
import { exact, product, softmaxRows } from './float_bounds.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

const data = (m) => Array.from(Object.values(m.data));

// Y = softmax(XXᵀ/√d) X in float64 with its float32 error bound: two float32 computations of the same
// row (the original and the shuffled one) may differ by twice the bound.
function referenceOutputs(x, n, d) {
  const X = exact({ rows: n, cols: d, data: x });
  return product(softmaxRows(product(X, X, { transposeB: true }), { scale: 1 / Math.sqrt(d) }), X);
}

async function viewOf(page) {
  return page.evaluate(() => ({
    y: window.attnlab.matrix('order.Y'), ys: window.attnlab.matrix('order.Yshuffled'),
    pe: window.attnlab.matrix('order.PE'), diff: window.attnlab.scalars()['order.difference'],
    view: window.attnlab.view(), layout: window.attnlab.layout(),
  }));
}

test('shuffling the words permutes the outputs exactly; positions break it', async () => {
  const { page, problems } = await openPage(session);
  await page.evaluate(() => window.attnlab.setState('v=order'));
  await settle(page);
  let v = await viewOf(page);
  assert.equal(v.view.view, 1);
  assert.equal(v.diff, 0, 'original order: nothing to compare but itself');

  // Click "Shuffle the words": the shuffled outputs are the original rows, moved.
  const before = v.view.engineRuns;
  const button = v.layout['order.shuffle'];
  await page.mouse.click(button.x + button.width / 2, button.y + button.height / 2);
  await settle(page);
  assert.equal(await page.evaluate(() => window.attnlab.state()), 'v=order&o.sh=1');
  await page.evaluate(() => window.attnlab.setState('v=order&o.sh=3'));
  await settle(page);
  v = await viewOf(page);
  assert.ok(v.view.engineRuns > before);
  // The same sums in another order: equal up to float32 rounding, twice the error bound at most.
  const n = v.y.rows, d = v.y.cols;
  const ref = referenceOutputs(data(v.view.embeddings), n, d);
  assert.ok(v.diff <= 2 * Math.max(...ref.bound), `difference ${v.diff}, bound ${2 * Math.max(...ref.bound)}`);
  const engine = await page.evaluate(({ x, n, d, kernel }) => {
    const r = window.attnlab.forward({ kernel }, { query: { rows: n, cols: d, data: new Float32Array(x) } });
    return Array.from(r.output.data);
  }, { x: data(v.view.embeddings), n, d, kernel: v.view.viewKernel });
  assert.deepEqual(data(v.y), engine, 'the original outputs are the engine\'s');
  const ys = data(v.ys), y = data(v.y);
  // Every shuffled row equals one original row, and together they are a permutation.
  const used = new Set();
  const close = (i, j) => ys.slice(i * d, i * d + d).every((a, c) => Math.abs(a - y[j * d + c]) <= 2 * ref.bound[j * d + c]);
  for (let i = 0; i < n; ++i) {
    const k = [...Array(n).keys()].find((j) => !used.has(j) && close(i, j));
    assert.notEqual(k, undefined, `shuffled row ${i} is one of the original rows`);
    used.add(k);
  }
  assert.equal(v.pe, null, 'no encoding drawn without positions');
  await screenshot(page, 'order-shuffled');

  // Sinusoidal positions: the outputs now depend on where the words stand.
  await page.evaluate(() => window.attnlab.setState('v=order&o.sh=3&o.pe=1'));
  await settle(page);
  v = await viewOf(page);
  assert.ok(v.diff > 1e-3, `with positions the difference is ${v.diff}`);
  assert.deepEqual([v.pe.rows, v.pe.cols], [n, d]);
  assert.equal(data(v.pe)[0], 0, 'sin(0) for position 0');
  assert.equal(data(v.pe)[1], 1, 'cos(0) for position 0');
  const withPe = await page.evaluate(({ x, n, d, kernel }) => Array.from(window.attnlab.forward({ position: 'sinusoidal', kernel },
    { query: { rows: n, cols: d, data: new Float32Array(x) } }).output.data), { x: data(v.view.embeddings), n, d, kernel: v.view.viewKernel });
  assert.deepEqual(data(v.y), withPe);
  await screenshot(page, 'order-sinusoidal');

  // A learned table, words in their order: the same input twice gives the same output.
  await page.evaluate(() => window.attnlab.setState('v=order&o.sh=0&o.pe=2'));
  await settle(page);
  v = await viewOf(page);
  assert.equal(v.diff, 0, 'unshuffled');
  assert.equal(v.pe.rows, n);
  assert.deepEqual(problems, []);
  await page.close();
});
