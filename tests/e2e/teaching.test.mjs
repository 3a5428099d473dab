// What the reader sees after each click, and what every view shows by default (issue 10): a click's
// effect is highlighted and on screen, weights are drawn on 0..1, no word label is cut, a vertical
// drag scrolls even from a slider, every view is reachable on a phone, each view leads to the next.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, openPage, screenshot, settle } from './browser.mjs';
import { cellCentre } from './cells.mjs';
import { colourDistance } from './colormap.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session.close(); });

const HIGHLIGHT = [255, 196, 61];  // theme.h: the followed word
const onScreen = (r, height) => r && r.y + r.height > 0 && r.y < height;

// The pixels along a rectangle's left edge include the highlight colour.
async function outlined(page, r) {
  for (const dx of [0, 0.5, 1, 1.5, 2]) {
    const rgb = (await page.evaluate((p) => window.attnlab.readPixel(p.x, p.y), { x: r.x + dx, y: r.y + r.height / 2 })).slice(0, 3);
    if (colourDistance(rgb, HIGHLIGHT) <= 12) return true;
  }
  return false;
}

for (const size of [{ width: 1200, height: 800 }, { width: 390, height: 844, dpr: 2, touch: true }]) {
  test(`view 1 at ${size.width} px: a click on W outlines the word in every map and brings its spotlight on screen`, async () => {
    const { page, problems } = await openPage(session, size);
    let layout = await page.evaluate(() => window.attnlab.layout());
    if (size.touch) {  // scroll the weights into view first, by dragging from wherever
      const cdp = await page.context().newCDPSession(page);
      const touch = (type, y) => cdp.send('Input.dispatchTouchEvent', { type, touchPoints: type === 'touchEnd' ? [] : [{ x: 200, y }] });
      for (let k = 0; k < 8 && cellCentre(layout['words.W'], 12, 12, 8, 3).y > 650; ++k) {
        await touch('touchStart', 700);
        for (let y = 680; y >= 300; y -= 20) await touch('touchMove', y);
        await touch('touchEnd');
        await settle(page);
        layout = await page.evaluate(() => window.attnlab.layout());
      }
    }
    const c = cellCentre(layout['words.W'], 12, 12, 8, 3);  // row "it"
    if (size.touch) await page.touchscreen.tap(c.x, c.y);
    else await page.mouse.click(c.x, c.y);
    await settle(page);
    await page.waitForFunction((h) => { const r = window.attnlab.layout()['words.spot.scores']; return r && r.y > 0 && r.y < h - 40; },
                               size.height);
    await settle(page);
    layout = await page.evaluate(() => window.attnlab.layout());
    for (const map of ['words.X', 'words.raw', 'words.W', 'words.Y'])
      assert.ok(layout[`${map}.row`], `${map}: the followed word's row is outlined`);
    assert.ok(layout['words.raw.col'] && layout['words.W.col'], 'and its column in the square maps');
    await page.mouse.move(1, 1);
    const visible = ['words.X', 'words.raw', 'words.W', 'words.Y'].map((m) => layout[`${m}.row`]).filter((r) => onScreen(r, size.height) && r.y > 0);
    assert.ok(visible.length > 0, 'at least one outline is on screen');
    for (const r of visible) assert.ok(await outlined(page, r), `outline drawn at ${JSON.stringify(r)}`);
    assert.ok(onScreen(layout['words.spot.scores'], size.height), 'the spotlight is where the reader looks');
    await screenshot(page, `teaching-click-${size.width}`);
    assert.deepEqual(problems, []);
    await page.close();
  });
}

