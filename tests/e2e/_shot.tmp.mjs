import { openBrowser, openPage, settle } from '/work/main/tests/e2e/browser.mjs';
const [state, out, w, h, fullPage] = [process.argv[2], process.argv[3], +(process.argv[4] || 1280), +(process.argv[5] || 960), process.argv[6] === 'full'];
const session = await openBrowser();
const touch = w < 500;
const { page } = await openPage(session, { width: w, height: h, dpr: touch ? 2 : 1, touch });
await page.evaluate((s) => window.attnlab.setState(s), state);
await settle(page);
if (process.env.CLICK) {
  const [name, i, j] = process.env.CLICK.split(',');
  const l = await page.evaluate(() => ({ layout: window.attnlab.layout() }));
  const r = l.layout[name];
  const m = await page.evaluate((n) => window.attnlab.matrix(n), name);
  const x = r.x + (+j + 0.5) * r.width / m.cols, y = r.y + (+i + 0.5) * r.height / m.rows;
  await page.mouse.click(x, y);
  await settle(page);
  await new Promise((res) => setTimeout(res, 500));
  await settle(page);
}
await page.screenshot({ path: out });
console.log(JSON.stringify(await page.evaluate(() => ({ state: window.attnlab.state(), scalars: window.attnlab.scalars() }))));
await session.close();
