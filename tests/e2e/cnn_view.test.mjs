// View 7: a CNN's receptive field vs self-attention, and K heads rebuilding a convolution.
// Everything drawn is the engine's, and an independent computation agrees with it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, openPage, screenshot, settle } from './browser.mjs';
import { U, gamma } from './float_bounds.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

const data = (m) => Array.from(Object.values(m.data));
const at = (m, i, j) => data(m)[i * m.cols + j];
const get = (page, names) => page.evaluate((ns) => Object.fromEntries(ns.map((n) => [n, window.attnlab.matrix(n)])), names);

// y_i = b + Σ_t x_{i+t-left} W_t with zero padding, in float64 (the engine's Conv1d contract).
function referenceConv(x, n, cin, taps, bias, K) {
  const cout = bias.length, left = Math.floor((K - 1) / 2);
  const y = [];
  for (let i = 0; i < n; ++i) {
    const row = bias.slice();
    for (let t = 0; t < K; ++t) {
      const p = i + t - left;
      if (p < 0 || p >= n) continue;
      for (let c = 0; c < cin; ++c) for (let o = 0; o < cout; ++o) row[o] += x[p][c] * taps[(t * cin + c) * cout + o];
    }
    y.push(row);
  }
  return y;
}

test('the convolution and its attention twin are the engine\'s, and right', async () => {
  const { page, problems } = await openPage(session);
  assert.equal(await page.evaluate(() => window.attnlab.setState('v=cnn&c.r=2&c.l=1&c.a=0.5&c.sd=4')), '');
  await settle(page);
  const m = await get(page, ['cnn.x', 'cnn.taps', 'cnn.bias', 'cnn.conv', 'cnn.attn', 'cnn.heads', 'cnn.curve.alpha', 'cnn.curve.diff']);
  const K = 5, n = 24, cin = 3, cout = 2, pad = 2;
  assert.equal(m['cnn.x'].rows, cin);
  assert.equal(m['cnn.x'].cols, n);
  assert.equal(m['cnn.taps'].rows, K * cin);
  const x = Array.from({ length: n }, (_, i) => Array.from({ length: cin }, (_, c) => at(m['cnn.x'], c, i)));
  const conv = referenceConv(x, n, cin, data(m['cnn.taps']), data(m['cnn.bias']), K);
  for (let i = 0; i < n; ++i)
    for (let o = 0; o < cout; ++o)
      assert.ok(Math.abs(conv[i][o] - at(m['cnn.conv'], o, i)) < 1e-5, `conv[${i}][${o}]: ${conv[i][o]} vs ${at(m['cnn.conv'], o, i)}`);

  // The attention side through forward(): K heads, quadratic relative scores only (q = k = 0),
  // head h's value projection the tap at offset h - pad, Wo summing the heads; bias added here.
  const padded = new Float32Array((n + 2 * pad) * cin);
  for (let i = 0; i < n; ++i) for (let c = 0; c < cin; ++c) padded[(i + pad) * cin + c] = x[i][c];
  const wv = new Float32Array(cin * K * cout), wo = new Float32Array(K * cout * cout);
  for (let h = 0; h < K; ++h)
    for (let c = 0; c < cin; ++c) for (let o = 0; o < cout; ++o) wv[c * K * cout + h * cout + o] = data(m['cnn.taps'])[(h * cin + c) * cout + o];
  for (let h = 0; h < K; ++h) for (let o = 0; o < cout; ++o) wo[(h * cout + o) * cout + o] = 1;
  const r = await page.evaluate(({ padded, wv, wo, rows, K, cin, cout }) => window.attnlab.forward(
    { numHeads: K, headDim: 1, valueHeadDim: cout, projectInputs: true, projectOutput: true, outputDim: cout, position: 'quadratic_relative',
      kernel: window.attnlab.view().viewKernel },
    { query: { rows, cols: cin, data: padded } },
    { wq: { rows: cin, cols: K, data: new Float32Array(cin * K) }, wk: { rows: cin, cols: K, data: new Float32Array(cin * K) },
      wv: { rows: cin, cols: K * cout, data: wv }, wo: { rows: K * cout, cols: cout, data: wo },
      relativeCenter: { rows: 1, cols: K, data: [-2, -1, 0, 1, 2] }, relativeSharpness: { rows: 1, cols: K, data: Array(K).fill(0.5) } }),
  { padded: Array.from(padded), wv: Array.from(wv), wo: Array.from(wo), rows: n + 2 * pad, K, cin, cout });
  assert.equal(r.ok, true, r.message);
  let diff = 0;
  for (let i = 0; i < n; ++i)
    for (let o = 0; o < cout; ++o) {
      const expected = r.output.data[(i + pad) * cout + o] + data(m['cnn.bias'])[o];
      // The same head outputs summed by Wᵒ: the page adds the bias inside that sum of K + 1 terms,
      // here it is added after a sum of K; each within γ of the sum of |terms| (float_bounds.mjs).
      let magnitude = Math.abs(data(m['cnn.bias'])[o]);
      for (let h = 0; h < K; ++h) magnitude += Math.abs(r.heads[h].output.data[(i + pad) * cout + o]);
      const bound = (gamma(K + 1) + gamma(K) + U) * magnitude * (1 + U);
      assert.ok(Math.abs(expected - at(m['cnn.attn'], o, i)) <= bound, `attention[${i}][${o}]: ${expected} vs ${at(m['cnn.attn'], o, i)} ± ${bound}`);
      diff = Math.max(diff, Math.abs(at(m['cnn.attn'], o, i) - at(m['cnn.conv'], o, i)));
    }
  const scalars = await page.evaluate(() => window.attnlab.scalars());
  assert.ok(Math.abs(scalars['cnn.diff'] - diff) < 1e-6, `largest difference ${scalars['cnn.diff']} vs ${diff}`);
  assert.ok(diff > 0.01, 'blurry heads at α = 0.5 are far from the convolution');
  // Head weights of output 11 drawn are forward()'s (padded row 11 + pad, real keys).
  for (let h = 0; h < K; ++h)
    for (let j = 0; j < n; ++j)
      assert.ok(Math.abs(at(m['cnn.heads'], h, j) - r.heads[h].weights.data[(11 + pad) * (n + 2 * pad) + j + pad]) < 1e-6);

  // The curve: from α = 0.01 to 100, the largest difference falls to nothing.
  const alpha = data(m['cnn.curve.alpha']), curve = data(m['cnn.curve.diff']);
  assert.ok(Math.abs(alpha[0] - 0.01) < 1e-6 && Math.abs(alpha[alpha.length - 1] - 100) < 1e-3);
  assert.ok(curve[0] > 0.1 && curve[curve.length - 1] < 1e-4, `curve ${curve[0]} -> ${curve[curve.length - 1]}`);

  // The α slider, through the state: sharp heads are the convolution.
  await page.evaluate(() => window.attnlab.setState('c.a=100'));
  await settle(page);
  const sharp = await page.evaluate(() => ({ diff: window.attnlab.scalars()['cnn.diff'], heads: window.attnlab.matrix('cnn.heads') }));
  assert.ok(sharp.diff < 1e-4, `α = 100 leaves ${sharp.diff}`);
  for (let h = 0; h < K; ++h) assert.ok(at(sharp.heads, h, 11 + h - pad) > 0.999, `head ${h} looks at offset ${h - pad}`);
  await screenshot(page, 'cnn-desktop');
  assert.deepEqual(problems, []);
  await page.close();
});

