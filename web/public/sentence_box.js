// The sentence box: an HTML <textarea> laid over the canvas where the app reserves its place. It wraps
// a long sentence onto several lines, puts the caret where a finger taps and raises a phone's
// keyboard, none of which ImGui's one-line field can do. The app draws its frame, tells it after each
// frame where to sit (attnlab.onSentenceBox), and gets every edit through attnlab.setSentence.
// hostScrolls: an embed, where the page around scrolls (the browser's own wheel and pan do it).
export function attachSentenceBox(attnlab, canvas, { hostScrolls = false } = {}) {
  const box = document.createElement('textarea');
  box.className = 'attnlab-sentence';
  box.rows = 1;
  box.maxLength = 500;
  box.placeholder = 'Type a sentence';
  box.spellcheck = false;
  for (const [name, value] of [['autocomplete', 'off'], ['autocorrect', 'off'], ['autocapitalize', 'off'],
                               ['enterkeyhint', 'done'], ['aria-label', 'The sentence every view uses']])
    box.setAttribute(name, value);
  box.hidden = true;
  canvas.parentElement.appendChild(box);

  let measuredWidth = -1;
  let measuredText = null;
  attnlab.onSentenceBox((shown, x, y, w, h, sentence) => {
    box.hidden = !shown;
    if (!shown) return;
    if (sentence !== box.value) box.value = sentence;  // a preset, a link or the console changed it
    box.style.left = `${canvas.offsetLeft + x}px`;
    box.style.top = `${canvas.offsetTop + y}px`;
    box.style.width = `${w}px`;
    if (w !== measuredWidth || box.value !== measuredText) {
      // The wrapped text's height at this width; the app makes room for it in the next frame.
      measuredWidth = w;
      measuredText = box.value;
      box.style.height = 'auto';
      const needed = box.scrollHeight;
      if (Math.abs(needed - h) > 0.5) attnlab.setSentenceBoxHeight(needed);
    }
    box.style.height = `${h}px`;
  });

  box.addEventListener('input', () => {
    const oneLine = box.value.replace(/[\r\n]+/g, ' ');  // pasted line breaks become spaces
    if (oneLine !== box.value) box.value = oneLine;
    attnlab.setSentence(box.value);
  });
  box.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') {  // one sentence, one paragraph: Enter is "done"
      e.preventDefault();
      box.blur();
    }
  });
  // A press on the canvas ends the editing (the app's own handlers keep the browser from doing it).
  canvas.addEventListener('pointerdown', () => { if (document.activeElement === box) box.blur(); });
  if (hostScrolls) return box;  // wheels and vertical drags pass through to the host page
  // The box is part of the page: a wheel over it scrolls like a wheel over the canvas, and so does a
  // vertical finger drag (a tap or a sideways drag stays the text area's: caret and selection).
  box.addEventListener('wheel', (e) => {
    e.preventDefault();
    canvas.dispatchEvent(new WheelEvent('wheel', e));
  }, { passive: false });
  let touch = null;
  box.addEventListener('touchstart', (e) => {
    const t = e.touches[0];
    touch = { x: t.clientX, y: t.clientY, scrolling: null };
  }, { passive: true });
  box.addEventListener('touchmove', (e) => {
    if (!touch) return;
    const t = e.touches[0];
    const dx = t.clientX - touch.x, dy = t.clientY - touch.y;
    if (touch.scrolling === null && Math.hypot(dx, dy) > 8) touch.scrolling = Math.abs(dy) > Math.abs(dx);
    if (!touch.scrolling) return;
    e.preventDefault();
    attnlab.scrollBy(-dy);
    touch.y = t.clientY;
    touch.x = t.clientX;
  }, { passive: false });
  box.addEventListener('touchend', () => { touch = null; });
  return box;
}
