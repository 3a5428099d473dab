// The page's side of the language model (view 12, web/app/lm_client.h): attnlab.js loads this file on
// the first Module.lmPost(ticket, bytes), and post() hands each request to the model's Web Worker
// (lm_worker.mjs), started on the first request; the answer comes back through Module.lmDone(ticket,
// bytes), a failure through Module.lmFailed(ticket, why). Where no worker can start (no Worker; a page on another origin than attnlab's files) the
// model is loaded on the page's thread and each request runs after the current frame.
export function attachLmHost(m) {
  let worker = null, local = null;
  const pending = new Set();
  const answer = (data) => {
    if (!pending.delete(data.ticket)) return;
    if (data.answer) m.lmDone(data.ticket, data.answer);
    else m.lmFailed(data.ticket, data.failed || 'the model failed');
  };
  const runLocally = (ticket, request) => {
    local ||= import('./lm_load.mjs').then(({ loadLm }) => loadLm());
    local.then((lm) => {
      const bytes = lm.computeView(request);
      answer(bytes instanceof Uint8Array ? { ticket, answer: bytes } : { ticket, failed: bytes?.message || 'the model failed' });
    }, (e) => answer({ ticket, failed: String(e?.message || e) }));
  };
  const post = (ticket, request) => {
    pending.add(ticket);
    if (!worker && !local) {
      try {
        worker = new Worker(new URL('lm_worker.mjs', import.meta.url), { type: 'module' });
        worker.onmessage = ({ data }) => answer(data);
        worker.onerror = (e) => {
          e.preventDefault?.();
          worker?.terminate();
          worker = null;
          for (const t of pending) m.lmFailed(t, `the model's Web Worker stopped (${e.message || 'it could not run'})`);
          pending.clear();
        };
      } catch {
        worker = null;
      }
    }
    if (worker) worker.postMessage({ ticket, request }, [request.buffer]);
    else runLocally(ticket, request);
  };
  return { post, stop: () => { worker?.terminate(); worker = null; pending.clear(); } };
}
