// View 9: an RNN beside self-attention. What is drawn is the engine's, and an independent float64
// computation from the published inputs and weights agrees with it: the hidden states, both layers'
// gradients over distance, attention over the hidden states; the graphs highlight the chosen pair
// where the published rectangles say, clicks choose it, and the timings fill the table.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, openPage, screenshot, settle } from './browser.mjs';
import { cellCentre, dragUntilVisible } from './cells.mjs';
import { cellColour, colourDistance } from './colormap.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

const U = 2 ** -24;  // float32's unit roundoff
const data = (m) => Array.from(Object.values(m.data));
const rowsOf = (m) => Array.from({ length: m.rows }, (_, i) => data(m).slice(i * m.cols, (i + 1) * m.cols));
const get = (page, names) => page.evaluate((ns) => Object.fromEntries(ns.map((n) => [n, window.attnlab.matrix(n)])), names);
const scalars = (page) => page.evaluate(() => window.attnlab.scalars());
// The view keeps timing (one size per frame) when it opens: wait for the whole sweep, then idle.
async function ready(page) {
  await page.waitForFunction(() => window.attnlab.scalars()['rnn.sweep.done'] === 1, null, { polling: 200, timeout: 120000 });
  await settle(page);
}

// Scrolls the page with the wheel until the named rectangle is inside the 800 px high viewport.
async function scrollIntoView(page, name, height = 800) {
  let layout = await page.evaluate(() => window.attnlab.layout());
  for (let k = 0; k < 20 && layout[name].y + layout[name].height > height - 10; ++k) {
    await page.mouse.move(640, 400);
    await page.mouse.wheel(0, Math.min(500, layout[name].y + layout[name].height - height + 60));
    await settle(page);
    layout = await page.evaluate(() => window.attnlab.layout());
  }
  assert.ok(layout[name].y >= 0 && layout[name].y + layout[name].height <= height, `${name} is on screen`);
  return layout;
}

const matVec = (v, W) => W[0].map((_, o) => v.reduce((s, x, c) => s + x * W[c][o], 0));
const vecMatT = (v, W) => W.map((row) => row.reduce((s, w, o) => s + w * v[o], 0));  // v Wᵀ

// Step t of h_t = f(x_t W_xh + h_{t−1} W_hh) (no bias) in float64 from the engine's own h_{t−1}, and
// the float32 rounding bound of that one step: (d_in + d_h + 2)·U·Σ|terms| (two dot products summed,
// then tanh, each rounding by at most U relative).
function rnnStep(xt, prev, wxh, whh, linear) {
  const a = matVec(xt, wxh).map((v, o) => v + prev.reduce((s, p, c) => s + p * whh[c][o], 0));
  const abs = wxh[0].map((_, o) => xt.reduce((s, v, c) => s + Math.abs(v * wxh[c][o]), 0) + prev.reduce((s, p, c) => s + Math.abs(p * whh[c][o]), 0));
  return { h: linear ? a : a.map(Math.tanh), bound: abs.map((v) => (xt.length + whh.length + 2) * U * v) };
}

// ‖∂h_i/∂x_j‖_F for every j in float64, back through time once per unit k of h_i, from the engine's
// (float32) states h; and the float32 rounding bound of each norm. A Jacobian entry through i − j
// steps passes K = (i − j + 1)·(d_h + 4) + d_h roundings (per step: one add, the slope 1 − h², a
// product, a d_h-term dot product back through W_hh; last, a d_h-term dot with W_xh), so it is within
// γ_K = K·U/(1 − K·U) of the same chain taken in absolute values (|δ|, |W|); the norm is within the
// Frobenius norm of those bounds, plus U·norm for its rounding to float.
function rnnJacobianNorms(x, h, wxh, whh, i, linear) {
  const dh = wxh[0].length, squares = x.map(() => 0), absSquares = x.map(() => 0);
  const absW = (w) => w.map((row) => row.map(Math.abs));
  const wxhAbs = absW(wxh), whhAbs = absW(whh);
  for (let k = 0; k < dh; ++k) {
    let g = Array.from({ length: dh }, (_, o) => (o === k ? 1 : 0)), gAbs = g.slice();
    for (let t = i; t >= 0; --t) {
      const slope = h[t].map((v) => (linear ? 1 : 1 - v * v));
      const delta = g.map((v, o) => v * slope[o]), deltaAbs = gAbs.map((v, o) => v * Math.abs(slope[o]));
      squares[t] += vecMatT(delta, wxh).reduce((s, v) => s + v * v, 0);
      absSquares[t] += vecMatT(deltaAbs, wxhAbs).reduce((s, v) => s + v * v, 0);
      g = vecMatT(delta, whh);
      gAbs = vecMatT(deltaAbs, whhAbs);
    }
  }
  const norms = squares.map(Math.sqrt);
  const bounds = absSquares.map((v, j) => {
    const K = (i - j + 1) * (dh + 4) + dh, gamma = (K * U) / (1 - K * U);
    return gamma * Math.sqrt(v) + U * norms[j];
  });
  return { norms, bounds };
}

