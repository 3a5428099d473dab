// The address bar holds the state: a link reproduces what the reader sees, and a hostile link
// never breaks the page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { newPage, openBrowser, openPage, settle } from './browser.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

const hashOf = (page) => page.evaluate(() => location.hash);

test('views are named in the hash, changes reach the address bar without history entries, a reload gives them back', async () => {
  const { page, problems } = await openPage(session, { hash: '#v=masks&m.c=0', waitForVectors: false });
  await page.waitForFunction(() => window.attnlab.view().wordVectorsLoaded);
  await settle(page);
  assert.equal(await page.evaluate(() => window.attnlab.state()), 'v=masks&m.c=0');
  assert.equal((await page.evaluate(() => window.attnlab.view())).view, 5);
  const historyLength = await page.evaluate(() => history.length);
  // A few changes in a row, as a slider would make them: the hash follows once they stop.
  for (const w of [1, 2, 3]) await page.evaluate((w) => window.attnlabHandle.setState(`v=masks&m.c=0&m.wl=${w}`), w);
  await settle(page);
  await page.waitForFunction(() => location.hash === '#v=masks&m.c=0&m.wl=3');
  assert.equal(await page.evaluate(() => history.length), historyLength, 'replaceState: no history entry per change');
  await page.reload();
  await page.waitForSelector('html[data-ready=true]');
  await settle(page);
  assert.equal(await page.evaluate(() => window.attnlab.state()), 'v=masks&m.c=0&m.wl=3');
  assert.deepEqual(problems, []);
  await page.close();
});

test('old numbered links still open their view; a hash typed by the reader applies live', async () => {
  const { page, problems } = await openPage(session, { hash: '#v=6', waitForVectors: false });
  await settle(page);
  assert.equal(await page.evaluate(() => window.attnlab.state()), 'v=cnn', 'the 0-based v=6 of old links is the CNN view');
  await page.evaluate(() => { location.hash = '#v=heads&h.n=2'; });
  await page.waitForFunction(() => window.attnlab.state() === 'v=heads&h.n=2&h.tr=0');
  // The reader types the next hash once the address bar shows this state (the page writes it 250 ms
  // after a change: a hash typed before that is overwritten, which a slow CPU made this test do).
  await page.waitForFunction(() => location.hash === '#v=heads&h.n=2&h.tr=0');
  // Back to the defaults for every field the new hash does not name.
  await page.evaluate(() => { location.hash = '#v=order'; });
  await page.waitForFunction(() => window.attnlab.state() === 'v=order');
  assert.deepEqual(problems, []);
  await page.close();
});

test('a malformed or hostile hash: unknown keys ignored, values clamped, a note says so, nothing breaks', async () => {
  const hostile = '#v=heads&zz=1&h.n=999&w.t=nan&%3Cscript%3E=alert(1)&&&=&s=' + 'a'.repeat(600) + '&h.t=0.5';
  const { page, problems } = await openPage(session, { hash: hostile, waitForVectors: false });
  await settle(page);
  const state = await page.evaluate(() => window.attnlab.state());
  assert.match(state, /^v=heads/);
  assert.match(state, /h\.n=16/, 'heads clamped to the largest count');
  assert.match(state, /h\.t=0\.5/, 'the good fields apply');
  const note = await page.evaluate(() => window.attnlab.layout().link_note);
  assert.ok(note && note.height > 0 && note.y >= 0 && note.y < 200, 'a note at the top says what was ignored');
  const view = await page.evaluate(() => window.attnlab.view());
  assert.equal(view.view, 4);
  // The page still works: a heads map is drawn with finite weights.
  const w = await page.evaluate(() => Array.from(window.attnlab.matrix('heads.W0').data));
  assert.ok(w.length > 0 && w.every(Number.isFinite));
  assert.deepEqual(problems.filter((p) => !p.includes('attnlab: state')), []);
  await page.close();
});

