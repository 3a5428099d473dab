// View 11's microscope (issue 31), in the browser: the QK and OV circuits drawn are the float64
// recomputation from the parameters the page publishes; the phase change is marked on the plots where
// its step is and said in words with the number published; run B trains beside run A from the link
// alone, is run A with the one change the sentence names (its numbers equal run A trained with that
// setting), and both runs round-trip through the link. Screenshots at desktop and phone size.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, openBusy, screenshot, settle } from './browser.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

const open = (hash, { width = 1280, height = 3400, touch = false } = {}) => openBusy(session, hash, { width, height, touch });

// Waits until run A (and run B, when `b`) reached `steps` and the page is at rest.
async function trained(page, steps, b = false) {
  await page.waitForFunction(({ steps, b }) => {
    const s = window.attnlab.scalars();
    return s['learn.steps'] >= steps && (!b || s['learn.b.steps'] >= steps) && s['learn.running'] === 0;
  }, { steps, b }, { polling: 100, timeout: 5 * 60 * 1000 });
  await settle(page);
}

const scalars = (page) => page.evaluate(() => window.attnlab.scalars());
const texts = (page) => page.evaluate(() => window.attnlab.texts());

// The chosen head's circuits recomputed in float64 from the published parameters (docs/concepts.md
// §14): LN1 of each embedding (or position row), through the head's Wq/Wk (scaled by 1/√d_k) and
// Wv/Wo, then diag(γ_f) W_out. Returns the largest |drawn − recomputed| / (|recomputed| + 1e-3).
async function circuitError(page, layer, head, heads) {
  return page.evaluate(({ layer, head, heads }) => {
    const a = window.attnlab;
    const m = (n) => a.matrix(n);
    const at = (x, i, j) => x.data[i * x.cols + j];
    const wte = m('learn.wte'), g = m(`learn.L${layer}.ln1_gamma`), b = m(`learn.L${layer}.ln1_beta`);
    const wq = m(`learn.L${layer}.wq`), wk = m(`learn.L${layer}.wk`), wv = m(`learn.L${layer}.wv`), wo = m(`learn.L${layer}.wo`);
    const bq = m(`learn.L${layer}.bq`), bk = m(`learn.L${layer}.bk`), bv = m(`learn.L${layer}.bv`);
    const lnf = m('learn.lnf_gamma'), out = m('learn.out_w');
    const d = wte.cols, dk = wq.cols / heads, h0 = (head - 1) * dk;
    const ln = (x, r) => {
      let mean = 0, v = 0;
      for (let j = 0; j < d; ++j) mean += at(x, r, j) / d;
      for (let j = 0; j < d; ++j) v += (at(x, r, j) - mean) ** 2 / d;
      const rstd = 1 / Math.sqrt(v + 1e-5);
      return Array.from({ length: d }, (_, j) => (at(x, r, j) - mean) * rstd * g.data[j] + b.data[j]);
    };
    const project = (x, w, bias) => Array.from({ length: dk }, (_, c) => {
      let s = bias.data[h0 + c];
      for (let j = 0; j < d; ++j) s += x[j] * at(w, j, h0 + c);
      return s;
    });
    const worst = (drawn, want) => {
      let e = 0;
      for (let i = 0; i < want.length; ++i) e = Math.max(e, Math.abs(drawn.data[i] - want[i]) / (Math.abs(want[i]) + 1e-3));
      return e;
    };
    const V = wte.rows, C = out.cols;
    const a_in = Array.from({ length: V }, (_, t) => ln(wte, t));
    const q = a_in.map((x) => project(x, wq, bq)), k = a_in.map((x) => project(x, wk, bk));
    const qk = [];
    for (let t = 0; t < V; ++t) for (let s = 0; s < V; ++s) qk.push(q[t].reduce((acc, v, c) => acc + v * k[s][c], 0) / Math.sqrt(dk));
    const ov = [];
    for (let s = 0; s < V; ++s) {
      const v = project(a_in[s], wv, bv);
      const written = Array.from({ length: d }, (_, j) => v.reduce((acc, x, c) => acc + x * at(wo, h0 + c, j), 0));
      for (let c = 0; c < C; ++c) ov.push(written.reduce((acc, x, j) => acc + x * lnf.data[j] * at(out, j, c), 0));
    }
    return { qk: worst(m('learn.qk'), qk), ov: worst(m('learn.ov'), ov), rows: m('learn.qk').rows, V };
  }, { layer, head, heads });
}

