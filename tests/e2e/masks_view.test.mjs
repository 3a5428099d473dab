// View 6: masks and windows. The masked weights drawn are the engine's, blocked cells are exactly 0
// and drawn hatched, and a fully blocked row gives zeros, never NaN.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, openPage, screenshot, settle } from './browser.mjs';
import { assertWithin, exact, product, softmaxRows } from './float_bounds.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

const data = (m) => Array.from(Object.values(m.data));

export function cellCentre(rect, rows, cols, i, j) {
  return { x: rect.x + (j + 0.5) * (rect.width / cols), y: rect.y + (i + 0.5) * (rect.height / rows) };
}

// May query i look at key j? Written from the definitions, independently of the engine.
function allowed(i, j, { causal = false, left = -1, right = -1, padded = [] }) {
  if (causal && j > i) return false;
  if (left >= 0 && j < i - left) return false;
  if (right >= 0 && j > i + right) return false;
  return !padded.includes(j);
}

// softmax over the allowed keys of xᵢ·xⱼ/√d, in float64 with its float32 error bound; rows with no
// allowed key are 0.
function referenceWeights(x, n, d, mask) {
  const X = exact({ rows: n, cols: d, data: x });
  return softmaxRows(product(X, X, { transposeB: true }), { scale: 1 / Math.sqrt(d), allowed: (i, j) => allowed(i, j, mask) });
}

// The engine's weights for the same masks, through forward(); padding goes in as a −inf float mask.
async function engineWeights(page, { causal = false, left = -1, right = -1, padded = [] }) {
  return page.evaluate(({ causal, left, right, padded }) => {
    const x = window.attnlab.view().embeddings;
    const n = x.rows;
    const floatMask = padded.length ? { rows: n, cols: n, data: Array.from({ length: n * n }, (_, k) => (padded.includes(k % n) ? -Infinity : 0)) } : undefined;
    const r = window.attnlab.forward({ causal, windowLeft: left, windowRight: right, kernel: window.attnlab.view().viewKernel }, { query: x, floatMask });
    return r.ok ? Array.from(r.heads[0].weights.data) : r;
  }, { causal, left, right, padded });
}

async function check(page, mask, what) {
  const view = await page.evaluate(() => window.attnlab.view());
  const n = view.tokens.length, d = view.embeddings.cols;
  const w = data(await page.evaluate(() => window.attnlab.matrix('masks.W')));
  assert.deepEqual(w, await engineWeights(page, mask), `${what}: drawn = engine`);
  const ref = referenceWeights(data(view.embeddings), n, d, mask);
  w.forEach((v, k) => { if (!allowed(Math.floor(k / n), k % n, mask)) assert.equal(v, 0, `${what}: blocked cell ${k} is exactly 0`); });
  assertWithin(w, ref, what);
  const scores = data(await page.evaluate(() => window.attnlab.matrix('masks.scores')));
  scores.forEach((v, k) => assert.equal(v === -Infinity, !allowed(Math.floor(k / n), k % n, mask), `${what}: score ${k} is −inf iff blocked`));
  return { n, w };
}