test('Share copies a link, an iframe and an <attn-lab> that reproduce the view, its theme included', async () => {
  const context = await session.browser.newContext({ viewport: { width: 1000, height: 800 }, colorScheme: 'dark' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const page = await newPage(context);
  await page.goto(`${session.url}#theme=light&v=heads&h.n=2`);
  await page.waitForSelector('html[data-ready=true]');
  await page.waitForFunction(() => window.attnlab.idle());
  await page.click('.attnlab-share-button');
  await page.waitForFunction(() => !document.querySelector('.attnlab-share').hidden);
  const codes = await page.evaluate(() => ({
    link: document.querySelector('.attnlab-share-link').value,
    iframe: document.querySelector('.attnlab-share-iframe').value,
    element: document.querySelector('.attnlab-share-element').value,
  }));
  // The site of npm start names nothing hashed: its manifest.json gives the script itself (dist's
  // gives the pinned one: tests/e2e/readme_snippets.test.mjs).
  const script = `<script type="module" src="${session.url}attnlab-embed.js"></script>`;
  assert.equal(codes.link, `${session.url}index.html#theme=light&v=heads&h.n=2&h.tr=0`);
  assert.equal(codes.iframe, `${script}\n<iframe class="attnlab" src="${session.url}index.html#embed&amp;theme=light&amp;v=heads&amp;h.n=2&amp;h.tr=0" ` +
                             'title="attnlab: heads" loading="lazy"></iframe>');
  assert.equal(codes.element, `${script}\n<attn-lab view="heads" state="h.n=2&amp;h.tr=0" theme="light"></attn-lab>`);
  await page.click('.attnlab-share-row:first-child button');
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), codes.link);
  // The copied link reloaded gives the same state, in the same theme.
  const again = await newPage(context);
  await again.goto(codes.link);
  await again.waitForSelector('html[data-ready=true]');
  assert.equal(await again.evaluate(() => window.attnlab.state()), 'v=heads&h.n=2&h.tr=0');
  assert.equal(await again.evaluate(() => document.querySelector('.attnlab-root').classList.contains('attnlab-light')), true);
  await page.keyboard.press('Escape');
  assert.equal(await page.evaluate(() => document.querySelector('.attnlab-share').hidden), true);
  await context.close();
});

test('the keyboard reaches the controls (Tab, Space), Escape leaves; a live region says what the view shows', async () => {
  const { page, problems } = await openPage(session, { hash: '#embed&v=masks', waitForVectors: false });
  await page.waitForFunction(() => window.attnlab.view().wordVectorsLoaded);
  await settle(page);
  const canvas = await page.evaluate(() => document.querySelector('.attnlab-root canvas').getBoundingClientRect().toJSON());
  await page.mouse.click(canvas.x + canvas.width - 5, canvas.y + 5);  // an empty corner: focus, no control
  assert.equal(await page.evaluate(() => document.activeElement.tagName), 'CANVAS');
  const outlined = () => page.evaluate(() => document.querySelector('.attnlab-root').classList.contains('attnlab-keyboard'));
  assert.equal(await outlined(), false, 'a click shows no focus outline');
  await page.keyboard.press('Tab');  // the first control: "causal"
  assert.equal(await outlined(), true, 'the keyboard does');
  await page.keyboard.press('Space');
  await settle(page);
  assert.equal(await page.evaluate(() => window.attnlab.state()), 'v=masks&m.c=0', 'Space toggled the focused checkbox');
  await page.keyboard.press('Escape');
  assert.notEqual(await page.evaluate(() => document.activeElement.tagName), 'CANVAS', 'Escape gave the focus back to the page');
  // The summary for screen readers names the last word's weights, from the engine's matrix.
  await page.waitForFunction(() => document.querySelector('.attnlab-live').textContent.startsWith('Masks: weights of'));
  const live = await page.evaluate(() => document.querySelector('.attnlab-live').textContent);
  const w = await page.evaluate(() => window.attnlab.matrix('masks.W'));
  const last = Array.from(w.data).slice((w.rows - 1) * w.cols);
  const top = Math.max(...last);
  assert.match(live, new RegExp(`^Masks: weights of 'tired' \\(12\\): '\\S+' ${top.toPrecision(2).replace('.', '\\.')}`), live);
  assert.deepEqual(problems, []);
  await page.close();
});

const centre = (r) => ({ x: r.x + r.width / 2, y: r.y + r.height / 2 });

