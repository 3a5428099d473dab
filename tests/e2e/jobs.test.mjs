// Long work as jobs (lessons/job.h, web/app/job_scheduler.h): view 8's runs go to the page's Web
// Workers and come back with the bits the page's own thread gets (with workers off, and with no
// Worker at all); a worker that dies is reported and its runs finish on the page; the runs go to a
// worker from an <attn-lab> in a blog post under the strict CSP; view 11 trains in a worker with the
// page's bits, starts over on the page when its worker dies, and keeps training while another view is
// shown. Counts and bits only: how much sooner the workers finish is npm run bench's.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { newPage, openBrowser, openPage, openWithoutWorker, settle, underCsp } from './browser.mjs';
import { clickPublished } from './cells.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

const SMALL = 'v=datasize&ds.s=2&ds.n=100&ds.max=6';  // N = 16, 64; 2 seeds: 8 runs of 100 steps
const kCsp = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data: blob:";

// Presses Run in `attnlab`'s view (`canvas` at its place on the page) and waits, one read per animation
// frame, until the experiment is done: its points (the published means) and the most runs seen in
// workers at once. `during(k)` runs once when k runs are out.
async function runExperiment(page, { selector = null, during = null } = {}) {
  await page.evaluate((s) => { window.jobsUnderTest = s ? document.querySelector(s).handle.attnlab : window.attnlab; }, selector);
  if (selector) {
    const at = await page.evaluate((s) => {
      const el = document.querySelector(s);
      el.scrollIntoView({ block: 'center' });
      const r = el.querySelector('canvas').getBoundingClientRect();
      const b = el.handle.attnlab.layout()['datasize.run'];
      return { x: r.x + b.x + b.width / 2, y: r.y + b.y + b.height / 2 };
    }, selector);
    await page.mouse.click(at.x, at.y);
  } else {
    await clickPublished(page, 'datasize.run');
  }
  let most = 0, called = false, started = false;
  for (;;) {
    const s = await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(window.jobsUnderTest.scalars()))));
    most = Math.max(most, s['datasize.in_workers'] ?? 0);
    if (during && !called && s['datasize.in_workers'] > 0) {
      called = true;
      await during(s['datasize.in_workers']);
    }
    // "Run again" restarts from the frame after the press: the frame of the press still shows the
    // last run done, so done counts only once the new run was seen under way.
    started ||= s['datasize.running'] === 1 || s['datasize.progress'] < 1;
    if (started && s['datasize.progress'] >= 1 && s['datasize.running'] === 0) break;
  }
  const s = await page.evaluate(() => window.jobsUnderTest.scalars());
  const points = Object.fromEntries(Object.entries(s).filter(([k]) => /^datasize\.(transformer|cnn)\.\d+$/.test(k)));
  return { points, most };
}

let reference;  // the points computed on the page's own thread (#workers=off)
async function referencePoints() {
  if (reference) return reference;
  const { page, problems } = await openPage(session, { hash: `#workers=off&${SMALL}`, waitForVectors: false });
  const { points, most } = await runExperiment(page);
  assert.equal(most, 0, 'workers=off: no run leaves the page');
  assert.equal(Object.keys(points).length, 4);
  assert.deepEqual(problems, []);
  await page.close();
  reference = points;
  return points;
}

test('the runs in Web Workers give the bits the page\'s own thread gives, with or without a Worker', async () => {
  const want = await referencePoints();
  const { page, problems } = await openPage(session, { hash: `#${SMALL}`, waitForVectors: false });
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  const inWorkers = await runExperiment(page);
  assert.ok(inWorkers.most >= 1 && inWorkers.most <= Math.max(1, Math.min(8, cores - 1)),
            `runs out at once: ${inWorkers.most} (${cores} cores)`);
  assert.deepEqual(inWorkers.points, want);
  const texts = await page.evaluate(() => window.attnlab.texts());
  assert.ok(!texts.some((t) => t.includes('Web Worker stopped')), texts.join('\n'));
  assert.deepEqual(problems, []);
  await page.close();

  const alone = await openWithoutWorker(session, `#${SMALL}`);
  await settle(alone.page);
  const noWorker = await runExperiment(alone.page);
  assert.equal(noWorker.most, 0);
  assert.deepEqual(noWorker.points, want);
  assert.deepEqual(alone.problems, []);
  await alone.page.close();
});

test('a worker that dies is reported, and its runs finish on the page with the same bits', async () => {
  const want = await referencePoints();
  const { page, problems } = await openPage(session, { hash: `#${SMALL}`, waitForVectors: false });
  const { points } = await runExperiment(page, { during: () => page.evaluate(() => window.attnlab.killWorkerForTesting()) });
  assert.deepEqual(points, want);
  const texts = await page.evaluate(() => window.attnlab.texts());
  assert.ok(texts.some((t) => t.includes('the Web Worker stopped (terminated for testing)') && t.includes("the page's thread")),
            texts.join('\n'));
  // Run again: everything on the page now, the same numbers.
  const again = await runExperiment(page);
  assert.equal(again.most, 0);
  assert.deepEqual(again.points, want);
  assert.deepEqual(problems, []);
  await page.close();
});

