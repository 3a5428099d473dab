// CPU time of the page's frames in headless Chromium: node bench/frame_time.mjs (frames are read and
// summarised as in npm run bench's page section, bench/page.mjs)
// A "recompute" frame re-runs the engine (a new seed); a "draw" frame only redraws (the pointer moved).
// Reports medians over 20 frames of each, for view 5 (heads) at 32 tokens and 8 heads, and view 1.
import { openBrowser, openPage, settle } from '../tests/e2e/browser.mjs';
import { frameStats } from './page.mjs';

const SENTENCE = 'the quick brown fox jumps over the lazy dog while the cat sat on the mat and the animal ' +
  'did not cross the street because it was far too tired today again';

const median = (xs) => frameStats(xs).median;

async function measure(page, state, vary) {
  await page.evaluate((s) => window.attnlab.setState(s), state);
  await settle(page);
  const recompute = [], draw = [];
  for (let k = 1; k <= 20; ++k) {
    await page.evaluate((s) => window.attnlab.setState(s), vary(k));
    await settle(page);
    recompute.push(await page.evaluate(() => window.attnlab.lastFrameMs()));
    await page.mouse.move(5 + k, 5);
    await settle(page);
    draw.push(await page.evaluate(() => window.attnlab.lastFrameMs()));
  }
  return { recompute: median(recompute), draw: median(draw) };
}

const session = await openBrowser();
try {
  const { page } = await openPage(session, { width: 1280, height: 960 });
  const s = encodeURIComponent(SENTENCE);
  const tokens = (await page.evaluate((t) => window.attnlab.tokenize(t), SENTENCE)).length;
  const heads = await measure(page, `v=heads&s=${s}&h.n=8`, (k) => `h.seed=${k}`);
  const words = await measure(page, `v=words&s=${s}`, (k) => `w.t=${(0.5 + k * 0.05).toFixed(2)}`);
  console.log(`tokens ${tokens}`);
  console.log(`view 5, 8 heads: recompute + draw ${heads.recompute.toFixed(2)} ms, draw only ${heads.draw.toFixed(2)} ms (median of 20)`);
  console.log(`view 1:          recompute + draw ${words.recompute.toFixed(2)} ms, draw only ${words.draw.toFixed(2)} ms (median of 20)`);
} finally {
  await session.close();
}
