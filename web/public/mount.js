// One attnlab in one element: the full page (web/public/page.js), an iframe embed (the same page
// with #embed) and <attn-lab> (web/public/attnlab-embed.js) all mount through here.
//
//   const handle = await mount(element, { view: 'heads', state: 'h.n=8', theme: 'auto', embed: true });
//   handle.state();  handle.setState('v=masks&m.c=0');  handle.destroy();
//
// Assets are fetched relative to this file, not to the page that embeds it, and only when the view
// shown needs them: the 1.5 MB word vectors for the views of words, prices.csv for the prices view,
// the trained heads for views 3 and 5.
import { loadAttnlab } from './attnlab.js';
import { attachSentenceBox } from './sentence_box.js';
import { attachShare } from './share.js';

const here = (name) => new URL(name, import.meta.url).href;
let fontBytes = null;  // one fetch of the UI font for every instance on the page, also the HTML boxes' font
let instances = 0;

// WebAssembly SIMD (a 30-byte module using i8x16 ops) and WebGL2, checked before anything loads, so
// an old browser gets a sentence instead of "Aborted(CompileError…)".
const kSimdProbe = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0,
  253, 15, 253, 98, 11]);
export function missingFeatures() {
  const missing = [];
  if (typeof WebAssembly !== 'object' || !WebAssembly.validate(kSimdProbe)) missing.push('WebAssembly SIMD');
  if (!document.createElement('canvas').getContext('webgl2')) missing.push('WebGL2');
  return missing;
}
export const kBrowsersThatWork = 'Chrome or Edge 91+, Firefox 89+, Safari 16.4+ (desktop or phone)';

// "embed&v=masks&theme=light&m.c=0" -> the page's own options and the view state for the app.
export function parseHash(hash) {
  const out = { embed: false, theme: null, state: [] };
  for (const part of hash.replace(/^#/, '').split('&')) {
    if (!part) continue;
    const [key, value = ''] = part.split('=');
    if (key === 'embed') out.embed = value !== '0';
    else if (key === 'theme') out.theme = value;
    else out.state.push(part);
  }
  out.state = out.state.join('&');
  return out;
}

// The state string with the view named first (mount's `view` option, or a <attn-lab view=…>).
function withView(view, state) {
  if (!view) return state || '';
  const rest = (state || '').split('&').filter((p) => p && !p.startsWith('v='));
  return [`v=${view}`, ...rest].join('&');
}

function prefersLight(theme) {
  if (theme === 'light') return true;
  if (theme === 'dark') return false;
  return typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: light)').matches;
}

// '' for a theme mount knows ('auto', 'light', 'dark'), else what the link's note says about it.
const kThemes = ['auto', 'light', 'dark'];
function themeProblem(theme) {
  if (kThemes.includes(theme)) return '';
  const given = String(theme).slice(0, 40);
  return `theme: expected auto, light or dark, got '${given}': used auto`;
}

