// The page's side of its Web Worker (web/bindings/job_worker.mjs, web/app/offload.h): started on the
// first job, given the compiled module (so the worker neither fetches nor compiles the wasm again),
// one job at a time in order. Where no worker can start (no Worker; a page on another origin than
// attnlab's files, where the browser refuses the script) postJob answers false and the app does the
// work itself, a slice per frame. A worker that fails answers every job it held with workerFailed,
// and the app keeps its work on the page from then on.
export function attachJobWorker(m, wasmModule) {
  let worker = null, failed = false;
  const pending = new Set();
  const fail = (why) => {
    failed = true;
    worker?.terminate();
    worker = null;
    const failure = { ok: false, message: `the Web Worker stopped (${why})`, workerFailed: true };
    if (!pending.size) m.jobDone(0, failure);  // none held: the app hears it all the same
    for (const ticket of pending) m.jobDone(ticket, failure);
    pending.clear();
  };
  m.postJob = (ticket, job) => {
    if (failed) return false;
    if (!worker) {
      try {
        worker = new Worker(new URL('job_worker.mjs', import.meta.url), { type: 'module' });
      } catch {
        failed = true;
        return false;
      }
      worker.onerror = (e) => { e.preventDefault?.(); fail(e.message || 'it could not run'); };
      worker.onmessageerror = () => fail('a message could not be read');
      worker.onmessage = ({ data }) => {
        if (!pending.delete(data.ticket)) return;
        m.jobDone(data.ticket, data.result);
      };
      worker.postMessage({ init: wasmModule });
    }
    pending.add(ticket);
    worker.postMessage({ ticket, job });
    return true;
  };
  return {
    stop: () => { worker?.terminate(); worker = null; failed = true; pending.clear(); },
    // Test hook: as if the worker had died (the browser tests check the view reports it and recovers).
    killForTesting: () => { if (worker) fail('terminated for testing'); },
    running: () => worker !== null,
  };
}
