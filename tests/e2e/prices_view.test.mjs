// View 13: smoothing a noisy price series. The real prices are the asset's, the moving average is a
// box average, the attention smoother is forward() on query/key built from (value, time) features.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openBrowser, openPage, screenshot, settle, siteDir } from './browser.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

const data = (m) => Array.from(Object.values(m.data));
const get = (page, names) => page.evaluate((ns) => Object.fromEntries(ns.map((n) => [n, window.attnlab.matrix(n)])), names);

async function openPrices(options = {}, state = '') {
  const opened = await openPage(session, options);
  await opened.page.evaluate((s) => window.attnlab.setState(`v=prices${s}`), state);
  await opened.page.waitForFunction(() => window.attnlab.matrix('prices.plot.real') !== null);
  await settle(opened.page);
  return opened;
}

async function csvSeries(symbol) {
  const text = await readFile(join(siteDir, 'prices.csv'), 'utf8');
  return text.trim().split('\n').slice(1).map((l) => l.split(',')).filter((f) => f[0] === symbol).map((f) => Math.fround(Number(f[2])));
}

test('real, noisy, moving average and attention smoother are the engine\'s, and right', async () => {
  // p.sq=0: the query's value is the noisy price itself, so the features below are the whole formula.
  const { page, problems } = await openPrices({}, '&p.s=1&p.n=0.2&p.sd=5&p.w=3&p.vw=0.8&p.tw=2.5&p.t=0.7&p.sq=0');
  const m = await get(page, ['prices.plot.real', 'prices.plot.noisy', 'prices.plot.average', 'prices.plot.attention', 'prices.weights']);
  const real = data(m['prices.plot.real']), noisy = data(m['prices.plot.noisy']);
  assert.deepEqual(real, await csvSeries('AMZN'), 'the second series of the asset is AMZN, drawn as it is');
  const n = real.length;
  assert.ok(noisy.some((v, i) => Math.abs(v - real[i]) > 0.05 * real[i]), 'noise was added');

  // Moving average over 7 months, windows clipped at the ends average only what they see.
  const average = data(m['prices.plot.average']);
  for (let i = 0; i < n; ++i) {
    let sum = 0, count = 0;
    for (let j = Math.max(0, i - 3); j <= Math.min(n - 1, i + 3); ++j) sum += noisy[j], count++;
    assert.ok(Math.abs(average[i] - sum / count) < 1e-4 * (1 + sum / count), `average ${i}: ${average[i]} vs ${sum / count}`);
  }

  // Attention: features f = [0.8 (x − mean)/sd, 2.5 (i − centre)/12]; q = [2f, 1], k = [f, −|f|²];
  // forward() with the dot product, scale 1, τ = 0.7 and the noisy prices as values.
  const mean = noisy.reduce((a, b) => a + b) / n;
  const sd = Math.sqrt(noisy.reduce((a, b) => a + (b - mean) ** 2, 0) / n);
  const f = noisy.map((v, i) => [0.8 * (v - mean) / sd, 2.5 * (i - (n - 1) / 2) / 12]);
  const query = f.flatMap(([a, b]) => [2 * a, 2 * b, 1]);
  const key = f.flatMap(([a, b]) => [a, b, -(a * a + b * b)]);
  const r = await page.evaluate(({ query, key, noisy, n }) => window.attnlab.forward({ score: 'dot', temperature: 0.7 },
    { query: { rows: n, cols: 3, data: query }, key: { rows: n, cols: 3, data: key }, value: { rows: n, cols: 1, data: noisy } }),
  { query, key, noisy, n });
  assert.equal(r.ok, true, r.message);
  const smoothed = data(m['prices.plot.attention']), w = data(m['prices.weights']);
  for (let i = 0; i < n; ++i) assert.ok(Math.abs(smoothed[i] - r.output.data[i]) < 1e-3 * (1 + Math.abs(smoothed[i])), `smoothed ${i}`);
  // And the weights are the Gaussian kernel softmax(−|fᵢ − fⱼ|²/τ), in float64.
  for (let i = 0; i < n; i += 7) {
    const e = f.map((g) => Math.exp(-((g[0] - f[i][0]) ** 2 + (g[1] - f[i][1]) ** 2) / 0.7));
    const total = e.reduce((a, b) => a + b);
    e.forEach((v, j) => assert.ok(Math.abs(w[i * n + j] - v / total) < 2e-4, `w[${i}][${j}]: ${w[i * n + j]} vs ${v / total}`));
  }
  // The attention smoother is smoother than the noise: closer to the real prices.
  const err = (s) => Math.sqrt(s.reduce((a, v, i) => a + (v - real[i]) ** 2, 0) / n);
  assert.ok(err(smoothed) < err(noisy), `attention rms error ${err(smoothed)} vs noise ${err(noisy)}`);

  // The noise slider through the state: no noise, no change.
  await page.evaluate(() => window.attnlab.setState('p.n=0'));
  await settle(page);
  assert.deepEqual(data(await page.evaluate(() => window.attnlab.matrix('prices.plot.noisy'))), real);
  await screenshot(page, 'prices-desktop');
  assert.deepEqual(problems, []);
  await page.close();
});