test('every figure leaves the page: ⋯ saves a PNG at 2× and copies labelled CSV; the whole view saves as one PNG', async () => {
  const context = await session.browser.newContext({ viewport: { width: 1200, height: 800 }, colorScheme: 'dark', acceptDownloads: true });
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const page = await newPage(context);
  await page.goto(`${session.url}#v=words&s=The+cat+sat`);
  await page.waitForSelector('html[data-ready=true]');
  await page.waitForFunction(() => window.attnlab.view().wordVectorsLoaded && window.attnlab.idle());
  const layout = () => page.evaluate(() => window.attnlab.layout());
  const exports = () => page.evaluate(() => window.attnlabHandle.exports.map(({ picture, ...e }) => e));
  const settled = () => page.waitForFunction(() => window.attnlab.idle());

  // CSV: the labels and the engine's weights, every value read back as the same float.
  let l = await layout();
  let p = centre(l['words.W.menu']);
  await page.mouse.click(p.x, p.y);
  await settled();
  p = centre((await layout())['words.W.menu.csv']);
  await page.mouse.click(p.x, p.y);
  await page.waitForFunction(() => window.attnlabHandle.exports.length === 1);
  const csv = (await exports())[0];
  assert.equal(csv.name, 'words.W.csv');
  const rows = csv.text.trim().split('\n').map((r) => r.split(','));
  assert.deepEqual(rows[0], ['', 'The', 'cat', 'sat']);
  const w = await page.evaluate(() => Array.from(window.attnlab.matrix('words.W').data));
  rows.slice(1).forEach((r, i) => r.slice(1).forEach((v, j) => assert.equal(Math.fround(Number(v)), w[i * 3 + j])));
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), csv.text);

  // PNG at 2×: the figure's size doubled, and its cells the colours on screen.
  l = await layout();
  p = centre(l['words.W.menu']);
  await page.mouse.click(p.x, p.y);
  await settled();
  const download = page.waitForEvent('download');
  p = centre((await layout())['words.W.menu.png']);
  await page.mouse.click(p.x, p.y);
  await page.waitForFunction(() => window.attnlabHandle.exports.length === 2);
  assert.equal((await download).suggestedFilename(), 'words.W.png');
  const figure = l['words.W.figure'], map = l['words.W'];
  const png = (await exports())[1];
  assert.equal(png.width, Math.ceil(figure.width * 2));
  assert.equal(png.height, Math.ceil(figure.height * 2));
  const cell = { x: map.x + map.width * (0.5 / 3), y: map.y + map.height * (1.5 / 3) };  // row "cat", column "The"
  const onScreen = await page.evaluate((c) => window.attnlab.readPixel(c.x, c.y), cell);
  const inPicture = await page.evaluate(({ c, f }) => Array.from(window.attnlabHandle.exports[1].picture.getContext('2d')
    .getImageData(Math.round((c.x - f.x) * 2), Math.round((c.y - f.y) * 2), 1, 1).data), { c: cell, f: figure });
  onScreen.forEach((v, k) => assert.ok(Math.abs(v - inPicture[k]) <= 2, `picture ${inPicture} vs screen ${onScreen}`));

  // A right click on a map opens the same menu.
  p = centre(l['words.X']);
  await page.mouse.click(p.x, p.y, { button: 'right' });
  await settled();
  assert.ok((await layout())['words.X.menu.png'], 'the menu opened on a right click');
  await page.keyboard.press('Escape');

  // The whole view, taller than the window, in one picture; the page stays where the reader was.
  await page.setViewportSize({ width: 1200, height: 600 });
  await page.evaluate(() => window.attnlabHandle.setState('v=words&w.sp=8'));  // the spotlight: taller than the window
  await settled();
  await page.evaluate(() => window.attnlab.scrollBy(300));
  await settled();
  const before = await page.evaluate(() => ({ scroll: window.attnlab.scalars()['page.scroll'], view: window.attnlab.layout().view,
                                              content: window.attnlab.scalars()['page.content_height'] }));
  await page.evaluate(() => window.attnlabHandle.saveViewPng());
  await page.waitForFunction(() => window.attnlabHandle.exports.length === 3);
  await settled();
  const view = (await exports())[2];
  assert.equal(view.name, 'attnlab-words.png');
  assert.ok(before.view.height > 600 + 100, `the view is ${before.view.height} px tall, the window 600`);
  assert.ok(Math.abs(view.height - 2 * before.view.height) <= 2, `${view.height} px: the whole view (${before.view.height} CSS px)`);
  assert.equal(view.width, 1200 * 2);
  assert.equal(await page.evaluate(() => window.attnlab.scalars()['page.scroll']), before.scroll, 'scroll restored');
  await context.close();
});

