// View 8: a CNN against self-attention as the training set grows. View 7 links here; a small
// experiment (N = 16 and 64, one seed, 100 steps: the state says so) runs from the Run button in
// slices, one per frame, and the page shows what its runner computed: the table's numbers are counts
// over the held-out positions, the plot draws them, the crossover and the sentence follow from them,
// and Run again gives the same numbers (every run is seeded). The link keeps the settings.
// The default experiment's claim (the CNN ahead at 16 sequences, the transformer at 1024, crossing
// at 256 over 3 seeds) is asserted natively, with the same runner and configuration:
// DataSizeView.TheDefaultExperimentCrossesAt256 (tests/lessons/data_size_view_test.cpp). How long it
// takes in the page and how long its frames are: npm run bench's page section.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, openPage, screenshot, settle } from './browser.mjs';
import { clickPublished as click } from './cells.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

const SMALL = 'v=datasize&ds.s=1&ds.n=100&ds.max=6';
const SIZES = [16, 64];
const POSITIONS = 256 * 14;  // held-out positions scored per run (256 sequences, lessons::DataSizeConfigFor)

// Waits for the experiment to finish; returns every progress value seen, one read per animation frame.
async function runToTheEnd(page) {
  await page.evaluate(() => { window.progressSeen = []; });
  await page.waitForFunction(() => {
    const p = window.attnlab.scalars()['datasize.progress'];
    window.progressSeen.push(p);
    return p >= 1;
  }, null, { polling: 'raf' });
  await settle(page);
  return page.evaluate(() => window.progressSeen);
}

// attn::train::Crossover: the smallest N from which the transformer stays ahead up to the largest; 0: never.
function crossover(s) {
  let from = 0;
  for (const n of [...SIZES].reverse()) {
    if (!(s[`datasize.transformer.${n}`] > s[`datasize.cnn.${n}`])) break;
    from = n;
  }
  return from;
}

test('a small experiment runs in slices and the page shows what its runner computed', async () => {
  const { page, problems } = await openPage(session, { hash: '#v=cnn', waitForVectors: false });
  await click(page, 'cnn.why');  // view 7's "Why not always attention?" leads here
  await settle(page);
  assert.equal(await page.evaluate(() => window.attnlab.state()), 'v=datasize');
  await page.evaluate((s) => window.attnlab.setState(s), SMALL);
  await settle(page);
  assert.equal(await page.evaluate(() => window.attnlab.state()), SMALL);
  await click(page, 'datasize.run');
  const seen = await runToTheEnd(page);
  // Sliced: frames were drawn while the experiment was part done (400 steps, never more in one
  // frame than its 12 ms share of the frame).
  assert.ok(seen.some((p) => p > 0 && p < 1), `progress seen between frames: ${seen.join(', ')}`);
  const s = await page.evaluate(() => window.attnlab.scalars());
  assert.equal(s['datasize.running'], 0);
  assert.equal(s['datasize.transformer.256'], undefined, 'only N = 16 and 64');
  for (const model of ['transformer', 'cnn']) {
    for (const n of SIZES) {
      const a = s[`datasize.${model}.${n}`];
      assert.ok(a >= 0 && a <= 1, `${model} at N = ${n}: ${a}`);
      // One seed: the mean is its accuracy, a count of right answers over the positions scored.
      assert.ok(Math.abs(a * POSITIONS - Math.round(a * POSITIONS)) < 1e-3, `${model} at N = ${n}: ${a} · ${POSITIONS}`);
    }
  }
  assert.equal(s['datasize.crossover'], crossover(s));
  // The plot draws those means.
  const curve = await page.evaluate(() => ({ t: Array.from(window.attnlab.matrix('datasize.curve.transformer').data),
                                             c: Array.from(window.attnlab.matrix('datasize.curve.cnn').data) }));
  assert.deepEqual(curve.t.map((v) => v.toFixed(6)), SIZES.map((n) => s[`datasize.transformer.${n}`].toFixed(6)));
  assert.deepEqual(curve.c.map((v) => v.toFixed(6)), SIZES.map((n) => s[`datasize.cnn.${n}`].toFixed(6)));
  // The sentence (what a screen reader hears) says those numbers, to two decimals.
  await page.waitForFunction(() => document.querySelector('.attnlab-live').textContent.startsWith('Data size: '));
  const sentence = await page.evaluate(() => document.querySelector('.attnlab-live').textContent);
  const [t16, c16, t64, c64] = ['transformer.16', 'cnn.16', 'transformer.64', 'cnn.64'].map((k) => s[`datasize.${k}`]);
  const said = (sentence.match(/\d\.\d\d/g) ?? []).map(Number);
  const want = c16 > t16 && s['datasize.crossover'] > 0 ? [c16, t16, t64, c64] : [t16, c16, t64, c64];
  assert.equal(said.length, 4, sentence);
  said.forEach((x, k) => assert.ok(Math.abs(x - want[k]) <= 0.005 + 1e-9, `${sentence}: ${x} for ${want[k]}`));
  await screenshot(page, 'datasize-done');
  // Run again: the same numbers, every run being seeded.
  await click(page, 'datasize.run');
  await page.waitForFunction(() => window.attnlab.scalars()['datasize.running'] === 1);
  await runToTheEnd(page);
  const again = await page.evaluate(() => window.attnlab.scalars());
  for (const model of ['transformer', 'cnn'])
    for (const n of SIZES) assert.equal(again[`datasize.${model}.${n}`], s[`datasize.${model}.${n}`], `${model} at N = ${n}`);
  assert.deepEqual(problems, []);
  await page.close();
});

test('the settings round-trip through the link; a phone shows the controls and the plot', async () => {
  const { page, problems } = await openPage(session, { hash: '#v=datasize&ds.s=2&ds.n=150&ds.max=8', width: 390, height: 844,
                                                       touch: true, waitForVectors: false });
  assert.equal(await page.evaluate(() => window.attnlab.state()), 'v=datasize&ds.s=2&ds.n=150&ds.max=8');
  await click(page, 'datasize.run');
  await page.waitForFunction(() => window.attnlab.scalars()['datasize.progress'] >= 1);
  await settle(page);
  const layout = await page.evaluate(() => window.attnlab.layout());
  assert.ok(layout['datasize.curve'].x >= 0 && layout['datasize.curve'].x + layout['datasize.curve'].width <= 390.5, 'the plot fits');
  const s = await page.evaluate(() => window.attnlab.scalars());
  assert.ok(s['datasize.cnn.16'] !== undefined && s['datasize.transformer.256'] !== undefined, 'sizes 16, 64, 256');
  assert.equal(s['datasize.cnn.1024'], undefined);
  await screenshot(page, 'datasize-phone');
  // "Run again" starts over at once, from seed 1.
  await click(page, 'datasize.run');
  await page.waitForFunction(() => window.attnlab.scalars()['datasize.running'] === 1);
  assert.ok((await page.evaluate(() => window.attnlab.scalars()))['datasize.progress'] < 1);
  assert.deepEqual(problems, []);
  await page.close();
});