export async function mount(host, options = {}) {
  const mountedAt = performance.now();
  const { view = null, state = '', embed = true, fullPage = false, openUrl = here('index.html') } = options;
  const badTheme = themeProblem(options.theme ?? 'auto');
  const theme = badTheme ? 'auto' : options.theme ?? 'auto';
  const root = document.createElement('div');
  root.className = `attnlab-root${embed ? ' attnlab-embed' : ''}${fullPage ? ' attnlab-full' : ''}`;
  const canvas = document.createElement('canvas');
  canvas.id = `attnlab-canvas-${++instances}`;
  canvas.tabIndex = 0;  // focusable: keyboard users reach the controls
  canvas.setAttribute('role', 'application');
  canvas.setAttribute('aria-label', 'attnlab: self-attention computed in WebAssembly and drawn as heatmaps. '
    + 'Tab and the arrow keys move through the controls, Space uses one, Escape leaves.');
  const status = document.createElement('div');
  status.className = 'attnlab-status';
  status.setAttribute('role', 'status');
  status.textContent = 'Loading attnlab…';
  root.append(canvas, status);
  // Share (and, in an embed, the way out: the full explorer with the same state, in a new tab) sit
  // in a footer under an embed, at the top right of the full page.
  const bar = document.createElement('div');
  bar.className = embed ? 'attnlab-footer' : 'attnlab-topbar';
  root.append(bar);
  let open = null;
  if (embed) {
    open = document.createElement('a');
    open.className = 'attnlab-open';
    open.target = '_blank';
    open.rel = 'noopener';
    open.textContent = 'open in attnlab ↗';
    bar.append(open);
  }
  let shownTheme = theme;  // 'auto', 'light' or 'dark': what a shared link or element asks for
  attachShare(root, bar, { state: () => current || '', theme: () => shownTheme, savePng: () => attnlab?.saveViewPng() });
  host.append(root);
  const fail = (message) => {
    status.textContent = message;
    status.classList.add('attnlab-error');
    status.hidden = false;
    return null;
  };
  const missing = missingFeatures();
  if (missing.length) return fail(`attnlab needs ${missing.join(' and ')}, which this browser lacks. It works in ${kBrowsersThatWork}.`);

  fontBytes ??= fetch(here('ui-font.ttf')).then((r) => (r.ok ? r.arrayBuffer() : new ArrayBuffer(0))).catch(() => new ArrayBuffer(0))
    .then((bytes) => { addHtmlFont(bytes); return bytes; });
  let attnlab;
  try {
    attnlab = await loadAttnlab();
  } catch (e) {
    return fail(`attnlab could not load: ${e && e.message ? e.message : e}`);
  }
  // The module died (a trap or an abort): nothing will be drawn again, so the page says so over the
  // frozen canvas and offers a reload instead of looking alive.
  attnlab.onDied((why) => {
    status.replaceChildren(`attnlab stopped working (${why}). What you see is frozen. `);
    const reload = document.createElement('button');
    reload.className = 'attnlab-reload';
    reload.textContent = 'Reload';
    reload.addEventListener('click', () => location.reload());
    status.append(reload);
    status.classList.add('attnlab-error', 'attnlab-notice');
    status.hidden = false;
    for (const box of root.querySelectorAll('.attnlab-sentence')) box.setAttribute('disabled', '');
  });
  // A lost WebGL context (the GPU reset, too many contexts on the page): preventDefault lets the
  // browser restore it; the app then makes every GL object again (web/app/main.cpp). Meanwhile the
  // canvas is blank and the page says why; the first frame drawn after restoration removes the note.
  let restoringGraphics = false;
  canvas.addEventListener('webglcontextlost', (e) => {
    e.preventDefault();
    if (attnlab.dead()) return;
    restoringGraphics = true;
    status.textContent = 'restoring graphics…';
    status.classList.add('attnlab-notice');
    status.hidden = false;
  });
  const listeners = new Set();
  const resizeListeners = new Set();
  let current = null;  // the state string of the last frame (null before the first)
  let loadingVectors = false, loadingPrices = false, loadingHeads = false;
  let shownHeight = 0;
  let barScroll = 0;
  const timing = { mountToFirstFrameMs: 0, pageToFirstFrameMs: 0 };  // what an embed costs to start
  attnlab.onAfterFrame((stateText, contentHeight, scroll, summary) => {
    if (restoringGraphics) {
      restoringGraphics = false;
      status.hidden = true;
      status.classList.remove('attnlab-notice');
    }
    if (!timing.pageToFirstFrameMs) {
      timing.pageToFirstFrameMs = performance.now();
      timing.mountToFirstFrameMs = timing.pageToFirstFrameMs - mountedAt;
    }
    if (summary !== lastSummary) {
      lastSummary = summary;
      clearTimeout(summaryTimer);
      summaryTimer = setTimeout(() => { spoken.textContent = summary; }, 500);
    }
    if (!embed && scroll !== barScroll) {  // the full page's Share button sits on the title line
      barScroll = scroll;
      bar.style.transform = `translateY(${-scroll}px)`;
    }
    if (stateText !== current) {
      current = stateText;
      if (open) open.href = `${openUrl}#${stateText}`;
      for (const fn of listeners) fn(stateText);
    }
    // An embed is as tall as what it draws: no inner scrollbar, nothing clipped.
    if (embed && Math.abs(contentHeight - shownHeight) >= 1) {
      shownHeight = contentHeight;
      canvas.style.height = `${contentHeight}px`;
      for (const fn of resizeListeners) fn(root.getBoundingClientRect().height);
    }
    scrollHostIfDue();
    // Lecture mode's "the text as page text" (ui.t=1 in the state): the same section, shown under
    // the canvas at the UI scale (ui.s).
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
    if (!loadingVectors && attnlab.needsWordVectors()) {
      loadingVectors = true;
      loadWordVectors(attnlab);
    }
    if (!loadingPrices && attnlab.needsPrices()) {
      loadingPrices = true;
      loadPrices(attnlab);
    }
    if (!loadingHeads && attnlab.needsTrainedHeads()) {
      loadingHeads = true;
      loadTrainedHeads(attnlab);
    }
  });
  attachSentenceBox(attnlab, canvas, { hostScrolls: embed });
  const exports = [];  // what left the page, newest last (the browser tests read it)
  attnlab.onExport(
    (name, text) => {
      exports.push({ name, kind: 'csv', text });
      navigator.clipboard?.writeText(text).catch(() => download(name, new Blob([text], { type: 'text/csv' })));
    },
    (name, width, height, rgba) => {
      const picture = document.createElement('canvas');
      picture.width = width;
      picture.height = height;
      picture.getContext('2d').putImageData(new ImageData(new Uint8ClampedArray(rgba.buffer), width, height), 0, 0);
      picture.toBlob((blob) => {
        exports.push({ name, kind: 'png', width, height, bytes: blob ? blob.size : 0, picture });
        if (blob) download(name, blob);
      }, 'image/png');
    },
    (name, blob) => {
      exports.push({ name, kind: 'file', bytes: blob.size, blob });
      download(name, blob);
    });
  // A checkpoint dropped on view 12's canvas opens there (read here, never uploaded); other views
  // leave a drop to the page.
  const showsModel = () => /(^|&)v=lm(&|$)/.test(attnlab.state());
  canvas.addEventListener('dragover', (e) => {
    if (!e.dataTransfer?.types?.includes('Files') || !showsModel()) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
  });
  canvas.addEventListener('drop', (e) => {
    if (!e.dataTransfer?.files?.length || !showsModel()) return;
    e.preventDefault();
    attnlab.openModelFiles(e.dataTransfer.files);
  });
  // The keyboard: a press on the canvas gives it the focus (the app's handlers keep the browser from
  // doing so), Tab and arrows then move through its controls, Escape leaves it for the page's next stop.
  // The outline shows the focus to keyboard users only: it follows how the reader last moved.
  canvas.addEventListener('pointerdown', () => canvas.focus({ preventScroll: true }));
  canvas.addEventListener('keydown', (e) => { if (e.key === 'Escape') canvas.blur(); });
  const byKeyboard = () => root.classList.add('attnlab-keyboard');
  const byPointer = () => root.classList.remove('attnlab-keyboard');
  document.addEventListener('keydown', byKeyboard, true);
  document.addEventListener('pointerdown', byPointer, true);
  // What the view shows, in words, for screen readers: read after each change has settled.
  const spoken = document.createElement('div');
  spoken.className = 'attnlab-live';
  spoken.setAttribute('aria-live', 'polite');
  root.append(spoken);
  // Every sentence the canvas shows, also as HTML text (texts()): screen readers read it, the
  // browser's find and translation reach it; kept in step after each frame that changed it. With
  // ui.t=1 it is shown under the canvas (.attnlab-with-text), selectable.
  const prose = document.createElement('section');
  prose.className = 'attnlab-prose';
  prose.setAttribute('aria-label', 'The text of this view');
  root.append(prose);
  let proseShown = '';
  let summaryTimer = 0;
  let lastSummary = '';
  attnlab.setEmbedded(embed);
  const reducedMotion = typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;
  attnlab.setReducedMotion(reducedMotion);
  // A click in an embed opened something below the host page's fold (view 1's spotlight): the page
  // scrolls to it, as the full explorer scrolls itself. It happens once the canvas has grown to hold
  // it, by scrolling a stand-in element inside the embed into view (which works from an iframe too).
  let hostScroll = null;
  if (embed) attnlab.onScrollHost((top, height) => { hostScroll = { top, height, frames: 0 }; });
  const scrollHostIfDue = () => {
    if (!hostScroll) return;
    const bottom = canvas.offsetTop + canvas.offsetHeight;
    const y = canvas.offsetTop + Math.max(0, hostScroll.top - 40);
    if (bottom < y + hostScroll.height && ++hostScroll.frames < 10) return;  // not drawn yet
    hostScroll = null;
    const anchor = document.createElement('div');
    Object.assign(anchor.style, { position: 'absolute', left: '0', width: '1px', top: `${y}px`,
      height: `${Math.max(1, Math.min(bottom - y, window.innerHeight - 80))}px`, pointerEvents: 'none' });
    root.append(anchor);
    anchor.scrollIntoView({ block: 'nearest', behavior: reducedMotion ? 'auto' : 'smooth' });
    setTimeout(() => anchor.remove(), 1500);
  };
  const light = prefersLight(theme);
  root.classList.toggle('attnlab-light', light);
  attnlab.setLightTheme(light);
  let themeQuery = null;
  const followScheme = () => {
    const l = prefersLight('auto');
    root.classList.toggle('attnlab-light', l);
    attnlab.setLightTheme(l);
  };
  if (theme !== 'light' && theme !== 'dark' && typeof matchMedia === 'function') {
    themeQuery = matchMedia('(prefers-color-scheme: light)');
    themeQuery.addEventListener('change', followScheme);
  }
  const linkProblem = attnlab.applyLink(withView(view, state));
  if (linkProblem) console.warn(`attnlab: ${linkProblem}`);
  if (badTheme) {
    attnlab.noteLinkProblem(badTheme);
    console.warn(`attnlab: ${badTheme}`);
  }
  const error = attnlab.start(new Uint8Array(await fontBytes), `#${canvas.id}`);
  if (error) return fail(`attnlab could not start: ${error}`);
  status.hidden = true;

  let destroyed = false;
  return {
    attnlab,
    root,
    canvas,
    state: () => attnlab.state(),
    // A state string from the defaults (like a link); returns '' or what was ignored.
    setState: (text) => (destroyed ? 'module_died: this attnlab was destroyed' : attnlab.applyLink(text)),
    setTheme: (asked) => {
      const problem = themeProblem(asked);
      if (problem && !destroyed) attnlab.noteLinkProblem(problem);
      const t = problem ? 'auto' : asked;
      shownTheme = t;
      const l = prefersLight(t);
      root.classList.toggle('attnlab-light', l);
      attnlab.setLightTheme(l);
    },
    setRunning: (running) => { if (!destroyed) attnlab.setRunning(running); },
    // fn(state) after every change; fn(height in CSS px) when an embed's height changes. Both are
    // also called at once when there is something to report.
    exports,
    saveViewPng: () => attnlab.saveViewPng(),
    timing,
    memoryBytes: () => attnlab.memoryBytes(),  // this instance's WebAssembly memory
    onStateChange: (fn) => {
      listeners.add(fn);
      if (current !== null) fn(current);
      return () => listeners.delete(fn);
    },
    onResize: (fn) => {
      resizeListeners.add(fn);
      if (shownHeight) fn(root.getBoundingClientRect().height);
      return () => resizeListeners.delete(fn);
    },
    destroy() {
      if (destroyed) return;
      destroyed = true;
      themeQuery?.removeEventListener('change', followScheme);
      document.removeEventListener('keydown', byKeyboard, true);
      document.removeEventListener('pointerdown', byPointer, true);
      attnlab.stop();  // the frame loop, ImGui and the GL context
      canvas.getContext('webgl2')?.getExtension('WEBGL_lose_context')?.loseContext();
      root.remove();  // the module and its memory go with the last reference
    },
  };
}

