// View 10: attention as retrieval. The store's weights, soft and hard answers and the cross-attention
// drawn are the engine's and agree with a float64 computation from the published inputs; the bars and
// the heatmap show those numbers; the second sentence box types on a phone; the state round-trips.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, openPage, screenshot, settle } from './browser.mjs';
import { cellCentre, dragUntilVisible } from './cells.mjs';
import { cellColour, colourDistance } from './colormap.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

const data = (m) => Array.from(Object.values(m.data));
const row = (m, i) => data(m).slice(i * m.cols, (i + 1) * m.cols);
const dot = (a, b) => a.reduce((s, v, k) => s + v * b[k], 0);

function softmax(scores, tau) {
  const top = Math.max(...scores.map((s) => s / tau));
  const e = scores.map((s) => Math.exp(s / tau - top));
  const z = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / z);
}

// The store in float64 from the published query, keys and values: scaled dot or cosine scores.
function referenceStore(q, K, V, tau, score) {
  const m = K.rows, d = K.cols;
  const norm = (v) => Math.sqrt(dot(v, v));
  const s = [];
  for (let j = 0; j < m; ++j) {
    const k = row(K, j);
    s.push(score === 'cosine' ? dot(q, k) / (norm(q) * norm(k)) : dot(q, k) / Math.sqrt(d));
  }
  const w = softmax(s, tau);
  const r = new Array(d).fill(0);
  for (let j = 0; j < m; ++j) row(V, j).forEach((v, a) => { r[a] += w[j] * v; });
  return { s, w, r, hard: s.indexOf(Math.max(...s)) };
}

// Cross-attention softmax(Q Kᵀ/(√d τ)) K in float64.
function referenceCross(Q, K, tau) {
  const w = [], y = [];
  for (let i = 0; i < Q.rows; ++i) {
    const q = row(Q, i);
    const wi = softmax(Array.from({ length: K.rows }, (_, j) => dot(q, row(K, j)) / Math.sqrt(Q.cols)), tau);
    w.push(wi);
    const yi = new Array(K.cols).fill(0);
    for (let j = 0; j < K.rows; ++j) row(K, j).forEach((v, a) => { yi[a] += wi[j] * v; });
    y.push(yi);
  }
  return { w, y };
}

const read = (page) => page.evaluate(() => {
  const a = window.attnlab;
  return {
    state: a.state(), layout: a.layout(), scalars: a.scalars(), view: a.view(),
    w: a.matrix('rt.weights'), answers: a.matrix('rt.answers'), q: a.matrix('rt.q'), K: a.matrix('rt.K'), V: a.matrix('rt.V'),
    cw: a.matrix('rt.cross.W'), cy: a.matrix('rt.cross.Y'), cq: a.matrix('rt.cross.Q'), ck: a.matrix('rt.cross.K'),
  };
});

// Float32 against float64 on 100-d GloVe vectors (|x| ≈ 6): a 100-term dot product is off by at most
// 100·eps·Σ|q_a k_a| ≤ 100 · 1.2e-7 · 40 ≈ 5e-4 before ÷√d (5e-5 after); a weight by twice that over τ.
function checkStore(got, tau, score) {
  const ref = referenceStore(data(got.q), got.K, got.V, tau, score);
  const scoreTol = score === 'cosine' ? 2e-5 : 5e-5;
  data(got.w).forEach((v, j) => assert.ok(Math.abs(v - ref.w[j]) <= 2 * scoreTol / tau + 1e-6, `weight ${j}: ${v} vs ${ref.w[j]}`));
  const soft = row(got.answers, 0), hard = row(got.answers, 1);
  const vmax = Math.max(...data(got.V).map(Math.abs));
  soft.forEach((v, a) => assert.ok(Math.abs(v - ref.r[a]) <= got.K.rows * (2 * scoreTol / tau + 1e-6) * vmax, `r[${a}]: ${v} vs ${ref.r[a]}`));
  assert.equal(got.scalars['rt.hard'], ref.hard, 'hard retrieval is the argmax');
  assert.deepEqual(hard, row(got.V, ref.hard), 'the hard answer is that key\'s value, whole');
  return ref;
}

