// The page's Web Worker for long work (web/app/offload.h): it runs the page's own module, compiled
// once by the page and posted here (nothing is fetched or compiled again), without starting the app,
// and answers each job with the same C++ the main thread would run (page_js.cpp's runJob).
//
//   page -> worker: {init: WebAssembly.Module, glue: its glue's file name, kernelChoice: the page's
//                    kernelChoice(), which the worker's module takes}, then {ticket, job}
//   worker -> page: {ticket, result}  (result: runJob's {ok, value, bytes?}; the bytes' buffer is transferred)
// or, for a worker started without a kernelChoice to measure one (web/public/mount_kernel_choice.js):
//   page -> worker: {probe: warmupMs};  worker -> page: {probe: its kernelChoice(), probed}
const kGlues = ['attnlab.mjs', 'attnlab-lite.mjs'];  // the page's two modules (web/app/module_views.h)

let module = null;
self.onmessage = async ({ data }) => {
  if (data.init) {
    // Set before any await: a job posted right behind init waits for the module.
    module = import(data.glue === kGlues[1] ? './attnlab-lite.mjs' : './attnlab.mjs').then(({ default: create }) => create({
      instantiateWasm: (imports, done) => {
        WebAssembly.instantiate(data.init, imports).then((instance) => done(instance, data.init));
        return {};
      },
    })).then((m) => {
      if (data.kernelChoice?.ok) m.setKernelChoice(data.kernelChoice);
      return m;
    });
    return;
  }
  if (data.probe !== undefined) {
    let probe;
    try {
      probe = (await module).probeKernelChoice(data.probe);
    } catch (e) {
      probe = { ok: false, message: `the worker failed: ${e?.message || e}` };
    }
    self.postMessage({ probe });
    return;
  }
  let result;
  try {
    result = (await module).runJob(data.job);
  } catch (e) {
    result = { ok: false, message: `the worker failed: ${e?.message || e}`, workerFailed: true };
  }
  const transfer = [result.bytes?.buffer].filter(Boolean);
  self.postMessage({ ticket: data.ticket, result }, transfer);
};
