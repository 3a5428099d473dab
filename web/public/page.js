// Page shell: load the wasm module and the UI font in parallel, then hand the canvas to the app.
import { loadAttnlab } from './attnlab.js';
import { attachSentenceBox } from './sentence_box.js';

const status = document.getElementById('status');

function showError(message) {
  status.textContent = message;
  status.className = 'error';
  status.hidden = false;
}

async function main() {
  const [attnlab, font] = await Promise.all([
    loadAttnlab(),
    fetch('ui-font.ttf').then((r) => (r.ok ? r.arrayBuffer() : new ArrayBuffer(0))).catch(() => new ArrayBuffer(0)),
  ]);
  attachSentenceBox(attnlab, document.getElementById('canvas'));
  const error = attnlab.start(new Uint8Array(font));
  if (error) {
    showError(`attnlab could not start: ${error}`);
    return;
  }
  status.hidden = true;
  window.attnlab = attnlab;  // for the console and the browser tests
  document.documentElement.dataset.ready = 'true';
  loadWordVectors(attnlab);
  loadPrices(attnlab);
}

// The 1.5 MB GloVe asset loads after the first frame, so the page is usable at once: meanwhile the
// words get hashed stand-in vectors and the page shows how much has arrived.
async function loadWordVectors(attnlab) {
  try {
    const response = await fetch('word-vectors.bin');
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

// prices.csv (30 KB) for view 8, parsed by the engine side like the word vectors.
async function loadPrices(attnlab) {
  try {
    const response = await fetch('prices.csv');
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const error = attnlab.loadPrices(await response.text());
    if (error) console.warn(`attnlab: ${error}`);
  } catch (e) {
    attnlab.pricesFailed(String(e && e.message ? e.message : e));
  }
}

main().catch((e) => showError(`attnlab could not start: ${e && e.message ? e.message : e}`));
