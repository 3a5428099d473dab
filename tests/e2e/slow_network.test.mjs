// On a slow network (1.6 Mbit/s, 300 ms) the 1.5 MB word vectors take seconds: the word views draw
// at once with hashed stand-in vectors (labelled, with a progress bar), then switch to GloVe when it
// arrives, keeping the reader's place.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { newPage, openBrowser, screenshot, settle } from './browser.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session.close(); });

test('slow network: hashed vectors at once with progress, GloVe when it arrives, same state', async () => {
  const page = await newPage(session.browser, { viewport: { width: 1200, height: 800 } });
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions',
    { offline: false, latency: 300, downloadThroughput: 1.6e6 / 8, uploadThroughput: 0.75e6 / 8 });
  const started = Date.now();
  await page.goto(session.url);
  await page.waitForSelector('html[data-ready=true]');
  await page.evaluate(() => window.attnlab.setState('w.t=0.5'));  // the reader's place
  await settle(page);
  const early = await page.evaluate(() => ({ view: window.attnlab.view(), w: window.attnlab.matrix('words.W'),
                                               progress: window.attnlab.scalars()['sentence.vectors_progress'] }));
  assert.equal(early.view.wordVectorsLoaded, false, 'the asset is still on its way');
  assert.ok(early.w && early.w.rows === 12, 'the weights are drawn before GloVe arrives');
  assert.equal(early.view.glove, false, 'with hashed stand-ins');
  assert.ok(early.progress >= 0 && early.progress < 1, `progress shown: ${early.progress}`);
  const firstDraw = Date.now() - started;
  await screenshot(page, 'slow-network-hashed');
  await page.waitForFunction(() => window.attnlab.view().wordVectorsLoaded);
  await settle(page);
  const late = await page.evaluate(() => ({ view: window.attnlab.view(), state: window.attnlab.state() }));
  assert.equal(late.view.glove, true);
  assert.equal(late.view.embeddings.cols, 100);
  assert.equal(late.state, 'w.t=0.5', 'the reader keeps their place');
  console.log(`slow network: weights drawn after ${firstDraw} ms, GloVe after ${Date.now() - started} ms`);
  assert.deepEqual(problems, []);
  await page.close();
});