// One head: y_i = Σ_j softmax_j(q_i·k_j / √d) v_j with q = xWq, k = xWk, v = xWv (no biases).
function attentionRow(x, wq, wk, wv, i) {
  const q = matVec(x[i], wq), keys = x.map((r) => matVec(r, wk)), values = x.map((r) => matVec(r, wv));
  const s = keys.map((k) => k.reduce((a, v, c) => a + v * q[c], 0) / Math.sqrt(q.length));
  const max = Math.max(...s), e = s.map((v) => Math.exp(v - max)), sum = e.reduce((a, b) => a + b, 0);
  return values[0].map((_, c) => values.reduce((a, v, j) => a + (e[j] / sum) * v[c], 0));
}

// ‖∂y_i/∂x_j‖_F by central differences in float64 (step 1e-5: truncation ~1e-10, rounding ~1e-11).
function attentionJacobianNorms(x, wq, wk, wv, i) {
  const step = 1e-5;
  return x.map((_, j) => {
    let squares = 0;
    for (let c = 0; c < x[j].length; ++c) {
      const saved = x[j][c];
      x[j][c] = saved + step;
      const up = attentionRow(x, wq, wk, wv, i);
      x[j][c] = saved - step;
      const down = attentionRow(x, wq, wk, wv, i);
      x[j][c] = saved;
      squares += up.reduce((s, v, o) => s + ((v - down[o]) / (2 * step)) ** 2, 0);
    }
    return Math.sqrt(squares);
  });
}

// Attention's gradient, float32 against float64 central differences: the longest chain of one
// Jacobian entry runs through the projections (d_in terms), a score (d_h), the softmax over n and the
// weighted sum (n), its transpose back (d_h, d_in): at most 2·(n + d_in + d_h) + 10 roundings. The
// seeded weights are symmetric, so terms partly cancel; allowing them to cancel by a factor 10, a norm
// is within 10·(2·(n + d_in + d_h) + 10)·U relative.
const attentionTolerance = (n, dIn, dh) => (value) => 10 * (2 * (n + dIn + dh) + 10) * U * value;

async function checkAgainstFloat64(page, { linear }) {
  const view = await page.evaluate(() => window.attnlab.view());
  const m = await get(page, ['rnn.w_xh', 'rnn.w_hh', 'rnn.hidden', 'rnn.wq', 'rnn.wk', 'rnn.wv', 'rnn.y', 'rnn.grad.rnn', 'rnn.grad.attn']);
  const sc = await scalars(page);
  const x = rowsOf(view.embeddings), n = x.length, dIn = x[0].length, i = sc['rnn.i'];
  const wxh = rowsOf(m['rnn.w_xh']), whh = rowsOf(m['rnn.w_hh']), dh = wxh[0].length;
  // The hidden states, step by step from the engine's previous state, within one step's rounding.
  const hidden = rowsOf(m['rnn.hidden']);
  hidden.forEach((row, t) => {
    const step = rnnStep(x[t], t ? hidden[t - 1] : row.map(() => 0), wxh, whh, linear);
    row.forEach((v, o) => assert.ok(Math.abs(v - step.h[o]) <= step.bound[o], `h[${t}][${o}] ${v} vs ${step.h[o]} (bound ${step.bound[o]})`));
  });
  // The RNN's gradients, from the engine's BPTT, against float64 BPTT written here over the same states.
  const { norms: rnnNorms, bounds } = rnnJacobianNorms(x, hidden, wxh, whh, i, linear), drawnRnn = data(m['rnn.grad.rnn']);
  rnnNorms.forEach((v, j) => {
    if (j > i) assert.equal(drawnRnn[j], 0, 'the RNN has not read words after i');
    else assert.ok(Math.abs(drawnRnn[j] - v) <= bounds[j], `RNN ‖∂h_${i}/∂x_${j}‖ ${drawnRnn[j]} vs ${v} (bound ${bounds[j]})`);
  });
  // Attention: its output row, and its gradients against float64 central differences.
  const wq = rowsOf(m['rnn.wq']), wk = rowsOf(m['rnn.wk']), wv = rowsOf(m['rnn.wv']);
  const y = attentionRow(x, wq, wk, wv, i), drawnY = rowsOf(m['rnn.y'])[i];
  y.forEach((v, c) => assert.ok(Math.abs(v - drawnY[c]) <= 4 * (dIn + n) * U * (1 + Math.abs(v)), `y[${i}][${c}] ${drawnY[c]} vs ${v}`));
  const attnNorms = attentionJacobianNorms(x, wq, wk, wv, i), drawnAttn = data(m['rnn.grad.attn']);
  const attnTol = attentionTolerance(n, dIn, dh);
  attnNorms.forEach((v, j) => assert.ok(Math.abs(drawnAttn[j] - v) <= attnTol(v), `attention ‖∂y_${i}/∂x_${j}‖ ${drawnAttn[j]} vs ${v}`));
  return { rnnNorms, attnNorms, i, j: sc['rnn.j'], sc };
}