test('the circuits drawn are the float64 recomputation; the phase change is marked where its step is', async () => {
  const { page, problems } = await open('#v=learn&l.task=recall&l.l=2&l.h=2&l.n=900&l.ch=3');
  await trained(page, 900);
  const s = await scalars(page);
  assert.equal(s['learn.steps'], 900);
  // Head 2.2 (l.ch=3) and, chosen from the link, head 1.1: both the recomputation, to float rounding.
  let e = await circuitError(page, 2, 2, 2);
  assert.equal(e.rows, e.V);
  assert.ok(e.qk < 1e-5 && e.ov < 1e-5, `head 2.2: ${JSON.stringify(e)}`);
  await page.evaluate(() => window.attnlab.setState(window.attnlab.state().replace('l.ch=3', 'l.ch=0')));
  await settle(page);
  e = await circuitError(page, 1, 1, 2);
  assert.ok(e.qk < 1e-5 && e.ov < 1e-5, `head 1.1: ${JSON.stringify(e)}`);

  // The phase change: the number published is the one the sentence says and the line drawn.
  const step = s['learn.phase_change_step'];
  const all = (await texts(page)).join('\n');
  if (step >= 0) {
    assert.match(all, new RegExp(`Phase change at step ${step}: the held-out loss fell fastest there`));
    const { rect, steps, markers } = await page.evaluate(() => ({
      rect: window.attnlab.layout()['learn.loss'], steps: window.attnlab.matrix('learn.curve_steps'),
      markers: window.attnlab.matrix('learn.loss.markers'),
    }));
    assert.ok(markers && markers.cols >= 1, 'a marker line on the loss plot');
    // The x axis runs from the first point's step to the last's: the line is where the step is.
    const x0 = steps.data[0], x1 = steps.data[steps.rows * steps.cols - 1];
    const want = rect.x + ((step - x0) / (x1 - x0)) * rect.width;
    assert.ok(Math.abs(markers.data[0] - want) < 1.5, `marker at ${markers.data[0]}, step ${step} is at ${want}`);
    const scoreMarkers = await page.evaluate(() => window.attnlab.matrix('learn.copying.markers'));
    assert.ok(scoreMarkers && scoreMarkers.cols === 1, 'and on the head scores');
  } else {
    assert.match(all, /No phase change up to step \d+/);
  }
  console.log(`recall 2×2, seed 1: phase change at step ${step}; held-out loss ${s['learn.held_out_loss'].toFixed(3)}`);
  // Composition: a table per kind for 2 layers, and the sentence naming the strongest pair.
  assert.match(all, /The strongest K-composition is head 1\.\d into head 2\.\d: 0\.\d\d \(0\.\d\d at initialisation\)/);
  const k = await page.evaluate(() => window.attnlab.matrix('learn.composition.k'));
  assert.equal(k.rows, 4);
  assert.match(all, /The task scores one position, 13: its held-out loss at step 900 is \d\.\d{3}\./);
  for (const t of all.split('\n')) assert.doesNotMatch(t, /NaN|nan|inf/, t);
  await screenshot(page, 'learn-microscope-desktop');
  assert.deepEqual(problems, []);
  await page.close();
});

