// The text boxes: HTML <textarea>s laid over the canvas where the app reserves their places. They wrap
// a long sentence onto several lines, put the caret where a finger taps and raise a phone's keyboard,
// none of which ImGui's one-line field can do. The app draws each box's frame and tells the page after
// each frame where box `box` sits (attnlab.onSentenceBox): box 0 is the shared sentence (made at once),
// boxes 1 and 2 view 10's sentence B and query word (made the first time the app shows them). Every
// edit goes back through attnlab.setSentence(text, box). A long text (the shared sentence holds
// 8 KB, GPT-2's whole context) grows the box to kMaxLines lines and then scrolls inside it.
// hostScrolls: an embed, where the page around scrolls (the browser's own wheel and pan do it).
const kMaxLines = 8;
// What each box holds, in UTF-16 units (the state counts UTF-8 bytes and cuts at a character, saying
// so): lessons/view_state.h's SentenceState::kText, RetrievalState::kSentenceB and kQuery.
const kMaxLength = [8191, 511, 64];

export function attachSentenceBox(attnlab, canvas, { hostScrolls = false } = {}) {
  const boxes = [];
  const make = (id, label) => {
    const box = document.createElement('textarea');
    box.className = 'attnlab-sentence';
    box.dataset.box = String(id);
    box.rows = 1;
    box.maxLength = kMaxLength[id] ?? 511;
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
      const lineHeight = 1.25 * 16 * scale, padding = 10;
      const whole = box.scrollHeight, needed = Math.min(whole, Math.round(kMaxLines * lineHeight + padding));
      box.style.overflowY = whole > needed ? 'auto' : 'hidden';
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
    // A box whose text is taller than it scrolls its own text first, then the page.
    const scrollsItself = (dy) => {
      if (box.scrollHeight <= box.clientHeight + 1) return false;
      if (dy < 0) return box.scrollTop > 0;
      return box.scrollTop + box.clientHeight < box.scrollHeight - 1;
    };
    box.addEventListener('wheel', (e) => {
      if (scrollsItself(e.deltaY)) return;  // the browser scrolls the box
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
      if (scrollsItself(-dy)) box.scrollTop -= dy;
      else attnlab.scrollBy(-dy);
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