test('the gradients over distance are the engine\'s backward passes, and float64 agrees; ρ decides', async () => {
  const { page, problems } = await openPage(session, { width: 1280, height: 800 });
  assert.equal(await page.evaluate(() => window.attnlab.setState('v=rnn')), '');
  await ready(page);
  const tokens = (await page.evaluate(() => window.attnlab.view())).tokens;
  assert.equal(tokens.length, 12);
  const base = await checkAgainstFloat64(page, { linear: false });
  assert.equal(base.i, 11, 'i = −1 means the last word');
  assert.equal(base.j, 1);
  assert.equal(base.sc['rnn.path.rnn'], 10);
  assert.equal(base.sc['rnn.path.attn'], 1);
  assert.ok(Math.abs(base.sc['rnn.radius'] - 0.9) < 1e-5);
  // The numbers under the plot are the curve's at j and relative to j = i.
  assert.ok(Math.abs(base.sc['rnn.grad.rnn.j'] - base.rnnNorms[1]) <= 1e-3 * base.rnnNorms[1]);
  assert.ok(Math.abs(base.sc['rnn.ratio.rnn'] - base.rnnNorms[1] / base.rnnNorms[11]) <= 2e-3 * base.sc['rnn.ratio.rnn']);
  assert.ok(Math.abs(base.sc['rnn.ratio.attn'] - base.attnNorms[1] / base.attnNorms[11]) <= 2e-3 * base.sc['rnn.ratio.attn']);

  // ρ below 1 vanishes; a linear RNN above 1 grows with distance; attention stays level throughout.
  const ratios = {};
  for (const [state, linear] of [['rn.rho=0.5', false], ['rn.rho=1', false], ['rn.rho=1.5&rn.lin=1', true], ['rn.rho=1.5', false]]) {
    // setState changes only the fields it names: the activation is named every time.
    assert.equal(await page.evaluate((s) => window.attnlab.setState(`v=rnn&rn.j=0&rn.lin=${s.linear ? 1 : 0}&${s.state}`), { state, linear }), '');
    await settle(page);
    const r = await checkAgainstFloat64(page, { linear });
    ratios[state] = r.rnnNorms[0] / r.rnnNorms[11];
    assert.ok(r.attnNorms[0] / r.attnNorms[11] > 0.1, `${state}: attention does not fade with distance`);
    assert.equal((await scalars(page))['rnn.overflow'], 0);
  }
  console.log('‖∂h_12/∂x_1‖ / ‖∂h_12/∂x_12‖:', JSON.stringify(ratios));
  assert.ok(ratios['rn.rho=0.5'] < 1e-3, 'vanishing at ρ = 0.5');
  assert.ok(ratios['rn.rho=1.5&rn.lin=1'] > 1, 'growing at ρ = 1.5 without tanh');
  assert.ok(ratios['rn.rho=1.5'] < ratios['rn.rho=1.5&rn.lin=1'], 'tanh saturates');
  await page.evaluate(() => window.attnlab.setState('v=rnn&rn.j=1&rn.lin=0&rn.rho=0.5'));
  await settle(page);
  await page.mouse.move(1, 1);
  await settle(page);
  await screenshot(page, 'rnn-desktop');
  assert.deepEqual(problems, []);
  await page.close();
});