test('hovering a month shows whom it attends to; a click keeps it; hovering does not re-run the engine', async () => {
  const { page, problems } = await openPrices();
  const rect = (await page.evaluate(() => window.attnlab.layout()))['prices.plot'];
  const runs = await page.evaluate(() => window.attnlab.view().engineRuns);
  await page.mouse.move(rect.x + rect.width * 0.7, rect.y + rect.height / 2);
  await settle(page);
  const s = await page.evaluate(() => window.attnlab.scalars());
  const k = s['prices.plot.hovered'];
  const n = (await page.evaluate(() => window.attnlab.matrix('prices.plot.real'))).rows;
  assert.ok(Math.abs(k - 0.7 * (n - 1)) < 3, `hovered ${k} of ${n}`);
  assert.equal(s['prices.focus'], k);
  const m = await get(page, ['prices.focus.weights', 'prices.weights']);
  assert.deepEqual(data(m['prices.focus.weights']), data(m['prices.weights']).slice(k * n, k * n + n));
  assert.equal(await page.evaluate(() => window.attnlab.view().engineRuns), runs, 'hovering re-runs nothing');
  await screenshot(page, 'prices-hover');
  await page.mouse.click(rect.x + rect.width * 0.7, rect.y + rect.height / 2);
  await settle(page);
  assert.match(await page.evaluate(() => window.attnlab.state()), new RegExp(`p\\.i=${k}`));
  await page.mouse.move(2, 2);
  await settle(page);
  assert.equal((await page.evaluate(() => window.attnlab.scalars()))['prices.focus'], k, 'the clicked month stays');

  // A broken file is refused with a status; the last good picture stays, never NaN.
  assert.match(await page.evaluate(() => window.attnlab.loadPrices('symbol,date,price\nX,2000-01-01,oops\n')), /parse_error/);
  await settle(page);
  const after = await get(page, ['prices.plot.real', 'prices.plot.attention']);
  assert.equal(after['prices.plot.real'].rows, n);
  assert.ok(data(after['prices.plot.attention']).every(Number.isFinite));
  assert.deepEqual(problems, []);
  await page.close();
});

test('on a phone (380 px, devicePixelRatio 2): it fits, and a tap on the plot shows the weights', async () => {
  const { page, problems } = await openPrices({ width: 380, height: 800, dpr: 2, touch: true });
  const rect = (await page.evaluate(() => window.attnlab.layout()))['prices.plot'];
  assert.ok(rect.x >= 0 && rect.x + rect.width <= 380, `plot fits: ${JSON.stringify(rect)}`);
  assert.ok(rect.width > 250, `plot is ${rect.width} px wide`);
  if (rect.y + rect.height > 780) {  // scroll it into view with a drag on the text above
    const cdp = await page.context().newCDPSession(page);
    const touch = (type, y) => cdp.send('Input.dispatchTouchEvent', { type, touchPoints: type === 'touchEnd' ? [] : [{ x: 200, y }] });
    await touch('touchStart', 700);
    for (let y = 680; y >= 500; y -= 20) await touch('touchMove', y);
    await touch('touchEnd');
    await settle(page);
  }
  const r = (await page.evaluate(() => window.attnlab.layout()))['prices.plot'];
  await page.touchscreen.tap(r.x + r.width * 0.3, r.y + r.height / 2);
  await settle(page);
  const focus = (await page.evaluate(() => window.attnlab.scalars()))['prices.focus'];
  assert.ok(focus >= 0, `a month is focused (${focus})`);
  await screenshot(page, 'prices-phone');
  assert.deepEqual(problems, []);
  await page.close();
});

test('the errors against the real price are shown, equal a float64 recomputation, and tell the lesson', async () => {
  const { page, problems } = await openPrices({}, '&p.s=5&p.n=0.1&p.vw=4');
  const rmse = (a, b) => Math.sqrt(a.reduce((acc, v, i) => acc + (v - b[i]) ** 2, 0) / a.length);
  const read = async () => {
    const m = await get(page, ['prices.plot.real', 'prices.plot.noisy', 'prices.plot.average', 'prices.plot.attention']);
    const s = await page.evaluate(() => window.attnlab.scalars());
    const real = data(m['prices.plot.real']);
    return {
      shown: { noisy: s['prices.rmse.noisy'], average: s['prices.rmse.average'], attention: s['prices.rmse.attention'] },
      ours: { noisy: rmse(data(m['prices.plot.noisy']), real), average: rmse(data(m['prices.plot.average']), real),
              attention: rmse(data(m['prices.plot.attention']), real) },
    };
  };
  const averaged = await read();
  for (const k of ['noisy', 'average', 'attention'])
    assert.ok(Math.abs(averaged.shown[k] - averaged.ours[k]) <= 1e-9 * averaged.ours[k], `${k}: ${averaged.shown[k]} vs ${averaged.ours[k]}`);
  assert.ok(averaged.shown.attention < 0.65 * averaged.shown.noisy, `the smoother removes noise: ${JSON.stringify(averaged.shown)}`);
  // The text's claim: with the noisy price as the query, a high value weight keeps the noise.
  await page.evaluate(() => window.attnlab.setState('v=prices&p.s=5&p.n=0.1&p.vw=4&p.sq=0'));
  await settle(page);
  const own = await read();
  assert.ok(own.shown.attention > 0.8 * own.shown.noisy, `each noisy month matches itself: ${JSON.stringify(own.shown)}`);
  assert.deepEqual(problems, []);
  await page.close();
});
