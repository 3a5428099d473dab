// View 8: a CNN against self-attention as the training set grows. Run the default experiment from its
// button: it ends within a minute, the frames stay short, the curves cross where the engine's
// runner says (the CNN ahead at 16 sequences, the transformer from 256), the table and the sentence
// are those numbers, and the link keeps the settings. View 7 links here.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, openPage, screenshot, settle } from './browser.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

// Clicks a published control, scrolling the page to it first when it is below the fold.
async function click(page, name) {
  let r = (await page.evaluate(() => window.attnlab.layout()))[name];
  assert.ok(r, `${name} is laid out`);
  const height = page.viewportSize().height;
  if (r.y + r.height > height) {
    await page.mouse.move(10, height / 2);
    await page.mouse.wheel(0, r.y - height / 2);
    await settle(page);
    r = (await page.evaluate(() => window.attnlab.layout()))[name];
  }
  await page.mouse.click(r.x + r.width / 2, r.y + r.height / 2);
}

test('the default experiment runs in under a minute and the curves cross', async () => {
  const { page, problems } = await openPage(session, { hash: '#v=cnn', waitForVectors: false });
  await click(page, 'cnn.why');  // view 7's "Why not always attention?" leads here
  await settle(page);
  assert.equal(await page.evaluate(() => window.attnlab.state()), 'v=datasize');
  await click(page, 'datasize.run');
  const start = Date.now();
  const frames = [];
  for (;;) {
    const { p, ms } = await page.evaluate(() => ({ p: window.attnlab.scalars()['datasize.progress'], ms: window.attnlab.lastFrameMs() }));
    frames.push(ms);
    if (p >= 1) break;
    assert.ok(Date.now() - start < 120000, `progress ${p} after 120 s`);
    await page.waitForTimeout(250);
  }
  const seconds = (Date.now() - start) / 1000;
  await settle(page);
  const s = await page.evaluate(() => window.attnlab.scalars());
  frames.sort((a, b) => a - b);
  const median = frames[frames.length >> 1], p90 = frames[Math.floor(frames.length * 0.9)];
  console.log(`data size: ${seconds.toFixed(1)} s; frame ms median ${median.toFixed(1)}, p90 ${p90.toFixed(1)}; ` +
              [16, 64, 256, 1024].map((n) => `${n}: ${s[`datasize.transformer.${n}`].toFixed(3)} vs ${s[`datasize.cnn.${n}`].toFixed(3)}`).join(', '));
  // The page's target is 60 s; measured 50 s here alone, 82 s beside a full build on both cores.
  assert.ok(seconds <= 90, `${seconds} s for the default experiment (target 60 s, 50% slack for a loaded machine)`);
  assert.ok(p90 <= 25, `90th percentile frame ${p90} ms`);
  // The claim, over 3 seeds: the CNN ahead with little data, the transformer with a lot.
  assert.ok(s['datasize.cnn.16'] - s['datasize.transformer.16'] > 0.2, 'CNN ahead at N = 16');
  assert.ok(s['datasize.transformer.1024'] - s['datasize.cnn.1024'] > 0.2, 'transformer ahead at N = 1024');
  assert.equal(s['datasize.crossover'], 256);
  // The plot draws those means.
  const curve = await page.evaluate(() => ({ t: Array.from(window.attnlab.matrix('datasize.curve.transformer').data),
                                             c: Array.from(window.attnlab.matrix('datasize.curve.cnn').data) }));
  assert.deepEqual(curve.t.map((v) => v.toFixed(6)), [16, 64, 256, 1024].map((n) => s[`datasize.transformer.${n}`].toFixed(6)));
  assert.deepEqual(curve.c.map((v) => v.toFixed(6)), [16, 64, 256, 1024].map((n) => s[`datasize.cnn.${n}`].toFixed(6)));
  await screenshot(page, 'datasize-done');
  assert.deepEqual(problems, []);
  await page.close();
});

test('the settings round-trip through the link; a phone shows the controls and the plot', async () => {
  const { page, problems } = await openPage(session, { hash: '#v=datasize&ds.s=2&ds.n=150&ds.max=8', width: 390, height: 844,
                                                       touch: true, waitForVectors: false });
  assert.equal(await page.evaluate(() => window.attnlab.state()), 'v=datasize&ds.s=2&ds.n=150&ds.max=8');
  await click(page, 'datasize.run');
  await page.waitForFunction(() => window.attnlab.scalars()['datasize.progress'] >= 1, null, { timeout: 60000 });
  await settle(page);
  const layout = await page.evaluate(() => window.attnlab.layout());
  assert.ok(layout['datasize.curve'].x >= 0 && layout['datasize.curve'].x + layout['datasize.curve'].width <= 390.5, 'the plot fits');
  const s = await page.evaluate(() => window.attnlab.scalars());
  assert.ok(s['datasize.cnn.16'] !== undefined && s['datasize.transformer.256'] !== undefined, 'sizes 16, 64, 256');
  assert.equal(s['datasize.cnn.1024'], undefined);
  await screenshot(page, 'datasize-phone');
  // "Run again" starts over at once, from seed 1.
  await click(page, 'datasize.run');
  await page.waitForFunction(() => window.attnlab.scalars()['datasize.running'] === 1, null, { timeout: 5000 });
  assert.ok((await page.evaluate(() => window.attnlab.scalars()))['datasize.progress'] < 1);
  assert.deepEqual(problems, []);
  await page.close();
});
