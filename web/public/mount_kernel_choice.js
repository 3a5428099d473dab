// The kernel settings this browser measured on an earlier load (attn/kernel_choice.h), reused.
//
// Why: the probe that picks the fastest kernel's tiles runs on the page's thread at the first
// computation, and in a page it is slow — performance.now() ticks every 100 µs there, so each of its
// samples runs about 2 ms of calls: 340–510 ms on an idle 2-core Zen 5 (headless Chromium, relaxed
// build, 16 settings), the whole of it before the first frame. A CPU does not change between loads, so
// the first load's measurement serves the next ones (which then draw the same bits, too); it is kept
// for this engine version, build, browser and core count only, and a stored entry that does not fit
// (another version, a bad value) is ignored: the page probes again, as on a first load.
const kStorageKey = 'attnlab.kernelChoice';

function storage() {
  try {
    return window.localStorage;  // throws where storage is denied (a sandboxed frame, some privacy modes)
  } catch {
    return null;
  }
}

// Before the first frame: takes a fitting saved choice. Returns {afterFrame()}: once the page's own
// probe has run, saves its choice for the next load.
export function reuseKernelChoice(attnlab, wasmFile) {
  const store = storage();
  const id = [attnlab.version(), wasmFile, navigator.userAgent, navigator.hardwareConcurrency].join(' | ');
  let done = !store;
  if (store) {
    try {
      const saved = JSON.parse(store.getItem(kStorageKey) || 'null');
      done = saved?.id === id && attnlab.setKernelChoice(saved.choice)?.ok === true;
    } catch {
      done = false;  // not JSON: probe, and overwrite it
    }
  }
  return {
    afterFrame() {
      if (done || !attnlab.kernelChoiceMade()) return;
      done = true;
      const choice = attnlab.kernelChoice();
      if (!choice?.ok || !(choice.candidates > 0)) return;  // the defaults, unmeasured: nothing to keep
      try {
        store.setItem(kStorageKey, JSON.stringify({ id, choice }));
      } catch {
        // full or denied: the next load probes again
      }
    },
  };
}
