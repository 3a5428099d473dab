// Loads the language model's module (attnlab-lm.mjs) and its weights (lm-brown.bin, 1.4 MB), both
// beside this file: in view 12's Web Worker (lm_worker.mjs) or, where no worker can start, on the
// page's thread (lm_host.mjs). Resolves to the module with the model loaded, or rejects with why.
import createAttnlabLm from './attnlab-lm.mjs';

export async function loadLm() {
  const [lm, response] = await Promise.all([createAttnlabLm(), fetch(new URL('lm-brown.bin', import.meta.url))]);
  if (!response.ok) throw new Error(`lm-brown.bin: HTTP ${response.status}`);
  const error = lm.loadModel(new Uint8Array(await response.arrayBuffer()));
  if (error) throw new Error(error);
  return lm;
}