test('weights are drawn on 0..1 with 1/n marked, and no column label is cut, in every view', async () => {
  const { page, problems } = await openPage(session, { width: 1280, height: 960 });
  for (const view of [0, 2, 3, 4, 5]) {
    await page.evaluate((v) => window.attnlab.setState(`v=${v}`), view);
    await settle(page);
    const s = await page.evaluate(() => window.attnlab.scalars());
    const weights = Object.keys(s).filter((k) => /(words\.W|qkv\.W|rel\.(score|norm)\.[a-z_]+|heads\.big|masks\.W)\.vmax$/.test(k));
    assert.ok(weights.length > 0, `view ${view + 1} draws weights`);
    for (const k of weights) {
      assert.equal(s[k], 1, `${k}: the weights' scale ends at 1`);
      assert.equal(s[k.replace('vmax', 'vmin')], 0);
    }
    for (const k of Object.keys(s).filter((k) => k.endsWith('.col_label_width')))
      assert.ok(s[k.replace('width', 'room')] >= s[k], `${k}: ${s[k]} px of text in ${s[k.replace('width', 'room')]} px`);
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test('on a phone a vertical drag that starts on a slider scrolls the page and leaves the slider alone', async () => {
  const { page, problems } = await openPage(session, { width: 390, height: 844, dpr: 2, touch: true });
  const before = await page.evaluate(() => ({ state: window.attnlab.state(), s: window.attnlab.scalars(), r: window.attnlab.layout()['words.temperature'] }));
  const cdp = await page.context().newCDPSession(page);
  const x = before.r.x + before.r.width * 0.8, y0 = before.r.y + before.r.height / 2;  // off the knob, where a press would jump it
  const touch = (type, y) => cdp.send('Input.dispatchTouchEvent', { type, touchPoints: type === 'touchEnd' ? [] : [{ x, y }] });
  await touch('touchStart', y0);
  for (let d = 10; d <= 200; d += 10) await touch('touchMove', y0 - d);
  await touch('touchEnd');
  await settle(page);
  const after = await page.evaluate(() => ({ state: window.attnlab.state(), s: window.attnlab.scalars() }));
  assert.equal(after.state, before.state, 'τ did not move');
  assert.ok(after.s['page.scroll'] > before.s['page.scroll'] + 100, `the page scrolled: ${before.s['page.scroll']} -> ${after.s['page.scroll']}`);
  // A sideways drag on the slider does move it.
  const r = (await page.evaluate(() => window.attnlab.layout()))['words.temperature'];
  const side = (type, px) => cdp.send('Input.dispatchTouchEvent', { type, touchPoints: type === 'touchEnd' ? [] : [{ x: px, y: r.y + r.height / 2 }] });
  await side('touchStart', r.x + 20);
  for (let px = r.x + 30; px <= r.x + r.width * 0.7; px += 15) await side('touchMove', px);
  await side('touchEnd');
  await settle(page);
  assert.match(await page.evaluate(() => window.attnlab.state()), /w\.t=/, 'a horizontal drag moves τ');
  assert.deepEqual(problems, []);
  await page.close();
});

test('on a 390 px phone every view is one tap away, and each view leads to the next', async () => {
  const { page, problems } = await openPage(session, { width: 390, height: 844, dpr: 2, touch: true });
  const layout = await page.evaluate(() => window.attnlab.layout());
  const count = await page.evaluate(() => Object.keys(window.attnlab.layout()).filter((k) => /^view\.\d+$/.test(k)).length);
  assert.equal(count, 14, "fourteen views");
  for (let v = 1; v <= count; ++v) {
    const r = layout[`view.${v}`];
    assert.ok(r && r.x >= 0 && r.x + r.width <= 390 && r.y + r.height < 844, `view ${v}'s button on screen: ${JSON.stringify(r)}`);
    assert.ok(r.height >= 24, `view ${v}'s button is ${r.height} px tall`);
  }
  const last = layout[`view.${count}`];
  await page.touchscreen.tap(last.x + last.width / 2, last.y + last.height / 2);
  await settle(page);
  assert.match(await page.evaluate(() => window.attnlab.state()), /^v=speed/);
  // "Next" at the end of view 1 opens view 2.
  const wide = await openPage(session, { width: 1200, height: 2000 });
  const next = (await wide.page.evaluate(() => window.attnlab.layout())).next;
  assert.ok(next, 'view 1 ends with a next button');
  await wide.page.mouse.click(next.x + next.width / 2, next.y + next.height / 2);
  await settle(wide.page);
  assert.equal(await wide.page.evaluate(() => window.attnlab.view().view), 1);
  assert.deepEqual(problems, []);
  assert.deepEqual(wide.problems, []);
  await wide.page.close();
  await page.close();
});
