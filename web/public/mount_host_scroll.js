// An embed's way of scrolling its host page, for mount(): a click in an embed opened something below
// the host page's fold (view 1's spotlight), so the page scrolls to it, as the full explorer scrolls
// itself. It happens once the canvas has grown to hold it (afterFrame(), at most 10 frames later), by
// scrolling a stand-in element inside the embed into view, which works from an iframe too.
export function attachHostScroll(attnlab, { root, canvas, reducedMotion }) {
  let due = null;
  attnlab.onScrollHost((top, height) => { due = { top, height, frames: 0 }; });
  return {
    afterFrame() {
      if (!due) return;
      const bottom = canvas.offsetTop + canvas.offsetHeight;
      const y = canvas.offsetTop + Math.max(0, due.top - 40);
      if (bottom < y + due.height && ++due.frames < 10) return;  // not drawn yet
      due = null;
      const anchor = document.createElement('div');
      Object.assign(anchor.style, { position: 'absolute', left: '0', width: '1px', top: `${y}px`,
        height: `${Math.max(1, Math.min(bottom - y, window.innerHeight - 80))}px`, pointerEvents: 'none' });
      root.append(anchor);
      anchor.scrollIntoView({ block: 'nearest', behavior: reducedMotion ? 'auto' : 'smooth' });
      setTimeout(() => anchor.remove(), 1500);
    },
  };
}
