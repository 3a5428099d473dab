// The page's side of its Web Workers (web/bindings/job_worker.mjs, web/app/offload.h), loaded with
// the first job (attnlab.js): a pool of `size` workers, each started when a job first needs it and
// given the compiled module (so no worker fetches or compiles the wasm again); a job goes to the
// worker with the fewest jobs — a sticky one (a training slice, whose model the worker keeps between
// slices) always to the first — and each worker answers its jobs in order. Where no worker can start
// (a page on another origin than attnlab's files, where the browser refuses the script) postJob
// answers false and the app does the work itself, a slice per frame. A worker that fails stops the
// pool: every job it held is answered with workerFailed, and the app keeps its work on the page from
// then on.
export function attachJobWorker(m, wasmModule, size, glueFile = 'attnlab.mjs') {
  const workers = [];  // {worker, pending: Set of tickets}
  let failed = false;
  const fail = (why) => {
    if (failed) return;
    failed = true;
    const failure = { ok: false, message: `the Web Worker stopped (${why})`, workerFailed: true };
    const held = workers.flatMap((w) => [...w.pending]);
    for (const w of workers) w.worker.terminate();
    workers.length = 0;
    if (!held.length) m.jobDone(0, failure);  // none held: the app hears it all the same
    for (const ticket of held) m.jobDone(ticket, failure);
  };
  const start = () => {
    const worker = new Worker(new URL('job_worker.mjs', import.meta.url), { type: 'module' });
    const entry = { worker, pending: new Set() };
    worker.onerror = (e) => { e.preventDefault?.(); fail(e.message || 'it could not run'); };
    worker.onmessageerror = () => fail('a message could not be read');
    worker.onmessage = ({ data }) => {
      if (!entry.pending.delete(data.ticket)) return;
      m.jobDone(data.ticket, data.result);
    };
    // The page's kernel tiling (attn/kernel_choice.h), so the worker computes the page's bits and
    // skips its own probe.
    worker.postMessage({ init: wasmModule, glue: glueFile, kernelChoice: m.kernelChoice?.() });
    workers.push(entry);
    return entry;
  };
  m.jobWorkers = () => (failed ? 0 : size);
  m.postJob = (ticket, job) => {
    if (failed) return false;
    let entry = job.sticky ? workers[0] : workers.find((w) => w.pending.size === 0);
    if (!entry && (workers.length < size || job.sticky)) {
      try {
        entry = start();
      } catch {
        failed = true;
        return false;
      }
    }
    entry ??= workers.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
    entry.pending.add(ticket);
    entry.worker.postMessage({ ticket, job });
    return true;
  };
  return {
    stop: () => { for (const w of workers) w.worker.terminate(); workers.length = 0; failed = true; },
    // Test hook: as if a worker had died (the browser tests check the view reports it and recovers).
    killForTesting: () => { if (workers.length) fail('terminated for testing'); },
  };
}

// The kernel settings measured in a worker of their own, off the page's thread: a module with nothing
// chosen yet probes after running each timed function untimed for up to `warmupMs` (V8's optimised
// code arrives in the meantime). Resolves to its kernelChoice(), or null where no worker can run it.
export function probeInWorker(wasmModule, glueFile, warmupMs) {
  return new Promise((resolve) => {
    let worker;
    try {
      worker = new Worker(new URL('job_worker.mjs', import.meta.url), { type: 'module' });
    } catch {
      resolve(null);
      return;
    }
    const done = (choice) => { worker.terminate(); resolve(choice?.ok ? choice : null); };
    worker.onerror = (e) => { e.preventDefault?.(); done(null); };
    worker.onmessageerror = () => done(null);
    worker.onmessage = ({ data }) => done(data.probe);
    worker.postMessage({ init: wasmModule, glue: glueFile });
    worker.postMessage({ probe: warmupMs });
  });
}
