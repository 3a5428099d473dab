// What the reader sees is what the engine computed: after a change that keeps a matrix's shape
// (τ in view 1, the seed in view 3), the pixels of the spotlight's maps are the colours of the new
// values, read back from the framebuffer and compared with the shader's colour map of the engine's
// numbers. (These maps once kept their old texture: their values were published right, their
// pixels were not.)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, openPage, settle } from './browser.mjs';
import { cellCentre } from './cells.mjs';
import { cellColour, colourDistance, divergingBound } from './colormap.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session.close(); });

// Tall enough that every map of the view is on screen, so pixels can be read where they are drawn.
const VIEWPORT = { width: 1200, height: 2600 };
const TOLERANCE = 3;  // 8-bit rounding of the shader's output

async function snapshot(page, name, boundFrom) {
  return page.evaluate(([n, b]) => ({ m: window.attnlab.matrix(n), bound: window.attnlab.matrix(b), rect: window.attnlab.layout()[n] }),
                       [name, boundFrom]);
}

// Sets the state, waits, and checks that every probed cell of `name` shows the colour of its new
// value, where that colour differs from the colour of its old value (so a stale texture fails).
async function expectFreshPixels(page, name, boundFrom, change) {
  const old = await snapshot(page, name, boundFrom);
  assert.ok(old.m, `${name} is drawn`);
  await page.evaluate((s) => window.attnlab.setState(s), change);
  await settle(page);
  const now = await snapshot(page, name, boundFrom);
  assert.equal(now.m.rows, old.m.rows, 'the change keeps the shape (the case that went stale)');
  assert.equal(now.m.cols, old.m.cols);
  assert.ok(now.rect.y + now.rect.height < VIEWPORT.height, `${name} is on screen`);
  const oldBound = divergingBound(old.bound.data), newBound = divergingBound(now.bound.data);
  let probed = 0;
  for (let k = 0; k < now.m.data.length && probed < 6; ++k) {
    const want = cellColour(now.m.data[k], -newBound, newBound);
    const stale = cellColour(old.m.data[k], -oldBound, oldBound);
    if (colourDistance(want, stale) <= 4 * TOLERANCE) continue;  // this cell cannot tell them apart
    const i = Math.floor(k / now.m.cols), j = k % now.m.cols;
    const p = cellCentre(now.rect, now.m.rows, now.m.cols, i, j);
    const got = (await page.evaluate((q) => window.attnlab.readPixel(q.x, q.y), p)).slice(0, 3);
    assert.ok(colourDistance(got, want) <= TOLERANCE,
      `${name}[${i}, ${j}] = ${now.m.data[k]}: drawn rgb ${got}, the colour map gives ${want} (the old value's colour: ${stale})`);
    ++probed;
  }
  assert.ok(probed >= 3, `${name}: at least 3 cells whose colour had to change (found ${probed})`);
}

test('view 1: after τ moves, the spotlight\'s weighted vectors and output show the new values', async () => {
  const { page, problems } = await openPage(session, { ...VIEWPORT });
  await page.evaluate(() => window.attnlab.setState('w.sp=7&w.st=2'));  // "because", step 3: wᵢⱼxⱼ
  await settle(page);
  await page.mouse.move(1, 1);
  await expectFreshPixels(page, 'words.spot.terms', 'words.spot.terms', 'w.sp=7&w.st=2&w.t=0.2');
  await page.evaluate(() => window.attnlab.setState('w.sp=7&w.st=3&w.t=0.2'));  // step 4: yᵢ
  await settle(page);
  await expectFreshPixels(page, 'words.spot.y', 'words.spot.y', 'w.sp=7&w.st=3&w.t=3');
  assert.deepEqual(problems, []);
  await page.close();
});

test('view 3: after the seed changes, the followed pair\'s terms wᵢⱼvⱼ show the new values', async () => {
  const { page, problems } = await openPage(session, { ...VIEWPORT });
  await page.evaluate(() => window.attnlab.setState('v=qkv&q.tr=0'));
  await settle(page);
  await page.mouse.move(1, 1);
  await expectFreshPixels(page, 'qkv.pair.terms', 'qkv.pair.terms', 'v=qkv&q.tr=0&q.s=5');
  assert.deepEqual(problems, []);
  await page.close();
});
