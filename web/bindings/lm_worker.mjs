// The language model's Web Worker (view 12): it loads the model's own module (attnlab-lm.mjs, built
// from web/bindings/lm_js.cpp) and web/assets/lm-brown.bin once, then answers each request with
// computeView (lessons/lm_wire.h's bytes in and out). The page's thread keeps drawing meanwhile.
//
//   page -> worker: {ticket, request: Uint8Array}
//   worker -> page: {ticket, answer: Uint8Array} | {ticket, failed: "why"}  (the model could not load)
import { loadLm } from './lm_load.mjs';

const model = loadLm();
self.onmessage = async ({ data }) => {
  try {
    const lm = await model;
    const answer = lm.computeView(data.request);
    if (!(answer instanceof Uint8Array)) throw new Error(answer?.message || 'the model failed');
    self.postMessage({ ticket: data.ticket, answer }, [answer.buffer]);
  } catch (e) {
    self.postMessage({ ticket: data.ticket, failed: String(e?.message || e) });
  }
};