test('the graphs highlight the pair where the layout says, clicks choose it, the heatmap is the engine\'s', async () => {
  const { page, problems } = await openPage(session, { width: 1280, height: 800 });
  assert.equal(await page.evaluate(() => window.attnlab.setState('v=rnn')), '');
  await ready(page);
  let layout = await page.evaluate(() => window.attnlab.layout());
  const n = 12;
  const centre = (r) => ({ x: r.x + r.width / 2, y: r.y + r.height / 2 });
  for (const [graph, i, j] of [['rnn.chain', 11, 1], ['rnn.attn', 11, 1]]) {
    const g = layout[graph], ci = centre(layout[`${graph}.i`]), cj = centre(layout[`${graph}.j`]);
    assert.ok(Math.abs(ci.x - (g.x + (i + 0.5) * g.width / n)) < 0.5, `${graph}: word i's node sits in column ${i}`);
    assert.ok(Math.abs(cj.x - (g.x + (j + 0.5) * g.width / n)) < 0.5, `${graph}: word j's node sits in column ${j}`);
    assert.ok(ci.y < cj.y, 'i on the top row (outputs), j on the bottom row (inputs)');
    // The highlighted nodes share a colour that the nodes off the path do not have (word 1, x_1).
    const px = (p) => page.evaluate((q) => window.attnlab.readPixel(Math.round(q.x), Math.round(q.y)), p).then((v) => v.slice(0, 3));
    const offPath = { x: g.x + 0.5 * g.width / n, y: cj.y };
    const [pi, pj, po] = [await px(ci), await px(cj), await px(offPath)];
    assert.ok(colourDistance(pi, pj) <= 3, `${graph}: i ${pi} and j ${pj} are both highlighted`);
    assert.ok(colourDistance(pi, po) > 40, `${graph}: the node off the path ${po} is not`);
  }
  // A click on the attention graph's top row chooses i, on its bottom row j: the RNN graph follows.
  const g = layout['rnn.attn'];
  await page.mouse.click(g.x + (7.5 / n) * g.width, g.y + 4);
  await settle(page);
  await page.mouse.click(g.x + (2.5 / n) * g.width, g.y + g.height - 4);
  await settle(page);
  assert.match(await page.evaluate(() => window.attnlab.state()), /rn\.i=7&rn\.j=2/);
  let sc = await scalars(page);
  assert.equal(sc['rnn.path.rnn'], 5);
  layout = await page.evaluate(() => window.attnlab.layout());
  const chain = layout['rnn.chain'];
  assert.ok(Math.abs(centre(layout['rnn.chain.i']).x - (chain.x + 7.5 * chain.width / n)) < 0.5, 'the chain highlights the new i');
  // A click on the chain's bottom row after i: the RNN's gradient there is exactly 0.
  await page.mouse.click(chain.x + (9.5 / n) * chain.width, chain.y + chain.height - 4);
  await settle(page);
  sc = await scalars(page);
  assert.equal(sc['rnn.j'], 9);
  assert.equal(sc['rnn.grad.rnn.j'], 0);
  assert.ok(sc['rnn.grad.attn.j'] > 0);

  // Attention over the RNN's states: A = softmax(HHᵀ/√d_h), C = AH, [H; C], in float64 from H.
  await page.evaluate(() => window.attnlab.setState('v=rnn&rn.i=7&rn.j=2'));
  await settle(page);
  const m = await get(page, ['rnn.H', 'rnn.hidden', 'rnn.A', 'rnn.C', 'rnn.Z']);
  assert.deepEqual(data(m['rnn.H']), data(m['rnn.hidden']), 'H is the RNN of the gradient part');
  const H = rowsOf(m['rnn.H']), dh = H[0].length, A = rowsOf(m['rnn.A']), C = rowsOf(m['rnn.C']), Z = rowsOf(m['rnn.Z']);
  assert.equal(m['rnn.A'].rows, n);
  assert.equal(m['rnn.Z'].cols, 2 * dh);
  // |h| ≤ 1 (tanh): scores need dh terms, softmax a few more ops, C n terms: (dh + n + 8)·U·4 absolute.
  const tol = (dh + n + 8) * U * 4;
  for (let i = 0; i < n; ++i) {
    const s = H.map((hj) => hj.reduce((a, v, c) => a + v * H[i][c], 0) / Math.sqrt(dh));
    const max = Math.max(...s), e = s.map((v) => Math.exp(v - max)), sum = e.reduce((a, b) => a + b, 0);
    e.forEach((v, j) => assert.ok(Math.abs(v / sum - A[i][j]) <= tol, `a[${i}][${j}] ${A[i][j]} vs ${v / sum}`));
    for (let c = 0; c < dh; ++c) {
      const ci = H.reduce((a, hj, j) => a + (e[j] / sum) * hj[c], 0);
      assert.ok(Math.abs(ci - C[i][c]) <= tol, `c[${i}][${c}]`);
      assert.equal(Z[i][c], H[i][c]);
      assert.equal(Z[i][dh + c], C[i][c]);
    }
  }
  assert.ok(Math.abs((await scalars(page))['rnn.a.ij'] - A[7][2]) < 1e-7);
  // The weights heatmap: viridis on 0..1, each probed cell the colour of the engine's value.
  sc = await scalars(page);
  assert.equal(sc['rnn.A.vmin'], 0);
  assert.equal(sc['rnn.A.vmax'], 1);
  layout = await scrollIntoView(page, 'rnn.A');
  await page.mouse.move(1, 1);
  await settle(page);
  for (const [r, c] of [[0, 0], [5, 9], [11, 3]]) {
    const p = cellCentre(layout['rnn.A'], n, n, r, c);
    const got = (await page.evaluate((q) => window.attnlab.readPixel(q.x, q.y), p)).slice(0, 3);
    const want = cellColour(A[r][c], 0, 1, 'viridis');
    assert.ok(colourDistance(got, want) <= 3, `a[${r}][${c}] = ${A[r][c]} drawn ${got}, want ${want}`);
  }
  // The next layer, fully connected: tanh([H; C] W) in float64.
  await page.evaluate(() => window.attnlab.setState('v=rnn&rn.i=7&rn.j=2&rn.L=fully_connected'));
  await settle(page);
  const f = await get(page, ['rnn.Z', 'rnn.next', 'rnn.next.w']);
  const Zf = rowsOf(f['rnn.Z']), W = rowsOf(f['rnn.next.w']), out = rowsOf(f['rnn.next']);
  Zf.forEach((z, i) => matVec(z, W).forEach((v, o) => assert.ok(Math.abs(Math.tanh(v) - out[i][o]) <= (2 * dh + 2) * U * 8, `next[${i}][${o}]`)));
  assert.equal((await scalars(page))['rnn.layer'], 2);
  await page.evaluate(() => window.attnlab.setState('v=rnn&rn.i=7&rn.j=2&rn.L=conv1d'));
  await settle(page);
  assert.equal((await get(page, ['rnn.next.w']))['rnn.next.w'].rows, 3 * 2 * dh, 'the CNN\'s three taps of [H; C]');

  // The state round-trips through the state string.
  const text = 'v=rnn&rn.i=4&rn.j=0&rn.rho=1.25&rn.lin=1&rn.dh=8&rn.s=3&rn.L=conv1d';
  assert.equal(await page.evaluate((t) => window.attnlab.setState(t), text), '');
  await settle(page);
  assert.equal(await page.evaluate(() => window.attnlab.state()), text);
  sc = await scalars(page);
  assert.equal(sc['rnn.i'], 4);
  assert.ok(Math.abs(sc['rnn.radius'] - 1.25) < 1e-5);
  assert.equal((await get(page, ['rnn.H']))['rnn.H'].cols, 8);
  assert.match(await page.evaluate(() => window.attnlab.setState('rn.rho=7')), /out_of_range/);
  // A linear RNN with ρ = 2 over 200 words passes float32's range: said on screen, no RNN number.
  const long = 'a%20'.repeat(200);
  assert.equal(await page.evaluate((t) => window.attnlab.setState(t), `v=rnn&s=${long}&rn.lin=1&rn.rho=2&rn.i=-1`), '');
  await settle(page);
  sc = await scalars(page);
  assert.equal(sc['rnn.overflow'], 1);
  assert.equal(sc['rnn.ratio.rnn'], undefined, 'no RNN ratio after an overflow');
  assert.ok(Object.values(sc).every(Number.isFinite), 'every published number is finite');
  const grads = await get(page, ['rnn.grad.attn']);
  assert.equal(grads['rnn.grad.attn'].rows, 200);
  assert.ok(data(grads['rnn.grad.attn']).every((v) => Number.isFinite(v) && v > 0));
  // The screen reader's summary says so too.
  await page.waitForFunction(() => /RNN overflowed/.test(document.querySelector('.attnlab-live')?.textContent ?? ''), null, { timeout: 5000 });
  await screenshot(page, 'rnn-desktop-pair');
  assert.deepEqual(problems, []);
  await page.close();
});

