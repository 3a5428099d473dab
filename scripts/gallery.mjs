// Screenshots of every view for README.md: node scripts/gallery.mjs [OUT_DIR]
// (after the page is built; uses the same headless Chromium as the browser tests).
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { newPage, openBrowser, openPage, settle } from '../tests/e2e/browser.mjs';

const out = process.argv[2] || 'docs/img/gallery';
// One state per view, chosen to show what the view is about.
const VIEWS = [
  ['1-words', 'v=words&w.sp=8&w.st=1'],
  ['2-order', 'v=order&o.sh=3&o.pe=sinusoidal'],
  ['3-qkv', 'v=qkv'],
  ['4-relevance', 'v=relevance'],
  ['5-heads', 'v=heads'],
  ['6-masks', 'v=masks&m.wl=2&m.wr=0'],
  ['7-cnn', 'v=cnn&c.a=8'],
  ['8-datasize', 'v=datasize', { click: 'datasize.run', until: 'datasize.progress', atLeast: 1, scroll: 200 }],
  ['9-rnn', 'v=rnn&rn.rho=0.5', { until: 'rnn.sweep.done', atLeast: 1 }],
  ['10-retrieval', 'v=retrieval&rt.q=italy'],
  ['11-learn', 'v=learn&l.n=1200', { until: 'learn.steps', atLeast: 1200, scroll: 560 }],
  ['12-lm', `v=lm&s=${encodeURIComponent('The jury said it did find that many of the problems')}`],
  ['13-prices', 'v=prices&p.s=1&p.n=0.15&p.i=100'],
  ['14-speed', 'v=speed&sp.l=0&sp.n=10', { click: 'speed.sweep', until: 'speed.sweep.wasm_simd128.4096' }],
];

await mkdir(out, { recursive: true });
const session = await openBrowser();
try {
  const { page, problems } = await openPage(session, { width: 1280, height: 960 });
  for (const [name, state, action] of VIEWS) {
    const error = await page.evaluate((s) => window.attnlab.setState(s), state);
    if (error) throw new Error(`${name}: ${error}`);
    if (action?.click) {  // click a control, then wait for the value it fills (the speed sweep takes seconds)
      await settle(page);
      const r = await page.evaluate((n) => window.attnlab.layout()[n], action.click);
      await page.mouse.click(r.x + r.width / 2, r.y + r.height / 2);
    }
    if (action) {  // a value appears (or reaches atLeast): the sweep filled, the training got there
      await page.waitForFunction(({ k, min }) => (window.attnlab.scalars()[k] ?? -Infinity) >= (min ?? -Infinity),
        { k: action.until, min: action.atLeast }, { timeout: 600000 });  // the data-size defaults: minutes on 2 cores
    }
    await settle(page);
    if (action?.scroll) {
      await page.mouse.move(640, 480);
      await page.mouse.wheel(0, action.scroll);
      await settle(page);
    }
    await page.mouse.move(1, 1);  // no tooltip in the picture
    await settle(page);
    await page.screenshot({ path: join(out, `${name}.png`) });
    console.log(`gallery: ${join(out, `${name}.png`)}`);
  }
  if (problems.length) throw new Error(problems.join('\n'));
  // The example post: prose around an iframe embed (README, "Embed it").
  const post = await newPage(session.browser, { viewport: { width: 1100, height: 900 }, colorScheme: 'dark' });
  await post.goto(`${session.url}examples/blog-post.html`);
  await post.evaluate(() => document.querySelector('#embed-cnn').scrollIntoView({ block: 'start' }));
  await post.waitForFunction(() => document.querySelector('#embed-cnn').contentWindow.attnlab?.idle());
  await post.waitForTimeout(500);
  await post.evaluate(() => scrollBy(0, -260));
  await post.waitForTimeout(300);
  await post.screenshot({ path: join(out, 'embed-blog-post.png') });
  console.log(`gallery: ${join(out, 'embed-blog-post.png')}`);
} finally {
  await session.close();
}
