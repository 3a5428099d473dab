// The text boxes: HTML <textarea>s laid over the canvas where the app reserves their places. They wrap
// a long sentence onto several lines, put the caret where a finger taps and raise a phone's keyboard,
// none of which ImGui's one-line field can do. The app draws each box's frame and tells the page after
// each frame where box `box` sits (attnlab.onSentenceBox): box 0 is the shared sentence (made at once),
// boxes 1 and 2 view 10's sentence B and query word (made the first time the app shows them). Every
// edit goes back through attnlab.setSentence(text, box).
// hostScrolls: an embed, where the page around scrolls (the browser's own wheel and pan do it).
export function attachSentenceBox(attnlab, canvas, { hostScrolls = false } = {}) {
  const boxes = [];
  const make = (id, label) => {
    const box = document.createElement('textarea');
    box.className = 'attnlab-sentence';
    box.dataset.box = String(id);
    box.rows = 1;
    box.maxLength = 500;
    box.placeholder = ['Type a sentence', 'Type sentence B', 'Type a word'][id] ?? '';
    box.spellcheck = false;
    for (const [name, value] of [['autocomplete', 'off'], ['autocorrect', 'off'], ['autocapitalize', 'off'],
                                 ['enterkeyhint', 'done'], ['aria-label', label]])
      box.setAttribute(name, value);
    box.hidden = true;
    canvas.parentElement.appendChild(box);
    boxes[id] = { box, measuredWidth: -1, measuredText: null };
    wire(box, id);
    return boxes[id];
  };

  attnlab.onSentenceBox((shown, x, y, w, h, sentence, id = 0, label = 'The sentence every view uses', scale = 1) => {
    const entry = boxes[id] ?? (shown ? make(id, label) : null);
    if (!entry) return;
    const { box } = entry;
    box.hidden = !shown;
    if (!shown) return;
    // The lecture mode's UI scale: the text grows with the canvas's (16 px at 1; see attnlab.css).
    const fontSize = `${Math.round(16 * scale)}px`;
    if (box.style.fontSize !== fontSize) {
      box.style.fontSize = fontSize;
      entry.measuredWidth = -1;  // measure the wrapped height again
    }
    if (sentence !== box.value) box.value = sentence;  // a preset, a link or the console changed it
    box.style.left = `${canvas.offsetLeft + x}px`;
    box.style.top = `${canvas.offsetTop + y}px`;
    box.style.width = `${w}px`;
    if (w !== entry.measuredWidth || box.value !== entry.measuredText) {
      // The wrapped text's height at this width; the app makes room for it in the next frame.
      entry.measuredWidth = w;
      entry.measuredText = box.value;
      box.style.height = 'auto';
      const needed = box.scrollHeight;
      if (Math.abs(needed - h) > 0.5) attnlab.setSentenceBoxHeight(needed, id);
    }
    box.style.height = `${h}px`;
  });

  function wire(box, id) {
    box.addEventListener('input', () => {
      const oneLine = box.value.replace(/[\r\n]+/g, ' ');  // pasted line breaks become spaces
      if (oneLine !== box.value) box.value = oneLine;
      attnlab.setSentence(box.value, id);
    });
    box.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') {  // one sentence, one paragraph: Enter is "done"
        e.preventDefault();
        box.blur();
      }
    });
    if (hostScrolls) return;  // wheels and vertical drags pass through to the host page
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
  }

  // A press on the canvas ends the editing (the app's own handlers keep the browser from doing it).
  canvas.addEventListener('pointerdown', () => {
    if (boxes.some((e) => e && document.activeElement === e.box)) document.activeElement.blur();
  });
  return make(0, 'The sentence every view uses').box;
}