function checkCross(got, tau) {
  const ref = referenceCross(got.cq, got.ck, tau);
  assert.equal(got.cw.rows, got.cq.rows);
  assert.equal(got.cw.cols, got.ck.rows);
  ref.w.flat().forEach((v, k) => assert.ok(Math.abs(data(got.cw)[k] - v) <= 2 * 5e-5 / tau + 1e-6, `cross weight ${k}`));
  // An output is Σ_j w_j x_ja: each weight's error times |x_ja|, summed.
  const wtol = 2 * 5e-5 / tau + 1e-6;
  const colAbs = Array.from({ length: got.ck.cols }, (_, a) => Array.from({ length: got.ck.rows }, (_, j) => Math.abs(row(got.ck, j)[a])).reduce((s, v) => s + v, 0));
  ref.y.flat().forEach((v, k) => assert.ok(Math.abs(data(got.cy)[k] - v) <= wtol * colAbs[k % got.ck.cols] + 1e-6, `cross output ${k}: ${data(got.cy)[k]} vs ${v}`));
  return ref;
}

async function pixel(page, p) {
  return (await page.evaluate((q) => window.attnlab.readPixel(q.x, q.y), p)).slice(0, 3);
}

async function click(page, rect) {
  await page.mouse.click(rect.x + rect.width / 2, rect.y + rect.height / 2);
  await settle(page);
}

test('the store retrieves what float64 retrieves, the bars are its weights, italy blends and τ → 0 is the argmax', async () => {
  const { page, problems } = await openPage(session, { width: 1280, height: 800, hash: '#v=retrieval' });
  let got = await read(page);
  assert.equal(got.w.cols, 24, 'the capitals table has 24 pairs');
  assert.equal(got.q.cols, 100);
  let ref = checkStore(got, 0.5, 'scaled');
  assert.equal(got.scalars['rt.query_key'], 0, 'france is the first key');
  assert.equal(got.scalars['rt.soft_right'], 24);
  assert.equal(got.scalars['rt.hard_right'], 24);
  await page.waitForFunction(() => /soft answer nearest "paris", hard answer "paris"/.test(document.querySelector('.attnlab-live')?.textContent));

  // The bars: france → paris (0.72) is drawn as long as its weight, germany → berlin (0.04) is not.
  const bars = got.layout['rt.weights'];
  const rowY = (j) => bars.y + (j + 0.55) * (bars.height / got.w.cols);
  const end = bars.x + bars.width * data(got.w)[0];
  await page.mouse.move(1, 1);
  const inside = await pixel(page, { x: end - 3, y: rowY(0) });
  const past = await pixel(page, { x: end + 4, y: rowY(0) });
  const shortRow = await pixel(page, { x: end - 3, y: rowY(1) });
  assert.ok(colourDistance(inside, past) > 60, `bar ${inside} vs background ${past}`);
  assert.ok(colourDistance(shortRow, past) <= 8, 'the short bar ends long before');

  // A query that is no key: the weight spreads over several capitals.
  await click(page, got.layout['rt.outside.0']);
  got = await read(page);
  assert.match(got.state, /rt\.q=italy/);
  assert.equal(got.scalars['rt.query_key'], -1);
  ref = checkStore(got, 0.5, 'scaled');
  assert.ok(Math.max(...ref.w) < 0.3, `italy's largest weight ${Math.max(...ref.w)}`);

  // The query is typed into its own box: "mexico" (no key either) puts most weight on spain → madrid.
  await click(page, got.layout['rt.query']);
  await page.keyboard.press('Control+A');
  await page.keyboard.type('mexico');
  await settle(page);
  got = await read(page);
  assert.match(got.state, /rt\.q=mexico/);
  const gradientSoft = got.scalars['rt.d_query_norm'];
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.box), '2', 'the query box has the keyboard');
  ref = checkStore(got, 0.5, 'scaled');
  assert.equal(got.scalars['rt.hard'], 3, 'spain');

  // τ → its minimum: the soft answer is the hard one, and it no longer moves with the query.
  assert.equal(await page.evaluate(() => window.attnlab.setState('rt.t=0.001')), '');
  await settle(page);
  got = await read(page);
  ref = checkStore(got, 0.001, 'scaled');
  assert.ok(Math.max(...data(got.w)) > 0.999);
  row(got.answers, 0).forEach((v, a) => assert.ok(Math.abs(v - row(got.answers, 1)[a]) < 1e-3, `soft = hard at ${a}`));
  assert.ok(got.scalars['rt.d_query_norm'] < 1e-3 * gradientSoft, `‖∂r/∂q‖ ${got.scalars['rt.d_query_norm']} vs ${gradientSoft}`);

  // Picking cosine sets its own τ (0.1), where the weights are soft again and every key is right.
  await click(page, got.layout['rt.score.3']);
  got = await read(page);
  assert.match(got.state, /rt\.sc=cosine/);
  assert.match(got.state, /rt\.t=0\.1\b/);
  checkStore(got, 0.1, 'cosine');
  assert.equal(got.scalars['rt.soft_right'], 24);
  await screenshot(page, 'retrieval-desktop');
  assert.deepEqual(problems, []);
  await page.close();
});

