// The kernel settings (attn/kernel_choice.h) measured off the page's thread and kept for the next load.
//
// Why: the probe that picks the fastest kernel's tiles runs at the first computation, and in a page
// it is slow and mostly blind — performance.now() ticks every 100 µs there, so each sample runs about
// 2 ms of calls (250–625 ms on an idle 2-core Zen 5, headless Chromium, relaxed build, 16 settings,
// all before the view's first numbers), and it times V8's baseline code (the winning GEMM at
// 10–50 GFLOP/s where optimised code runs 58–66). So a first load runs today's tiles unmeasured, and
// a second after its first frame a worker of its own probes, its functions warmed long enough for the
// optimised code; the page keeps that choice in localStorage for this engine version, wasm file,
// browser and core count, and a later load sets it before anything computes: no probe on the page's
// thread, ever, and every later load draws the same bits. An entry that does not fit (another
// version, a bad value) is ignored and measured again. Where no worker can run (workers off, a page
// on another origin than attnlab's files) or nothing can be kept, the page probes on its own thread as
// before, and keeps that where it can.
const kStorageKey = 'attnlab.kernelChoice';
const kWorkerWarmupMs = 400;  // per timed function: V8's optimised code arrives well within it
const kProbeDelayMs = 1000;   // after the first frame: the worker does not slow the view's first numbers

function storage() {
  try {
    return window.localStorage;  // throws where storage is denied (a sandboxed frame, some privacy modes)
  } catch {
    return null;
  }
}

function keep(store, entry) {
  try {
    store.setItem(kStorageKey, JSON.stringify(entry));
  } catch {
    // full or denied: the next load measures again
  }
}

// Before anything computes. Returns {afterFrame()}, called after each frame.
export function reuseKernelChoice(attnlab, wasmFile, workers) {
  const nothing = { afterFrame() {} };
  const store = storage();
  const id = [attnlab.version(), wasmFile, navigator.userAgent, navigator.hardwareConcurrency].join(' | ');
  let saved = null;
  try {
    saved = JSON.parse(store?.getItem(kStorageKey) || 'null');
  } catch {
    // not JSON: measured again, and overwritten
  }
  if (saved?.id === id && saved.choice && attnlab.setKernelChoice(saved.choice)?.ok === true) return nothing;
  // The page's own probe, at its first computation, kept once it has run.
  const probeOnThePage = () => ({
    afterFrame() {
      if (this.done || !attnlab.kernelChoiceMade()) return;
      this.done = true;
      const choice = attnlab.kernelChoice();
      if (store && choice?.ok && choice.candidates > 0) keep(store, { id, choice });
    },
  });
  const noWorker = saved?.id === id && saved.noWorker;
  if (!store || !workers || typeof Worker === 'undefined' || noWorker) return probeOnThePage();
  attnlab.useDefaultKernelChoice();
  let started = false;
  return {
    afterFrame() {
      if (started) return;
      started = true;
      setTimeout(() => {
        attnlab.probeKernelChoiceInWorker(kWorkerWarmupMs).then((choice) => {
          if (choice?.candidates > 0) keep(store, { id, choice });
          else if (!choice) keep(store, { id, noWorker: true });  // no worker here: the next load probes itself
        });
      }, kProbeDelayMs);
    },
  };
}