test('a plot copies its series as CSV', async () => {
  const context = await session.browser.newContext({ viewport: { width: 1200, height: 800 }, colorScheme: 'dark' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const page = await newPage(context);
  await page.goto(`${session.url}#v=prices`);
  await page.waitForSelector('html[data-ready=true]');
  await page.waitForFunction(() => window.attnlab.layout()['prices.plot.menu'] && window.attnlab.idle());
  let p = centre((await page.evaluate(() => window.attnlab.layout()))['prices.plot.menu']);
  await page.mouse.click(p.x, p.y);
  await page.waitForFunction(() => window.attnlab.layout()['prices.plot.menu.csv']);
  await settle(page);  // the popup placed where it stays before its item is clicked
  p = centre((await page.evaluate(() => window.attnlab.layout()))['prices.plot.menu.csv']);
  await page.mouse.click(p.x, p.y);
  await page.waitForFunction(() => window.attnlabHandle.exports.length === 1);
  const text = await page.evaluate(() => window.attnlabHandle.exports[0].text);
  const lines = text.trim().split('\n');
  assert.match(lines[0], /^[^,]+,real price,noisy price,moving average \(5 months\),attention smoother$/);
  const real = await page.evaluate(() => Array.from(window.attnlab.matrix('prices.plot.real').data));
  assert.equal(lines.length - 1, real.length, 'one line per month');
  lines.slice(1).forEach((line, i) => assert.equal(Math.fround(Number(line.split(',')[1])), real[i]));
  await context.close();
});

test('on a phone a long press on a map opens its menu (a short tap is a click, as before)', async () => {
  const { page, problems } = await openPage(session, { width: 390, height: 844, dpr: 2, touch: true });
  const cdp = await page.context().newCDPSession(page);
  const x = await page.evaluate(() => window.attnlab.layout()['words.X']);
  const p = centre(x);
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x: p.x, y: p.y }] });
  await page.waitForTimeout(650);
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await settle(page);
  assert.ok((await page.evaluate(() => window.attnlab.layout()))['words.X.menu.csv'], 'the menu opened');
  assert.deepEqual(problems, []);
  await page.close();
});

test('a browser without WebAssembly SIMD is told which browsers work, in words', async () => {
  const page = await newPage(session.browser, { viewport: { width: 800, height: 600 } });
  await page.addInitScript(() => { WebAssembly.validate = () => false; });
  await page.goto(session.url);
  await page.waitForSelector('.attnlab-status.attnlab-error');
  const text = await page.evaluate(() => document.querySelector('.attnlab-status').textContent);
  assert.match(text, /^attnlab needs WebAssembly SIMD, which this browser lacks\. It works in Chrome or Edge 91\+, Firefox 89\+, Safari 16\.4\+/);
  assert.doesNotMatch(text, /Aborted|CompileError/);
  await page.close();
});

test('a head tile of view 5 opens its menu on a right click and copies its weights as CSV', async () => {
  const context = await session.browser.newContext({ viewport: { width: 1200, height: 800 }, colorScheme: 'dark' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const page = await newPage(context);
  await page.goto(`${session.url}#v=heads&s=The+cat+sat`);
  await page.waitForSelector('html[data-ready=true]');
  // The view at rest with both its assets: the trained heads arriving after the click would move the
  // tiles under the pointer (idle() does not wait for assets).
  await page.waitForFunction(() => window.attnlab.view().wordVectorsLoaded && window.attnlab.scalars()['heads.trained'] === 1 &&
                             window.attnlab.idle());
  let p = centre((await page.evaluate(() => window.attnlab.layout()))['heads.W1']);
  await page.mouse.click(p.x, p.y, { button: 'right' });
  // The menu drawn where it stays (a popup is measured in a hidden first frame), the page at rest.
  await page.waitForFunction(() => window.attnlab.layout()['heads.W1.menu.csv'] && window.attnlab.idle());
  p = centre((await page.evaluate(() => window.attnlab.layout()))['heads.W1.menu.csv']);
  await page.mouse.click(p.x, p.y);
  await page.waitForFunction(() => window.attnlabHandle.exports.length === 1);
  const text = await page.evaluate(() => window.attnlabHandle.exports[0].text);
  const w = await page.evaluate(() => Array.from(window.attnlab.matrix('heads.W1').data));
  const rows = text.trim().split('\n').map((r) => r.split(','));
  assert.deepEqual(rows[0], ['', 'The', 'cat', 'sat']);
  rows.slice(1).forEach((r, i) => r.slice(1).forEach((v, j) => assert.equal(Math.fround(Number(v)), w[i * 3 + j])));
  await context.close();
});