test('cross-attention: the heatmap is softmax(X_A X_Bᵀ/√d) in float64, labelled n_A × n_B, and Swap transposes the roles', async () => {
  const { page, problems } = await openPage(session, { width: 1280, height: 800, hash: '#v=retrieval&s=the%20cat%20sat%20on%20the%20mat' });
  let got = await read(page);
  assert.deepEqual(got.view.tokens, ['the', 'cat', 'sat', 'on', 'the', 'mat']);
  assert.deepEqual(data(got.cq), data(got.view.embeddings), 'the queries are sentence A\'s vectors');
  assert.equal(got.cw.rows, 6);
  assert.equal(got.cw.cols, 7, '"my dog was sitting on the carpet"');
  const ref = checkCross(got, 1);
  const B = ['my', 'dog', 'was', 'sitting', 'on', 'the', 'carpet'];
  const best = ref.w.map((w) => B[w.indexOf(Math.max(...w))]);
  assert.deepEqual(best, ['the', 'dog', 'sitting', 'on', 'the', 'sitting']);
  // The shapes line sits between the controls and the maps.
  assert.ok(got.layout['rt.shapes'].y > got.layout['rt.swap'].y && got.layout['rt.shapes'].y < got.layout['rt.cross.W'].y);
  // Cells are viridis on 0..1 of the engine's weights; "cat" → "dog" is the brightest in its row.
  await page.evaluate((y) => window.attnlab.scrollBy(y - 200), got.layout['rt.cross.W'].y);
  await settle(page);
  got = await read(page);
  for (const [i, j] of [[1, 1], [1, 6], [3, 4]]) {
    const got_ = await pixel(page, cellCentre(got.layout['rt.cross.W'], 6, 7, i, j));
    const want = cellColour(data(got.cw)[i * 7 + j], 0, 1, 'viridis');
    assert.ok(colourDistance(got_, want) <= 3, `cell ${i},${j}: drawn ${got_}, viridis gives ${want}`);
  }
  // Swap: queries from B, keys and values from A: 7 × 6, and "dog" still finds "cat".
  await click(page, got.layout['rt.swap']);
  got = await read(page);
  assert.match(got.state, /rt\.sw=1/);
  assert.equal(got.cw.rows, 7);
  assert.equal(got.cw.cols, 6);
  const swapped = checkCross(got, 1);
  assert.equal(swapped.w[1].indexOf(Math.max(...swapped.w[1])), 1, 'dog → cat');
  await screenshot(page, 'retrieval-cross-desktop');
  assert.deepEqual(problems, []);
  await page.close();
});

