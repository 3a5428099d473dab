// The kernel settings measured off the page's thread and kept for the next load
// (web/public/mount_kernel_choice.js): a first load runs today's tiles unmeasured while a worker of its
// own probes; a later load in the same browser takes that worker's choice before anything computes (no
// probe on the page's thread) and every later load draws the same bits; an entry that does not fit is
// ignored and measured again; with workers off the page probes itself, as before, and keeps it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { newPage, openBrowser, openPage } from './browser.mjs';

const KEY = 'attnlab.kernelChoice';
const HASH = '#v=retrieval';  // its weights move with the GEMM's form of the multiply-add (3.3e-7, measured)
let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

// Opens `hash` in `context`, waits for the view (and, with waitForEntry, for a measured entry to be
// kept), and reads what the tests compare.
async function load(context, { hash = HASH, waitForEntry = false } = {}) {
  const { page, problems } = await openPage(session, { hash, context });
  // waitForEntry: true, or the entry written before the load (waits for another one).
  if (waitForEntry) {
    await page.waitForFunction(([key, before]) => {
      const text = localStorage.getItem(key);
      return text !== before && JSON.parse(text || 'null')?.choice?.candidates > 0;
    }, [KEY, waitForEntry === true ? null : waitForEntry]);
  }
  const got = await page.evaluate((key) => ({
    choice: window.attnlab.kernelChoice(),
    saved: JSON.parse(localStorage.getItem(key) || 'null'),
    version: window.attnlab.version(),
    weights: Array.from(window.attnlab.matrix('rt.weights').data),
    cross: Array.from(window.attnlab.matrix('rt.cross.W').data),
  }), KEY);
  await page.close();
  return { ...got, problems };
}

const TILING = ['kernel', 'build', 'gemmRows', 'gemmSliceKb', 'attentionRows', 'attentionKeys', 'fusedMultiplyAdd', 'gemmFusedMultiplyAdd'];
const tiling = (c) => Object.fromEntries(TILING.map((k) => [k, c[k]]));
const takenFrom = (text) => text.replace(/\(the fastest of (\d+) settings timed/, '(taken from an earlier probe: the fastest of $1 settings, timed');

test('a first load runs the defaults while a worker probes; later loads take its settings unprobed and draw the same bits', async () => {
  const context = await session.browser.newContext();
  const first = await load(context, { waitForEntry: true });
  assert.equal(first.choice.candidates, 0, 'nothing probed on the page\'s thread');
  assert.ok(first.choice.text.endsWith('(the defaults, not measured here)'), first.choice.text);
  const measured = first.saved.choice;
  assert.ok(measured.candidates > 0 && measured.probeMs > 0 && !measured.setFromElsewhere, `the worker probed: ${measured.text}`);
  assert.ok(first.saved.id.startsWith(`${first.version} | attnlab`), first.saved.id);
  const second = await load(context);
  assert.deepEqual(tiling(second.choice), tiling(measured), 'the worker\'s settings');
  assert.equal(second.choice.setFromElsewhere, true, 'not probed again');
  assert.equal(second.choice.text, takenFrom(measured.text), 'the speed view says whose they are');
  assert.deepEqual(second.saved, first.saved, 'the entry stays as it was');
  const third = await load(context);
  assert.deepEqual(third.weights, second.weights, 'the same bits at every later load');
  assert.deepEqual(third.cross, second.cross);
  assert.deepEqual([...first.problems, ...second.problems, ...third.problems], []);
  // Not asserted (no test times the machine): what the worker's warmed probe saw.
  console.log(`# the worker's probe: ${measured.text}`);
  await context.close();
});

test('a saved entry that does not fit (another version, a bad value, not JSON) is ignored and measured again', async () => {
  const context = await session.browser.newContext();
  const good = (await load(context, { waitForEntry: true })).saved;
  for (const entry of [
    JSON.stringify({ ...good, id: good.id.replace(/^[^ ]+/, '0.0.0') }),
    JSON.stringify({ ...good, choice: { ...good.choice, gemmRows: 5 } }),
    JSON.stringify({ ...good, choice: { ...good.choice, probeMs: -1 } }),
    '{not json',
  ]) {
    const page = await newPage(context, {});
    await page.goto(`${session.url}index.html#v=masks`);  // any page of the origin, to write its storage
    await page.evaluate(([key, value]) => localStorage.setItem(key, value), [KEY, entry]);
    await page.close();
    const again = await load(context, { waitForEntry: entry });
    assert.ok(again.choice.text.endsWith('(the defaults, not measured here)'), `${entry}: ${again.choice.text}`);
    assert.equal(again.saved.id, good.id, 'replaced by a fitting entry');
    assert.deepEqual(again.problems, []);
  }
  await context.close();
});

test('with workers off the page probes on its own thread, as before, and keeps that', async () => {
  const context = await session.browser.newContext();
  const first = await load(context, { hash: `${HASH}&workers=off`, waitForEntry: true });
  assert.ok(first.choice.candidates > 0 && !first.choice.setFromElsewhere, first.choice.text);
  assert.deepEqual(tiling(first.saved.choice), tiling(first.choice));
  const second = await load(context, { hash: `${HASH}&workers=off` });
  assert.equal(second.choice.text, takenFrom(first.choice.text));
  assert.deepEqual(second.weights, first.weights, 'the same bits as the load that measured');
  assert.deepEqual([...first.problems, ...second.problems], []);
  await context.close();
});