test('run B trains beside run A from the link, is run A with the change named, and round-trips', async () => {
  const hash = '#v=learn&l.task=previous&l.l=1&l.h=1&l.n=200&l.b=seed&l.bv=5';
  const { page, problems } = await open(hash);
  await trained(page, 200, true);
  const s = await scalars(page);
  assert.equal(s['learn.b.steps'], 200);
  const all = (await texts(page)).join('\n');
  assert.match(all, /Run B is run A with initial weights from seed 5 instead of 1, on the same sequences\./);
  const compared = all.match(/At step 200, the last snapshot both have, the held-out loss is (\d\.\d{3}) in run A and (\d\.\d{3}) in run B\./);
  assert.ok(compared, all);
  assert.equal(Number(compared[1]), Number(s['learn.held_out_loss'].toFixed(3)));
  assert.equal(Number(compared[2]), Number(s['learn.b.held_out_loss'].toFixed(3)));
  const state = await page.evaluate(() => window.attnlab.state());
  assert.match(state, /l\.b=seed/);
  assert.match(state, /l\.bv=5/);
  // Both maps drawn side by side on a desktop.
  const layout = await page.evaluate(() => window.attnlab.layout());
  assert.ok(layout['learn.W1.1'] && layout['learn.b.W1.1'], 'run A\'s and run B\'s maps');
  assert.ok(layout['learn.b.W1.1'].x > layout['learn.W1.1'].x + layout['learn.W1.1'].width, 'B beside A');
  await screenshot(page, 'learn-compare-desktop');
  assert.deepEqual(problems, []);
  await page.close();

  // Run B is run A with seed 5's initial weights on seed 1's sequences: that run trained alone gives
  // run B's numbers, bit for bit.
  const alone = await open('#v=learn&l.task=previous&l.l=1&l.h=1&l.n=200&l.s=5&l.ds=1');
  await trained(alone.page, 200);
  const t = await scalars(alone.page);
  assert.equal(t['learn.held_out_loss'], s['learn.b.held_out_loss']);
  assert.equal(t['learn.held_out'], s['learn.b.held_out']);
  await alone.page.close();
  // The link made from the page reopens both runs at the same step, with the same numbers.
  const again = await open(`#${state}`);
  await trained(again.page, 200, true);
  const r = await scalars(again.page);
  assert.equal(r['learn.held_out_loss'], s['learn.held_out_loss']);
  assert.equal(r['learn.b.held_out_loss'], s['learn.b.held_out_loss']);
  await again.page.close();
});

test('sparsemax as run B: the change is the one named; on a phone everything fits', async () => {
  const { page, problems } = await open('#v=learn&l.task=copy&l.l=1&l.h=2&l.n=150&l.b=normalizer', { width: 390, height: 3000, touch: true });
  await trained(page, 150, true);
  const all = (await texts(page)).join('\n');
  assert.match(all, /Run B is run A with sparsemax instead of softmax/);
  // Sparsemax gives exact zeros: run B's maps hold some, run A's (softmax) none below the diagonal.
  const zeros = await page.evaluate(() => ['learn.W1.1', 'learn.b.W1.1'].map((n) => {
    const m = window.attnlab.matrix(n);
    let z = 0;
    for (let i = 0; i < m.rows; ++i) for (let j = 0; j <= i; ++j) z += m.data[i * m.cols + j] === 0;
    return z;
  }));
  assert.equal(zeros[0], 0, 'softmax: no exact zero where a query may look');
  assert.ok(zeros[1] > 0, `sparsemax: ${zeros[1]} exact zeros`);
  const layout = await page.evaluate(() => window.attnlab.layout());
  for (const [name, r] of Object.entries(layout)) {
    if (!name.startsWith('learn.')) continue;
    assert.ok(r.x >= 0 && r.x + r.width <= 390 + 0.5, `${name} fits the phone: ${r.x}..${r.x + r.width}`);
  }
  await screenshot(page, 'learn-microscope-phone');
  assert.deepEqual(problems, []);
  await page.close();
});
