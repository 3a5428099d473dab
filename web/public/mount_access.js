// The keyboard and screen readers, for mount(): a press on the canvas gives it the focus (the app's
// handlers keep the browser from doing so), Tab and arrows then move through its controls, Escape
// leaves it for the page's next stop; the outline shows the focus to keyboard users only (it follows
// how the reader last moved). What the view shows is said in words after each change has settled
// (an aria-live summary), and every sentence the canvas shows is also HTML text (texts()): screen
// readers read it, the browser's find and translation reach it; with ui.t=1 in the state (lecture
// mode's "the text as page text") it is shown under the canvas at the UI scale (ui.s), selectable.
export function attachAccessibility(attnlab, { root, canvas }) {
  canvas.addEventListener('pointerdown', () => canvas.focus({ preventScroll: true }));
  canvas.addEventListener('keydown', (e) => { if (e.key === 'Escape') canvas.blur(); });
  const byKeyboard = () => root.classList.add('attnlab-keyboard');
  const byPointer = () => root.classList.remove('attnlab-keyboard');
  document.addEventListener('keydown', byKeyboard, true);
  document.addEventListener('pointerdown', byPointer, true);
  const spoken = document.createElement('div');
  spoken.className = 'attnlab-live';
  spoken.setAttribute('aria-live', 'polite');
  root.append(spoken);
  const prose = document.createElement('section');
  prose.className = 'attnlab-prose';
  prose.setAttribute('aria-label', 'The text of this view');
  root.append(prose);
  let proseShown = '', lastSummary = '', summaryTimer = 0;
  return {
    afterFrame(stateText, summary) {
      if (summary !== lastSummary) {
        lastSummary = summary;
        clearTimeout(summaryTimer);
        summaryTimer = setTimeout(() => { spoken.textContent = summary; }, 500);
      }
      const pageText = /(^|&)ui\.t=1(&|$)/.test(stateText);
      if (pageText !== root.classList.contains('attnlab-with-text')) root.classList.toggle('attnlab-with-text', pageText);
      const scale = Number((stateText.match(/(?:^|&)ui\.s=([\d.]+)/) || [])[1]) || 1;
      prose.style.fontSize = pageText ? `${16 * scale}px` : '';
      const texts = attnlab.texts();
      const joined = texts.join('\n');
      if (joined !== proseShown) {
        proseShown = joined;
        prose.replaceChildren(...texts.map((t) => Object.assign(document.createElement('p'), { textContent: t })));
      }
    },
    destroy() {
      clearTimeout(summaryTimer);
      document.removeEventListener('keydown', byKeyboard, true);
      document.removeEventListener('pointerdown', byPointer, true);
    },
  };
}