// The HTML text boxes (sentence_box.js) use the canvas's font, "attnlab-ui" in attnlab.css, made from
// the bytes the app gets: one download of ui-font.ttf, not a second one for an @font-face rule.
function addHtmlFont(bytes) {
  if (!bytes.byteLength || typeof FontFace !== 'function' || !document.fonts) return;
  const face = new FontFace('attnlab-ui', bytes.slice(0));
  document.fonts.add(face);
  face.load().catch(() => {});  // a font the browser refuses: the boxes fall back to DejaVu Sans
}

// Saves `blob` as a file called `name` (a click on a temporary link: no popup, no new tab).
function download(name, blob) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

// The 1.5 MB GloVe asset, fetched once a view of words is shown. Meanwhile the words get hashed
// stand-in vectors and the page shows how much has arrived.
async function loadWordVectors(attnlab) {
  try {
    const response = await fetch(here('word-vectors.bin'));
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const error = attnlab.loadWordVectors(await readWithProgress(response, (f) => attnlab.wordVectorsProgress(f)));
    if (error) console.warn(`attnlab: ${error}`);
  } catch (e) {
    attnlab.wordVectorsFailed(String(e && e.message ? e.message : e));
  }
}

// The body's bytes, reporting the share received so far (Content-Length may count compressed bytes:
// the share is then an estimate, kept below 1 until the end).
async function readWithProgress(response, progress) {
  const total = Number(response.headers.get('Content-Length')) || 0;
  if (!response.body || !total) return new Uint8Array(await response.arrayBuffer());
  const reader = response.body.getReader();
  const chunks = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    received += value.length;
    progress(Math.min(received / total, 0.99));
  }
  const bytes = new Uint8Array(received);
  let at = 0;
  for (const c of chunks) { bytes.set(c, at); at += c.length; }
  return bytes;
}

// heads-trained-brown.bin (200 KB) for views 3 and 5, parsed by the engine side.
async function loadTrainedHeads(attnlab) {
  try {
    const response = await fetch(here('heads-trained-brown.bin'));
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const error = attnlab.loadTrainedHeads(new Uint8Array(await response.arrayBuffer()));
    if (error) console.warn(`attnlab: ${error}`);
  } catch (e) {
    attnlab.trainedHeadsFailed(String(e && e.message ? e.message : e));
  }
}

// prices.csv (30 KB) for the prices view, parsed by the engine side like the word vectors.
async function loadPrices(attnlab) {
  try {
    const response = await fetch(here('prices.csv'));
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const error = attnlab.loadPrices(await response.text());
    if (error) console.warn(`attnlab: ${error}`);
  } catch (e) {
    attnlab.pricesFailed(String(e && e.message ? e.message : e));
  }
}