test('steps, operations and measured time per token for n = 16 … 4096', async () => {
  const { page, problems } = await openPage(session, { width: 1280, height: 800 });
  await page.evaluate(() => window.attnlab.setState('v=rnn'));
  await ready(page);
  const sc = await scalars(page);
  const d = 64, times = { rnn: [], attn: [] };
  for (let k = 4; k <= 12; ++k) {
    const n = 2 ** k;
    assert.equal(sc[`rnn.flops.rnn.${n}`], n * (2 * d * d + 2 * d * d));
    assert.equal(sc[`rnn.flops.attn.${n}`], 2 * n * d * d * 4 + 4 * n * n * d);
    for (const layer of ['rnn', 'attn']) {
      const us = sc[`rnn.time.${layer}.${n}`];
      assert.ok(Number.isFinite(us) && us > 0, `${layer} at n = ${n}: ${us} µs per token`);
      // The median of three repeats, taken in three passes; the range is published beside it.
      assert.equal(sc[`rnn.time.repeats.${layer}.${n}`], 3, `${layer} at n = ${n}`);
      assert.ok(sc[`rnn.time.min.${layer}.${n}`] <= us && us <= sc[`rnn.time.max.${layer}.${n}`], `${layer} at n = ${n}`);
      times[layer].push(us);
    }
  }
  console.log('µs per token, n = 16 … 4096:', JSON.stringify(times));
  // The note under the table says how far the repeats agree, with the widest range's numbers.
  const texts = await page.evaluate(() => window.attnlab.texts());
  const spread = texts.find((t) => /^Each time is the median of 3 repeats|^Too noisy to read a trend/.test(t));
  assert.ok(spread, texts.join('\n'));
  // The plot draws the table's numbers.
  const plot = await get(page, ['rnn.speed.time.rnn', 'rnn.speed.time.attn']);
  data(plot['rnn.speed.time.rnn']).forEach((v, k) => assert.ok(Math.abs(v - times.rnn[k]) <= 1e-6 * times.rnn[k]));
  data(plot['rnn.speed.time.attn']).forEach((v, k) => assert.ok(Math.abs(v - times.attn[k]) <= 1e-6 * times.attn[k]));
  // At n = 4096 attention's 4·n·d operations per token (1M) dwarf the RNN's 4·d² (16k): whatever else
  // runs on the machine, attention's time per token is the larger there.
  assert.ok(times.attn[8] > times.rnn[8], `per token at 4096: attention ${times.attn[8]}, RNN ${times.rnn[8]}`);
  assert.deepEqual(problems, []);
  await page.close();
});

test('on a phone (390 × 844, touch): it fits, and a tap on the chain chooses word i', async () => {
  const { page, problems } = await openPage(session, { width: 390, height: 844, dpr: 2, touch: true });
  await page.evaluate(() => window.attnlab.setState('v=rnn'));
  await ready(page);
  let layout = await page.evaluate(() => window.attnlab.layout());
  for (const name of ['rnn.chain', 'rnn.attn', 'rnn.grad', 'rnn.speed.time', 'rnn.speed.flops', 'rnn.H', 'rnn.A'])
    assert.ok(layout[name].x >= 0 && layout[name].x + layout[name].width <= 390, `${name} fits: ${JSON.stringify(layout[name])}`);
  layout = await dragUntilVisible(page, 'rnn.chain', { top: 400, height: 844 });
  const c = layout['rnn.chain'];
  await page.touchscreen.tap(c.x + (3.5 / 12) * c.width, c.y + 4);
  await settle(page);
  assert.match(await page.evaluate(() => window.attnlab.state()), /rn\.i=3/);
  assert.equal((await scalars(page))['rnn.path.rnn'], 2);
  await screenshot(page, 'rnn-phone');
  assert.deepEqual(problems, []);
  await page.close();
});
