// Helpers for the view tests: where a heatmap's cell sits, and scrolling a phone by touch.
import { settle } from './browser.mjs';

export function cellCentre(rect, rows, cols, i, j) {
  return { x: rect.x + (j + 0.5) * (rect.width / cols), y: rect.y + (i + 0.5) * (rect.height / rows) };
}

// Touch-drags the page up until `target`'s top is above `top`. Each drag starts on a heatmap or
// plot low on the screen: a drag there scrolls, while on a slider it would move the slider.
export async function dragUntilVisible(page, target, { top = 500, height = 800 } = {}) {
  const cdp = await page.context().newCDPSession(page);
  const touch = (type, x, y) => cdp.send('Input.dispatchTouchEvent', { type, touchPoints: type === 'touchEnd' ? [] : [{ x, y }] });
  let layout = await page.evaluate(() => window.attnlab.layout());
  for (let k = 0; k < 30 && layout[target].y > top; ++k) {
    const names = await page.evaluate(() => window.attnlab.matrixNames());
    // The lowest on-screen point of any heatmap or plot (not the bar charts).
    const start = names.filter((n) => !/weights$|\.row\./.test(n)).map((n) => layout[n])
      .filter((r) => r && r.height > 10 && r.y + r.height > 200 && r.y < height - 20)
      .map((r) => ({ x: r.x + Math.min(r.width / 2, 40), y: Math.min(r.y + r.height - 5, height - 20) }))
      .sort((a, b) => b.y - a.y)[0];
    if (!start) break;
    await touch('touchStart', start.x, start.y);
    for (let d = 20; d <= Math.min(start.y - 80, 400); d += 20) await touch('touchMove', start.x, start.y - d);
    await touch('touchEnd', 0, 0);
    await settle(page);
    layout = await page.evaluate(() => window.attnlab.layout());
  }
  return layout;
}