test('causal, window and padding: the weights drawn are the engine\'s and right; blocked cells are hatched', async () => {
  const { page, problems } = await openPage(session);
  await page.evaluate(() => window.attnlab.setState('v=masks'));
  await settle(page);
  const { n } = await check(page, { causal: true }, 'causal (the default)');

  // A blocked cell is drawn as a neutral grey hatch, an allowed one in viridis.
  const layout = await page.evaluate(() => window.attnlab.layout());
  await page.mouse.move(1, 1);
  const blocked = cellCentre(layout['masks.W'], n, n, 1, 6), open = cellCentre(layout['masks.W'], n, n, 6, 1);
  const [cb, co] = await page.evaluate(([a, b]) => [window.attnlab.readPixel(a.x, a.y), window.attnlab.readPixel(b.x, b.y)], [blocked, open]);
  assert.ok(Math.abs(cb[0] - cb[1]) < 8 && Math.abs(cb[1] - cb[2]) < 8 && cb[0] > 120, `blocked cell should be grey hatch, got rgb ${cb}`);
  assert.ok(Math.abs(co[0] - co[1]) > 20 || Math.abs(co[1] - co[2]) > 20, `allowed cell should be coloured, got rgb ${co}`);
  const sb = cellCentre(layout['masks.scores'], n, n, 2, 9);
  const cs = await page.evaluate((a) => window.attnlab.readPixel(a.x, a.y), sb);
  assert.ok(Math.abs(cs[0] - cs[1]) < 8 && Math.abs(cs[1] - cs[2]) < 8 && cs[0] > 120, `−inf score should be grey hatch, got rgb ${cs}`);
  // The tooltip's value of a blocked weight is exactly 0.
  await page.mouse.move(blocked.x, blocked.y);
  await settle(page);
  assert.deepEqual(await page.evaluate(() => window.attnlab.view().hovered), { map: 'masks.W', row: 1, col: 6, value: 0 });
  await screenshot(page, 'masks-causal');

  // A window of one word on each side, no causal mask: a band.
  await page.evaluate(() => window.attnlab.setState('m.c=0&m.wl=1&m.wr=1'));
  await settle(page);
  await check(page, { left: 1, right: 1 }, 'window ±1');

  // Clicking a word pads it: its column is blocked for every query.
  const pad = (await page.evaluate(() => window.attnlab.layout()))['masks.pad2'];
  assert.ok(pad, 'padding toggle for word 2 drawn');
  await page.mouse.click(pad.x + pad.width / 2, pad.y + pad.height / 2);
  await settle(page);
  assert.match(await page.evaluate(() => window.attnlab.state()), /m.p=001(&|$)/);
  await check(page, { left: 1, right: 1, padded: [2] }, 'window ±1 + padding');
  await screenshot(page, 'masks-window-padding');
  assert.deepEqual(problems, []);
  await page.close();
});

test('a query that may see no key gets zero weights and a zero output, never NaN; idle frames do not re-run', async () => {
  const { page, problems } = await openPage(session);
  // Causal + the first word padded: word 0 may look only at itself, which is padding.
  await page.evaluate(() => window.attnlab.setState('v=masks&m.c=1&m.p=1'));
  await settle(page);
  const { n, w } = await check(page, { causal: true, padded: [0] }, 'causal + padding 0');
  assert.equal((await page.evaluate(() => window.attnlab.scalars()))['masks.blind_rows'], 1);
  assert.deepEqual(w.slice(0, n), new Array(n).fill(0));
  const y = await page.evaluate(() => window.attnlab.matrix('masks.Y'));
  assert.ok(data(y).every(Number.isFinite));
  assert.ok(data(y).slice(0, y.cols).every((v) => v === 0), 'row 0 of Y is 0');
  const runs = await page.evaluate(() => window.attnlab.view().engineRuns);
  for (let k = 0; k < 5; ++k) await page.mouse.move(40 + 50 * k, 40);
  await settle(page);
  assert.equal(await page.evaluate(() => window.attnlab.view().engineRuns), runs);
  await screenshot(page, 'masks-blind-row');
  assert.deepEqual(problems, []);
  await page.close();
});

test('on a phone (380 px, dpr 2): the maps fit and a tap pads a word', async () => {
  const { page, problems } = await openPage(session, { width: 380, height: 800, dpr: 2, touch: true });
  await page.evaluate(() => window.attnlab.setState('v=masks&s=The+cat+sat+on+the+mat'));
  await settle(page);
  const layout = await page.evaluate(() => window.attnlab.layout());
  for (const name of ['masks.W', 'masks.scores'])
    assert.ok(layout[name].x >= 0 && layout[name].x + layout[name].width <= 380, `${name} fits: ${JSON.stringify(layout[name])}`);
  const pad = layout['masks.pad5'];
  assert.ok(pad.x + pad.width <= 380 && pad.y + pad.height < 800, `toggle on screen: ${JSON.stringify(pad)}`);
  await page.touchscreen.tap(pad.x + pad.width / 2, pad.y + pad.height / 2);
  await settle(page);
  assert.match(await page.evaluate(() => window.attnlab.state()), /m.p=000001/);
  await check(page, { causal: true, padded: [5] }, 'phone: causal + padding 5');
  await screenshot(page, 'masks-phone');
  assert.deepEqual(problems, []);
  await page.close();
});
