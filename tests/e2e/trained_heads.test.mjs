// Views 3 and 5 with the heads trained on the Brown corpus (web/assets/heads-trained-brown.bin):
// drawn by default once the asset arrives, every map the engine's forward of the sentence with the
// trained projections and RoPE, head 3 looking at the previous word and head 4 at the next one;
// the switch goes back to seeded heads; without the asset the views say why and draw seeded heads.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { newPage, openBrowser, openPage, screenshot, settle } from './browser.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

const trainedShown = (page, view) =>
  page.waitForFunction((v) => window.attnlab.scalars()[`${v}.trained`] === 1, view);

// Mean weight a row puts on the word `offset` away (−1: previous), over the rows that have one.
function offsetShare(m, offset) {
  let sum = 0, rows = 0;
  for (let i = 0; i < m.rows; ++i) {
    const j = i + offset;
    if (j < 0 || j >= m.cols) continue;
    sum += m.data[i * m.cols + j];
    ++rows;
  }
  return sum / rows;
}

test('view 5 draws the trained heads: the engine\'s weights, a previous-word and a next-word head', async () => {
  const { page, problems } = await openPage(session, { hash: '#v=heads' });
  await trainedShown(page, 'heads');
  await settle(page);
  const r = await page.evaluate(() => {
    const a = window.attnlab;
    const m = (n) => a.matrix(n);
    const x = a.view().embeddings;
    const e = a.forward({ numHeads: 4, headDim: 16, valueHeadDim: 16, projectInputs: true, projectOutput: true, useBias: true,
      position: 'rope', kernel: a.view().viewKernel }, { query: x },
    { wq: m('heads.Wq'), wk: m('heads.Wk'), wv: m('heads.Wv'), wo: m('heads.Wo'), bq: m('heads.bq'), bk: m('heads.bk'),
      bv: m('heads.bv'), bo: m('heads.bo') });
    const plain = (v) => ({ rows: v.rows, cols: v.cols, data: Array.from(v.data) });
    return { ok: e.ok, error: e.error, n: x.rows, drawn: [0, 1, 2, 3].map((h) => plain(m(`heads.W${h}`))),
             engine: e.heads.map((h) => plain(h.weights)), y: plain(m('heads.Y')), ey: plain(e.output), wq: plain(m('heads.Wq')) };
  });
  assert.equal(r.ok, true, r.error);
  assert.equal(r.wq.rows, 100);
  assert.equal(r.wq.cols, 64, 'four heads of 16');
  for (let h = 0; h < 4; ++h) assert.deepEqual(r.drawn[h], r.engine[h], `head ${h + 1} drawn = the engine's forward`);
  assert.deepEqual(r.y, r.ey, 'the output too');
  // Trained, not uniform: head 3 looks back one word, head 4 forward one word (uniform: 1/12).
  const previous = offsetShare(r.drawn[2], -1), next = offsetShare(r.drawn[3], 1);
  console.log(`trained heads on the default sentence: head 3 previous word ${previous.toFixed(2)}, head 4 next word ${next.toFixed(2)}`);
  assert.ok(previous > 0.4, `head 3 on the previous word: ${previous}`);
  assert.ok(next > 0.4, `head 4 on the next word: ${next}`);
  await screenshot(page, 'trained-heads');
  // The switch: seeded heads again, as many as the slider says.
  assert.equal(await page.evaluate(() => window.attnlab.setState('v=heads&h.tr=0&h.n=2')), '');
  await settle(page);
  const s = await page.evaluate(() => window.attnlab.scalars());
  assert.equal(s['heads.trained'], 0);
  assert.equal(s['heads.count'], 2);
  assert.deepEqual(problems, []);
  await page.close();
});

test('view 3 shows one trained head; its weights are that head\'s inside the layer', async () => {
  const { page, problems } = await openPage(session, { hash: '#v=qkv&q.th=3' });
  await trainedShown(page, 'qkv');
  await settle(page);
  const w = await page.evaluate(() => { const m = window.attnlab.matrix('qkv.W'); return { rows: m.rows, cols: m.cols, data: Array.from(m.data) }; });
  const q = await page.evaluate(() => window.attnlab.matrix('qkv.Q').cols);
  assert.equal(q, 16);
  assert.ok(offsetShare(w, 1) > 0.4, 'head 4 looks at the next word');
  // The same head inside view 5's layer.
  await page.evaluate(() => window.attnlab.setState('v=heads'));
  await trainedShown(page, 'heads');
  await settle(page);
  const h4 = await page.evaluate(() => Array.from(window.attnlab.matrix('heads.W3').data));
  h4.forEach((v, k) => assert.ok(Math.abs(v - w.data[k]) <= 1e-6, `weight ${k}: ${v} vs ${w.data[k]}`));
  assert.deepEqual(problems, []);
  await page.close();
});

test('without the asset the views say why and draw seeded heads; on a phone the trained grid fits', async () => {
  const page = await newPage(session.browser, { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  await page.route('**/heads-trained-brown.bin', (route) => route.fulfill({ status: 404, body: 'gone' }));
  await page.goto(`${session.url}#v=heads`);
  await page.waitForSelector('html[data-ready=true]');
  await page.waitForFunction(() => window.attnlab.view().wordVectorsLoaded);
  await settle(page);
  await page.waitForTimeout(500);
  await settle(page);
  const s = await page.evaluate(() => window.attnlab.scalars());
  assert.equal(s['heads.trained'], 0, 'seeded heads drawn');
  assert.equal(s['heads.count'], 4);
  await screenshot(page, 'trained-heads-missing');
  await page.close();

  const phone = await openPage(session, { hash: '#v=heads', width: 390, height: 844, touch: true });
  await trainedShown(phone.page, 'heads');
  await settle(phone.page);
  const layout = await phone.page.evaluate(() => window.attnlab.layout());
  for (let h = 0; h < 4; ++h) {
    const r = layout[`heads.W${h}`];
    assert.ok(r.x >= 0 && r.x + r.width <= 390.5, `head ${h + 1} fits: ${r.x}..${r.x + r.width}`);
  }
  await screenshot(phone.page, 'trained-heads-phone');
  assert.deepEqual(phone.problems, []);
  await phone.page.close();
});
