// Helpers for the view tests (and the bench's page section): where a heatmap's cell sits, clicking a
// published control, mounting <attn-lab> elements, and scrolling a phone by touch.
import { settle } from './browser.mjs';

export function cellCentre(rect, rows, cols, i, j) {
  return { x: rect.x + (j + 0.5) * (rect.width / cols), y: rect.y + (i + 0.5) * (rect.height / rows) };
}

// Touch-drags the page up until `target`'s top is above `top`. A vertical drag scrolls wherever it
// starts (on a heatmap, a label or a slider alike), so every drag starts low in the middle.
export async function dragUntilVisible(page, target, { top = 500, height = 800 } = {}) {
  const cdp = await page.context().newCDPSession(page);
  const width = await page.evaluate(() => window.innerWidth);
  const touch = (type, x, y) => cdp.send('Input.dispatchTouchEvent', { type, touchPoints: type === 'touchEnd' ? [] : [{ x, y }] });
  let layout = await page.evaluate(() => window.attnlab.layout());
  for (let k = 0; k < 30 && layout[target].y > top; ++k) {
    const x = width / 2, y = height - 60;
    const distance = Math.min(400, Math.max(60, layout[target].y - top + 40));
    await touch('touchStart', x, y);
    for (let d = 20; d <= distance; d += 20) await touch('touchMove', x, y - d);
    await touch('touchEnd', 0, 0);
    await settle(page);
    layout = await page.evaluate(() => window.attnlab.layout());
  }
  return layout;
}

// Clicks the control the page published as `name`, scrolling the page to it first when it is below
// the fold.
export async function clickPublished(page, name) {
  let r = (await page.evaluate(() => window.attnlab.layout()))[name];
  if (!r) throw new Error(`${name} is not laid out`);
  const height = page.viewportSize().height;
  if (r.y + r.height > height) {
    await page.mouse.move(10, height / 2);
    await page.mouse.wheel(0, r.y - height / 2);
    await settle(page);
    r = (await page.evaluate(() => window.attnlab.layout()))[name];
  }
  await page.mouse.click(r.x + r.width / 2, r.y + r.height / 2);
}

// Mounts `count` <attn-lab view="…"> elements on an embed page, one after the other, each scrolled
// into view (an element starts then) and waited for until it has drawn its first frame.
export function mountElements(page, view, count) {
  return page.evaluate(async ({ view, count }) => {
    await import('./attnlab-embed.js');
    for (let k = 0; k < count; ++k) {
      const el = document.createElement('attn-lab');
      el.setAttribute('view', view);
      const ready = new Promise((r) => el.addEventListener('attnlab-ready', r, { once: true }));
      document.body.append(el);
      el.scrollIntoView();
      await ready;
      await new Promise((r) => { const wait = () => (el.handle.timing.mountToFirstFrameMs ? r() : requestAnimationFrame(wait)); wait(); });
    }
  }, { view, count });
}