test('receptive field: a click chooses the output; its field is 1 + L(K−1); attention sees all, the window masks', async () => {
  const { page, problems } = await openPage(session);
  await page.evaluate(() => window.attnlab.setState('v=cnn&c.r=1&c.l=3&c.w=2'));
  await settle(page);
  const layout = await page.evaluate(() => window.attnlab.layout());
  const p = layout['cnn.pyramid'];
  await page.mouse.click(p.x + (7.5 / 24) * p.width, p.y + 5);  // the top row, column 7
  await settle(page);
  assert.match(await page.evaluate(() => window.attnlab.state()), /c\.i=7/);
  const m = await get(page, ['cnn.field', 'cnn.rows', 'cnn.masked', 'cnn.x']);
  const L = 3, K = 3, n = 24;
  assert.equal(m['cnn.field'].rows, L + 1);
  for (let level = 0; level <= L; ++level) {
    const row = data(m['cnn.field']).slice(level * n, level * n + n);
    const expected = row.map((_, j) => (Math.abs(j - 7) <= level ? 1 : 0));
    assert.deepEqual(row, expected, `level ${level}`);
  }
  assert.equal((await page.evaluate(() => window.attnlab.scalars()))['cnn.field.size'], 1 + L * (K - 1));
  // Self-attention of the sequence (tokens as rows) through the engine gives the drawn row.
  const x = [];
  for (let i = 0; i < n; ++i) for (let c = 0; c < 3; ++c) x.push(at(m['cnn.x'], c, i));
  const w = await page.evaluate((x) => Array.from(window.attnlab.selfAttention(new Float32Array(x), 24, 3,
    { temperature: 0.3, kernel: window.attnlab.view().viewKernel }).heads[0].weights.data), x);
  for (let j = 0; j < n; ++j) assert.equal(at(m['cnn.rows'], 0, j), w[7 * n + j]);
  assert.ok(data(m['cnn.rows']).slice(0, n).every((v) => v > 0), 'self-attention sees every input');
  // Windowed: only |j − 7| <= 2, masked cells exactly 0 and marked.
  for (let j = 0; j < n; ++j) {
    const inside = Math.abs(j - 7) <= 2;
    assert.equal(at(m['cnn.masked'], 0, j), inside ? 0 : 1);
    if (inside) assert.ok(at(m['cnn.rows'], 1, j) > 0); else assert.equal(at(m['cnn.rows'], 1, j), 0);
  }
  // Idle pointer moves do not re-run the engine.
  const runs = await page.evaluate(() => window.attnlab.view().engineRuns);
  for (let k = 0; k < 4; ++k) await page.mouse.move(30 + 40 * k, 500);
  await settle(page);
  assert.equal(await page.evaluate(() => window.attnlab.view().engineRuns), runs);
  // A bad state string is refused; the picture stays finite.
  assert.match(await page.evaluate(() => window.attnlab.setState('c.a=0')), /out_of_range/);
  await settle(page);
  const conv = await page.evaluate(() => window.attnlab.matrix('cnn.attn'));
  assert.ok(data(conv).every(Number.isFinite));
  await screenshot(page, 'cnn-field');
  assert.deepEqual(problems, []);
  await page.close();
});

test('on a phone (380 px, devicePixelRatio 2): it fits, and a tap on the pyramid chooses the output', async () => {
  const { page, problems } = await openPage(session, { width: 380, height: 800, dpr: 2, touch: true });
  await page.evaluate(() => window.attnlab.setState('v=cnn'));
  await settle(page);
  const layout = await page.evaluate(() => window.attnlab.layout());
  for (const name of ['cnn.x', 'cnn.pyramid', 'cnn.rows', 'cnn.conv', 'cnn.attn', 'cnn.curve'])
    assert.ok(layout[name].x >= 0 && layout[name].x + layout[name].width <= 380, `${name} fits: ${JSON.stringify(layout[name])}`);
  const p = layout['cnn.pyramid'];
  assert.ok(p.y + p.height < 800, 'the pyramid is on the first screen');
  await page.touchscreen.tap(p.x + (3.5 / 24) * p.width, p.y + p.height - 4);
  await settle(page);
  assert.match(await page.evaluate(() => window.attnlab.state()), /c\.i=3/);
  await screenshot(page, 'cnn-phone');
  assert.deepEqual(problems, []);
  await page.close();
});