test('on a phone the second box types sentence B (the keyboard comes up) and the state round-trips', async () => {
  const { page, problems } = await openPage(session, { width: 390, height: 844, touch: true, hash: '#v=retrieval' });
  // The query word is typed the same way: a tap raises the keyboard.
  await dragUntilVisible(page, 'rt.query', { top: 400, height: 844 });
  const q = (await page.evaluate(() => window.attnlab.layout()))['rt.query'];
  assert.ok(q.x >= 0 && q.x + q.width <= 390, 'the query box fits the phone');
  await page.touchscreen.tap(q.x + q.width - 6, q.y + q.height / 2);
  await settle(page);
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.box), '2', 'the query box has the keyboard');
  await page.keyboard.press('End');
  for (let k = 0; k < 'france'.length; ++k) await page.keyboard.press('Backspace');
  await page.keyboard.insertText('japan');
  await settle(page);
  assert.match(await page.evaluate(() => window.attnlab.state()), /rt\.q=japan/);
  assert.equal((await read(page)).scalars['rt.hard'], 2, 'japan → tokyo');
  const layout = await dragUntilVisible(page, 'rt.sentence_b', { top: 400, height: 844 });
  const b = layout['rt.sentence_b'];
  assert.ok(b.width <= 390 && b.x >= 0, 'the box fits the phone');
  // The text area lies where the app reserved its place.
  const area = await page.evaluate(() => {
    const r = document.querySelector('.attnlab-sentence[data-box="1"]').getBoundingClientRect();
    const c = document.querySelector('canvas').getBoundingClientRect();
    return { x: r.x - c.x, y: r.y - c.y, width: r.width, hidden: document.querySelector('.attnlab-sentence[data-box="1"]').hidden };
  });
  assert.equal(area.hidden, false);
  assert.ok(Math.abs(area.x - b.x) < 1 && Math.abs(area.y - b.y) < 1 && Math.abs(area.width - b.width) < 1, JSON.stringify({ area, b }));
  await page.touchscreen.tap(b.x + b.width - 6, b.y + b.height / 2);
  await settle(page);
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.box), '1', 'sentence B has the keyboard');
  await page.keyboard.press('End');
  for (let k = 0; k < 'carpet'.length; ++k) await page.keyboard.press('Backspace');
  await page.keyboard.insertText('floor');
  await settle(page);
  let got = await read(page);
  assert.match(got.state, /rt\.b=my%20dog%20was%20sitting%20on%20the%20floor/);
  assert.equal(got.cw.cols, 7);
  assert.equal(got.view.tokens.length, 12, 'sentence A is untouched');
  assert.equal(await page.evaluate(() => document.querySelector('.attnlab-sentence[data-box="0"]').value),
    'The animal didn\'t cross the street because it was too tired');
  checkCross(got, 1);
  await screenshot(page, 'retrieval-phone');

  // The state string holds everything: a fresh page opened with it draws the same numbers.
  await page.evaluate(() => window.attnlab.setState('rt.q=mexico&rt.tb=capitals&rt.sc=cosine&rt.t=0.1&rt.sw=1&rt.ct=0.5'));
  await settle(page);
  got = await read(page);
  const state = got.state;
  assert.equal(await page.evaluate((s) => window.attnlab.setState(s), state), '');
  const fresh = await openPage(session, { width: 390, height: 844, touch: true, hash: `#${state}` });
  // Bit for bit only under the same kernel settings: each page load times its own (the relaxed
  // build's fused or unfused multiply-add, the tiles; attn/kernel_choice.h), and on a busy machine two
  // loads may choose apart, 1 ulp off. So the fresh page takes the first's, and recomputes under it.
  const choice = await page.evaluate(() => window.attnlab.kernelChoice());
  assert.deepEqual(await fresh.page.evaluate((c) => window.attnlab.setKernelChoice(c), choice), { ok: true });
  await fresh.page.evaluate(() => window.attnlab.setState('rt.t=0.2'));
  await settle(fresh.page);
  assert.equal(await fresh.page.evaluate((s) => window.attnlab.setState(s), state), '');
  await settle(fresh.page);
  const again = await read(fresh.page);
  assert.equal(again.state, state);
  for (const name of ['w', 'answers', 'cw', 'cy']) assert.deepEqual(data(again[name]), data(got[name]), name);
  assert.equal(await fresh.page.evaluate(() => document.querySelector('.attnlab-sentence[data-box="1"]').value),
    'my dog was sitting on the floor');
  checkStore(again, 0.1, 'cosine');
  checkCross(again, 0.5);
  assert.deepEqual(fresh.problems, []);
  assert.deepEqual(problems, []);
  await fresh.page.close();
  await page.close();
});

test('setSentence(text, box) keeps each box to its field (sentence B 511 bytes, the query 64) and names a bad box', async () => {
  const { page, problems } = await openPage(session, { width: 1280, height: 800, hash: '#v=retrieval' });
  const r = await page.evaluate(() => {
    const a = window.attnlab;
    const notes = [a.setSentence('é'.repeat(300), 1), a.setSentence('q'.repeat(70), 2), a.setSentence('x', 3), a.setSentence('x', 0.5),
      a.setSentence('x', '1')];
    a.renderNow();
    const state = a.state();
    const boxes = [...document.querySelectorAll('.attnlab-sentence')].map((b) => b.value);
    return { notes, state, error: a.setState(state), boxes };
  });
  assert.match(r.notes[0], /^out_of_range: sentence B: longer than 511 bytes \(600\): cut to 510/);
  assert.match(r.notes[1], /^out_of_range: query: longer than 64 bytes \(70\): cut to 64/);
  assert.equal(r.notes[2], 'out_of_range: box: expected 0, 1 or 2, got 3');
  assert.equal(r.notes[3], 'out_of_range: box: expected 0, 1 or 2, got 0.5');
  assert.match(r.notes[4], /^invalid_argument: box: expected a number/);
  assert.equal(r.error, '', 'setState(state()) applies without error');
  assert.deepEqual(r.boxes.slice(1), ['é'.repeat(255), 'q'.repeat(64)], 'the boxes show what the page keeps');
  assert.equal(r.boxes[0], 'The animal didn\'t cross the street because it was too tired', 'sentence A untouched');
  assert.deepEqual(problems, []);
  await page.close();
});
