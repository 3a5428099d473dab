// Page shell: load the wasm module and the UI font in parallel, then hand the canvas to the app.
import { loadAttnlab } from './attnlab.js';

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
  const error = attnlab.start(new Uint8Array(font));
  if (error) {
    showError(`attnlab could not start: ${error}`);
    return;
  }
  status.hidden = true;
  window.attnlab = attnlab;  // for the console and the browser tests
  document.documentElement.dataset.ready = 'true';
}

main().catch((e) => showError(`attnlab could not start: ${e && e.message ? e.message : e}`));
