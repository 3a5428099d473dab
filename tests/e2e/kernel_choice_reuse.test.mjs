// The page keeps its measured kernel settings for the next load (web/public/mount_kernel_choice.js):
// the first load probes and saves, a later load in the same browser takes them before anything
// computes (no probe: its first frame is not held up by it) and so draws the same bits; an entry that
// does not fit — another engine version, or not JSON — is ignored, probed over and replaced.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { newPage, openBrowser, settle } from './browser.mjs';

const KEY = 'attnlab.kernelChoice';
const HASH = '#v=retrieval';  // its weights move with the GEMM's form of the multiply-add (3.3e-7, measured)
let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

async function load(context) {
  const page = await newPage(context, {});
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  const start = Date.now();
  await page.goto(session.url + HASH);
  await page.waitForSelector('html[data-ready=true]');
  await page.waitForFunction(() => window.attnlab.view().wordVectorsLoaded);
  await settle(page);
  const settledMs = Date.now() - start;
  const got = await page.evaluate((key) => ({
    choice: window.attnlab.kernelChoice(),
    saved: JSON.parse(localStorage.getItem(key) || 'null'),
    version: window.attnlab.version(),
    weights: Array.from(window.attnlab.matrix('rt.weights').data),
    cross: Array.from(window.attnlab.matrix('rt.cross.W').data),
  }), KEY);
  await page.close();
  return { ...got, problems, settledMs };
}

const TILING = ['kernel', 'build', 'gemmRows', 'gemmSliceKb', 'attentionRows', 'attentionKeys', 'fusedMultiplyAdd', 'gemmFusedMultiplyAdd'];
const tiling = (c) => Object.fromEntries(TILING.map((k) => [k, c[k]]));

test('the first load probes and saves its settings; the next load takes them unprobed and draws the same bits', async () => {
  const context = await session.browser.newContext();
  const first = await load(context);
  assert.ok(first.choice.candidates > 0 && first.choice.probeMs > 0, `the first load probed: ${first.choice.text}`);
  assert.ok(first.saved, 'saved for the next load');
  assert.deepEqual(tiling(first.saved.choice), tiling(first.choice));
  assert.ok(first.saved.id.startsWith(`${first.version} | attnlab`), first.saved.id);
  const second = await load(context);
  assert.deepEqual(tiling(second.choice), tiling(first.choice), 'the saved settings');
  assert.equal(first.choice.setFromElsewhere, false, 'the first load\'s own probe');
  assert.equal(second.choice.setFromElsewhere, true, 'not probed again');
  // The speed view's sentence says the first load's probe, as taken from it.
  assert.equal(second.choice.text, first.choice.text.replace(/\(the fastest of (\d+) settings timed/,
                                                             '(taken from an earlier probe: the fastest of $1 settings, timed'));
  assert.notEqual(second.choice.text, first.choice.text);
  assert.deepEqual(second.weights, first.weights, 'the same bits as the load that measured');
  assert.deepEqual(second.cross, first.cross);
  assert.deepEqual(second.saved, first.saved, 'the entry stays as it was');
  assert.deepEqual([...first.problems, ...second.problems], []);
  // Not asserted (no test times the machine); the second load also has the HTTP cache warm.
  console.log(`# from navigation to the view settled: ${first.settledMs} ms probing (${first.choice.probeMs.toFixed(0)} ms of probe), ` +
              `${second.settledMs} ms with the saved settings`);
  await context.close();
});

test('a saved entry that does not fit (another version, a bad value, not JSON) is ignored, probed over and replaced', async () => {
  for (const entry of [
    (saved) => JSON.stringify({ ...saved, id: saved.id.replace(/^[^ ]+/, '0.0.0') }),
    (saved) => JSON.stringify({ ...saved, choice: { ...saved.choice, gemmRows: 5 } }),
    (saved) => JSON.stringify({ ...saved, choice: { ...saved.choice, probeMs: -1 } }),
    () => '{not json',
  ]) {
    const context = await session.browser.newContext();
    const first = await load(context);
    const page = await newPage(context, {});
    await page.goto(`${session.url}index.html#v=masks`);  // any page of the origin, to write its storage
    await page.evaluate(([key, value]) => localStorage.setItem(key, value), [KEY, entry(first.saved)]);
    await page.close();
    const again = await load(context);
    assert.ok(again.choice.candidates > 0, `probed again: ${again.choice.text}`);
    assert.equal(again.saved.id, first.saved.id, 'replaced by a fitting entry');
    assert.deepEqual(tiling(again.saved.choice), tiling(again.choice));
    assert.deepEqual(again.problems, []);
    await context.close();
  }
});
