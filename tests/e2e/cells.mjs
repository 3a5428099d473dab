// Helpers for the view tests: where a heatmap's cell sits, and scrolling a phone by touch.
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
