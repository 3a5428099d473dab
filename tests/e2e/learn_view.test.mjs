// View 11: training in the page. Train a few hundred steps from the button, on desktop and phone:
// the curves fall and rise as they should, every head map is the engine's attention of the model at
// that snapshot (recomputed here through the JS API from the layer's input and parameters), a
// previous-letter head forms, training is sliced over frames, and the link reproduces the run.
// How fast it trains and how long its frames are: npm run bench's page section (targets > 20 steps/s,
// frames median ≤ 12 ms and p90 ≤ 20 ms).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, openBusy, screenshot, settle } from './browser.mjs';
import { clickPublished } from './cells.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

const openTraining = (hash, options) => openBusy(session, hash, options);

const scalars = (page) => page.evaluate(() => window.attnlab.scalars());
const plain = (m) => m && { rows: m.rows, cols: m.cols, data: Array.from(m.data) };

// Waits for `steps` steps (no deadline but the hang guard); returns the step counts seen, one read
// per animation frame.
async function trainUntil(page, steps) {
  await page.evaluate(() => { window.stepsSeen = []; });
  await page.waitForFunction((steps) => {
    const s = window.attnlab.scalars()['learn.steps'] ?? 0;
    window.stepsSeen.push(s);
    return s >= steps;
  }, steps, { polling: 'raf' });
  return page.evaluate(() => window.stepsSeen);
}

// The map drawn for layer l, head h, and the engine's forward on that layer's input and parameters.
async function drawnAndEngine(page, l, h, heads) {
  return page.evaluate(({ l, h, heads }) => {
    const a = window.attnlab;
    const m = (n) => a.matrix(`learn.L${l}.${n}`);
    const x = m('input');
    const r = a.forward({ numHeads: heads, headDim: x.cols / heads, valueHeadDim: x.cols / heads, projectInputs: true,
      projectOutput: true, useBias: true, causal: true },
    { query: x }, { wq: m('wq'), wk: m('wk'), wv: m('wv'), wo: m('wo'), bq: m('bq'), bk: m('bk'), bv: m('bv'), bo: m('bo') });
    const plain = (v) => ({ rows: v.rows, cols: v.cols, data: Array.from(v.data) });
    return { ok: r.ok, error: r.error, drawn: plain(a.matrix(`learn.W${l}.${h}`)), engine: plain(r.heads[h - 1].weights) };
  }, { l, h, heads });
}

test('Train forms a previous-letter head in slices; the maps are the engine\'s; Pause stops', async () => {
  const { page, problems } = await openTraining('#v=learn&l.task=previous&l.l=1&l.h=2');
  await page.waitForFunction(() => window.attnlab.layout()['learn.train']);
  let s = await scalars(page);
  assert.equal(s['learn.steps'], 0);
  assert.equal(s['learn.running'], 0);
  assert.ok(s['learn.held_out'] < 0.2, `untrained: ${s['learn.held_out']}`);
  await clickPublished(page, 'learn.train');
  const seen = await trainUntil(page, 300);
  await clickPublished(page, 'learn.train');  // Pause
  await settle(page);
  s = await scalars(page);
  const paused = s['learn.steps'];
  assert.equal(s['learn.running'], 0);
  await page.waitForTimeout(300);
  assert.equal((await scalars(page))['learn.steps'], paused, 'paused: no more steps');
  assert.ok(s['learn.held_out'] > 0.95, `held-out accuracy ${s['learn.held_out']}`);
  assert.ok(s['learn.loss'] < 0.1, `loss ${s['learn.loss']}`);
  assert.ok(s['learn.steps_per_second'] > 0, `the rate shown: ${s['learn.steps_per_second']} steps/s`);
  // Sliced: frames were drawn between the first step and the 300th (each frame trains for its
  // 8 ms share of the frame, whatever that buys on this machine).
  assert.ok(seen.some((k) => k > 0 && k < 300), `steps seen between frames: ${[...new Set(seen)].join(', ')}`);
  console.log(`learn: ${paused} steps, ${s['learn.steps_per_second'].toFixed(0)} steps/s, ${new Set(seen).size} step counts seen`);

  // Every head map is the engine's attention of that layer's input with that layer's weights.
  for (const h of [1, 2]) {
    const { ok, error, drawn, engine } = await drawnAndEngine(page, 1, h, 2);
    assert.equal(ok, true, error);
    assert.deepEqual(drawn, engine, `head 1.${h} drawn = engine`);
    assert.equal(drawn.rows, 16);
    for (let i = 0; i < 16; ++i) for (let j = i + 1; j < 16; ++j) assert.equal(drawn.data[i * 16 + j], 0, 'causal: no weight on later letters');
  }
  // One head looks one step back: on the probe sequence, the mean weight just below the diagonal.
  const shares = await page.evaluate(() => [1, 2].map((h) => {
    const m = window.attnlab.matrix(`learn.W1.${h}`);
    let sum = 0;
    for (let i = 1; i < 16; ++i) sum += m.data[i * 16 + i - 1];
    return sum / 15;
  }));
  assert.ok(Math.max(...shares) > 0.8, `previous-letter share ${shares}`);
  // The state follows the training: a link made now retrains to this step.
  const state = await page.evaluate(() => window.attnlab.state());
  assert.match(state, new RegExp(`l.n=${paused}(&|$)`));
  await screenshot(page, 'learn-trained');
  assert.deepEqual(problems, []);
  await page.close();
});

test('a link retrains from the seed to the same step with the same maps; Reset starts over', async () => {
  const hash = '#v=learn&l.task=copy&l.l=1&l.h=1&l.n=120';
  const runs = [];
  for (let k = 0; k < 2; ++k) {
    const { page, problems } = await openTraining(hash);
    await trainUntil(page, 120);
    await settle(page);
    const s = await scalars(page);
    assert.equal(s['learn.steps'], 120, 'stops at the link\'s step');
    runs.push({ map: plain(await page.evaluate(() => window.attnlab.matrix('learn.W1.1'))), loss: s['learn.loss'] });
    if (k === 1) {
      await page.evaluate(() => window.attnlab.setState('v=learn&l.task=copy&l.l=1&l.h=1&l.n=0'));
      await settle(page);
      assert.equal((await scalars(page))['learn.steps'], 0, 'back to initialisation');
    }
    assert.deepEqual(problems, []);
    await page.close();
  }
  assert.deepEqual(runs[0], runs[1]);
});

test('on a phone the controls fit and the maps follow training', async () => {
  const { page, problems } = await openTraining('#v=learn&l.task=previous&l.l=1&l.h=1&l.n=150', { width: 390, height: 844, touch: true });
  await trainUntil(page, 150);
  await settle(page);
  const layout = await page.evaluate(() => window.attnlab.layout());
  for (const [name, r] of Object.entries(layout)) {
    if (!name.startsWith('learn.')) continue;
    assert.ok(r.x >= 0 && r.x + r.width <= 390 + 0.5, `${name} fits the phone: ${r.x}..${r.x + r.width}`);
  }
  assert.ok(layout['learn.W1.1'], 'the head map is drawn');
  assert.ok((await scalars(page))['learn.held_out'] > 0.5);
  await screenshot(page, 'learn-phone');
  assert.deepEqual(problems, []);
  await page.close();
});
