// Loads the language model's module (attnlab-lm.mjs), its weights (lm-brown.bin, 1.4 MB) and what its
// heads do on held-out text (lm-brown-heads.txt, 6 KB), all beside this file: in view 12's Web Worker
// (lm_worker.mjs) or, where no worker can start, on the page's thread (lm_host.mjs). Resolves to the
// module with the model loaded, or rejects with why; without the heads' table the view says so.
import createAttnlabLm from './attnlab-lm.mjs';

export async function loadLm() {
  const heads = fetch(new URL('lm-brown-heads.txt', import.meta.url)).then((r) => (r.ok ? r.text() : '')).catch(() => '');
  const [lm, response] = await Promise.all([createAttnlabLm(), fetch(new URL('lm-brown.bin', import.meta.url))]);
  if (!response.ok) throw new Error(`lm-brown.bin: HTTP ${response.status}`);
  const error = lm.loadModel(new Uint8Array(await response.arrayBuffer()));
  if (error) throw new Error(error);
  const table = await heads;
  if (table) {
    const problem = lm.loadHeads(table);
    if (problem) console.warn(`attnlab: lm-brown-heads.txt: ${problem}`);
  }
  return lm;
}