// Also the press of a button in an <attn-lab> away from the page's corner: the release used to be
// read in the window's coordinates, off the button, and no button in such an element could be pressed.
test('an <attn-lab> in a blog post under the strict CSP runs its experiment in a worker', async () => {
  const want = await referencePoints();
  const { page, problems } = await underCsp(await newPage(session.browser, { viewport: { width: 1000, height: 900 } }), kCsp);
  await page.goto(`${session.url}examples/blog-post.html`);
  await page.evaluate((state) => {
    const el = document.createElement('attn-lab');
    el.id = 'embed-datasize';
    el.setAttribute('view', 'datasize');
    el.setAttribute('state', state);
    document.querySelector('#embed-heads').after(el);
  }, SMALL.replace('v=datasize&', ''));
  // The embeds above grow as they start and push it down: scrolled to until it has started and rests.
  await page.waitForFunction(() => {
    const el = document.querySelector('#embed-datasize');
    el.scrollIntoView({ block: 'center' });
    return el.handle?.attnlab.idle() && el.handle.attnlab.layout()['datasize.run'];
  }, null, { polling: 300 });
  await page.waitForTimeout(300);
  const { points, most } = await runExperiment(page, { selector: '#embed-datasize' });
  assert.ok(most >= 1, 'the runs went to a worker');
  assert.deepEqual(points, want);
  assert.deepEqual(problems, []);
  await page.close();
});

test('view 11 keeps training while another view is shown, and the link follows it', async () => {
  const { page, problems } = await openPage(session, { hash: '#v=learn', waitForVectors: false });
  await clickPublished(page, 'learn.train');
  await page.waitForFunction(() => window.attnlab.scalars()['learn.steps'] >= 5);
  await page.evaluate(() => window.attnlab.setState('v=masks'));
  const stepOf = (state) => Number((state.match(/(?:^|&)l\.n=(\d+)/) || [])[1] ?? 0);
  const left = stepOf(await page.evaluate(() => window.attnlab.state()));
  await page.waitForFunction((from) => {
    const m = window.attnlab.state().match(/(?:^|&)l\.n=(\d+)/);
    return window.attnlab.state().startsWith('v=masks') && m && Number(m[1]) >= from + 20;
  }, left);
  assert.equal(await page.evaluate(() => window.attnlab.scalars()['learn.steps']), undefined, 'view 11 is not drawn');
  await page.evaluate(() => window.attnlab.setState('v=learn'));
  await page.waitForFunction(() => window.attnlab.scalars()['learn.steps'] > 0);
  const s = await page.evaluate(() => window.attnlab.scalars());
  assert.ok(s['learn.steps'] >= left + 20, `step ${s['learn.steps']}, left at ${left}`);
  assert.equal(s['learn.running'], 1, 'still training');
  assert.deepEqual(problems, []);
  await page.close();
});

// View 11 replaying a link to step 200: what it draws then (maps, loss, held-out accuracy), and
// whether the training was seen in a worker. `during(page)` runs once it is.
async function learnTo200(hash, during = null) {
  const { page, problems } = await openPage(session, { hash: `#${hash}${hash ? '&' : ''}v=learn&l.n=200`, waitForVectors: false });
  let inWorker = 0, called = false;
  for (;;) {
    const s = await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(window.attnlab.scalars()))));
    inWorker = Math.max(inWorker, s['learn.in_worker'] ?? 0);
    if (during && !called && s['learn.in_worker'] === 1 && s['learn.steps'] >= 30) {
      called = true;
      await during(page);
    }
    if (s['learn.steps'] === 200 && s['learn.running'] === 0) break;
  }
  await settle(page);
  const drawn = await page.evaluate(() => {
    const a = window.attnlab, s = a.scalars();
    return { w11: Array.from(a.matrix('learn.W1.1').data), loss: s['learn.loss'], heldOut: s['learn.held_out'],
             curve: Array.from(a.matrix('learn.loss.loss').data), snapshot: s['learn.snapshot_step'] };
  });
  const texts = await page.evaluate(() => window.attnlab.texts());
  assert.deepEqual(problems, []);
  await page.close();
  return { drawn, inWorker, texts };
}

test('view 11 trains in a worker with the page\'s bits, and starts over on the page when its worker dies', async () => {
  const here = await learnTo200('workers=off');
  assert.equal(here.inWorker, 0);
  const inWorker = await learnTo200('');
  assert.equal(inWorker.inWorker, 1, 'trained in a worker');
  assert.deepEqual(inWorker.drawn, here.drawn);
  const died = await learnTo200('', (page) => page.evaluate(() => window.attnlab.killWorkerForTesting()));
  assert.deepEqual(died.drawn, here.drawn);
  assert.ok(died.texts.some((t) => t.includes('the Web Worker stopped (terminated for testing)') && t.includes("the page's thread")),
            died.texts.join('\n'));
});
