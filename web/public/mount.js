// One attnlab in one element: the full page (web/public/page.js), an iframe embed (the same page
// with #embed) and <attn-lab> (web/public/attnlab-embed.js) all mount through here.
//
//   const handle = await mount(element, { view: 'heads', state: 'h.n=8', theme: 'auto', embed: true });
//   handle.state();  handle.setState('v=masks&m.c=0');  handle.destroy();
//
// mount() builds the element and starts the module; each of its other jobs is a file of its own:
// the assets a view needs (mount_assets.js), the module's death and the GL context's loss
// (mount_life.js), exports (mount_export.js), the keyboard and screen readers (mount_access.js), an
// embed's scrolling of its host page (mount_host_scroll.js) and the kernel settings measured off the
// page's thread for the next load (mount_kernel_choice.js).
import { loadAttnlab, liteWasmFile, wasmFile } from './attnlab.js';
import { attachAccessibility } from './mount_access.js';
import { attachAssetLoading } from './mount_assets.js';
import { attachExports } from './mount_export.js';
import { attachHostScroll } from './mount_host_scroll.js';
import { reuseKernelChoice } from './mount_kernel_choice.js';
import { watchLifeCycle } from './mount_life.js';
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
  const out = { embed: false, theme: null, workers: true, state: [] };
  for (const part of hash.replace(/^#/, '').split('&')) {
    if (!part) continue;
    const [key, value = ''] = part.split('=');
    if (key === 'embed') out.embed = value !== '0';
    else if (key === 'theme') out.theme = value;
    else if (key === 'workers') out.workers = value !== 'off' && value !== '0';  // off: long work on the page's thread
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

// The views that train (8 Data size, 11 Learn, 12 Language model) are in attnlab.wasm alone; an
// embed of any other view loads attnlab-lite.wasm (web/app/module_views.h), 66 KB gzipped smaller.
const kTrainingViews = ['datasize', 'learn', 'lm'];  // (old numbered links, v=0…8, name none of them)
function needsFullModule(state) {
  const view = state.split('&').find((p) => p.startsWith('v='));
  return kTrainingViews.includes(view ? view.slice(2) : 'words');
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
  const { view = null, state = '', embed = true, fullPage = false, openUrl = here('index.html'), workers = true } = options;
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
  const lite = embed && !needsFullModule(withView(view, state));
  try {
    attnlab = await loadAttnlab({}, { workers, lite });
  } catch (e) {
    return fail(`attnlab could not load: ${e && e.message ? e.message : e}`);
  }
  const kernelChoice = reuseKernelChoice(attnlab, lite ? liteWasmFile : wasmFile, workers);  // before anything computes
  const life = watchLifeCycle(attnlab, { root, canvas, status });
  const assets = attachAssetLoading(attnlab);
  const listeners = new Set();
  const resizeListeners = new Set();
  let current = null;  // the state string of the last frame (null before the first)
  let shownHeight = 0;
  let barScroll = 0;
  let access = null, hostScroll = null;  // attached below, before the first frame
  const timing = { mountToFirstFrameMs: 0, pageToFirstFrameMs: 0 };  // what an embed costs to start
  attnlab.onAfterFrame((stateText, contentHeight, scroll, summary) => {
    life.afterFrame();
    if (!timing.pageToFirstFrameMs) {
      timing.pageToFirstFrameMs = performance.now();
      timing.mountToFirstFrameMs = timing.pageToFirstFrameMs - mountedAt;
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
    hostScroll?.afterFrame();
    access.afterFrame(stateText, summary);
    assets.afterFrame();
    kernelChoice.afterFrame();
  });
  attachSentenceBox(attnlab, canvas, { hostScrolls: embed });
  const exports = attachExports(attnlab);
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
  access = attachAccessibility(attnlab, { root, canvas });
  attnlab.setEmbedded(embed);
  const reducedMotion = typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;
  attnlab.setReducedMotion(reducedMotion);
  if (embed) hostScroll = attachHostScroll(attnlab, { root, canvas, reducedMotion });
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
      access.destroy();
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
