// The page's side of the language model (view 12, web/app/lm_client.h): attnlab.js loads this file on
// the first Module.lmPost(ticket, bytes) or model file, and it hands each message to the model's Web
// Worker (lm_worker.mjs, lm_session.mjs), started on the first one. Where no worker can start (no
// Worker; a page on another origin than attnlab's files) the session runs on the page's thread.
//
//   post(ticket, request)  the view's request; the answer comes back through Module.lmDone(ticket,
//                          bytes), a failure through Module.lmFailed(ticket, why)
//   openFiles(files)       a checkpoint (.safetensors) and its config.json, from the file picker or a
//                          drop: read with the File API (nothing is uploaded), refused before reading
//                          when it cannot fit; Module.lmModelEvent('opening', what), then
//                          lmModelEvent('changed', '') or lmModelEvent('failed', why)
//   pick()                 the file picker (within a click's user activation)
//   reset()                the built-in model again
//   save()                 the model as NAME.safetensors + NAME.config.json, through Module.exportFile
import { createLmSession, transferables } from './lm_session.mjs';

// What the model's module may hold (its wasm memory's limit, -sMAXIMUM_MEMORY in web/CMakeLists.txt).
const kModuleMemory = 4 * 1024 ** 3;
const kMaxHeaderBytes = 16 * 1024 ** 2;  // lm_checkpoint.h's kSafetensorsMaxHeaderBytes
const kDtypeBytes = { F32: 4, F16: 2, BF16: 2 };
const megabytes = (bytes) => `${(bytes / 1024 ** 2).toLocaleString('en-US', { maximumFractionDigits: bytes < 10 * 1024 ** 2 ? 1 : 0 })} MB`;

// The memory opening `file` needs: its bytes in the module while read, plus every parameter as a
// float (F16 and BF16 are widened: the kernels are float32) twice, as read and packed for the
// kernel's products (attn::train::PrepareLm). "" when it fits, else why not; a
// header it cannot read is left for the module to name.
async function refuseIfTooBig(file) {
  let elements = 0;
  try {
    const length = new DataView(await file.slice(0, 8).arrayBuffer()).getBigUint64(0, true);
    if (length > BigInt(kMaxHeaderBytes) || Number(length) + 8 > file.size) return '';
    const header = JSON.parse(await file.slice(8, 8 + Number(length)).text());
    for (const [name, t] of Object.entries(header)) {
      if (name === '__metadata__' || !Array.isArray(t?.shape)) continue;
      if (kDtypeBytes[t.dtype]) elements += t.shape.reduce((a, b) => a * b, 1);
    }
  } catch {
    return '';
  }
  const needed = file.size + 8 * elements;
  if (needed <= kModuleMemory * 0.9) return '';
  return `${file.name} needs about ${megabytes(needed)} to open (the file, ${megabytes(file.size)}, and its ` +
    `${elements.toLocaleString('en-US')} parameters as float32, read and packed for the kernels, ${megabytes(8 * elements)}); the page's model can use ` +
    `at most ${megabytes(kModuleMemory * 0.9)}`;
}

export function attachLmHost(m) {
  let worker = null, local = null, nextTicket = 1;
  const waiting = new Map();  // control ticket -> what to do with the reply
  const pending = new Set();  // the view's tickets
  const reply = (data) => {
    if (typeof data.ticket === 'string') {
      const done = waiting.get(data.ticket);
      waiting.delete(data.ticket);
      done?.(data);
      return;
    }
    if (!pending.delete(data.ticket)) return;
    if (data.answer) m.lmDone(data.ticket, data.answer);
    else m.lmFailed(data.ticket, data.failed || 'the model failed');
  };
  const send = (message) => {
    if (!worker && !local) {
      try {
        worker = new Worker(new URL('lm_worker.mjs', import.meta.url), { type: 'module' });
        worker.onmessage = ({ data }) => reply(data);
        worker.onerror = (e) => {
          e.preventDefault?.();
          worker?.terminate();
          worker = null;
          const why = `the model's Web Worker stopped (${e.message || 'it could not run'})`;
          for (const t of pending) m.lmFailed(t, why);
          pending.clear();
          for (const [ticket, done] of waiting) done({ ticket, failed: why });
          waiting.clear();
        };
      } catch {
        worker = null;
      }
    }
    if (worker) {
      worker.postMessage(message, [message.request?.buffer, message.open?.bytes?.buffer].filter(Boolean));
    } else {
      local ||= createLmSession();
      local.handle(message).then(reply);
    }
  };
  // A control message's reply, as a promise.
  const ask = (message) => new Promise((resolve) => {
    const ticket = `c${nextTicket++}`;
    waiting.set(ticket, resolve);
    send({ ticket, ...message });
  });
  const changed = (data) => {
    if (data.failed) m.lmModelEvent('failed', data.failed);
    else m.lmModelEvent('changed', '');
  };
  const openFiles = async (files) => {
    const list = Array.from(files || []);
    const model = list.find((f) => /\.safetensors$/i.test(f.name));
    const config = list.find((f) => /\.json$/i.test(f.name));
    if (!model) {
      m.lmModelEvent('failed', `expected a .safetensors file (and its config.json), got ${list.map((f) => f.name).join(', ') || 'no file'}`);
      return;
    }
    const tooBig = await refuseIfTooBig(model);
    if (tooBig) {
      m.lmModelEvent('failed', tooBig);
      return;
    }
    m.lmModelEvent('opening', `${model.name} (${megabytes(model.size)})`);
    let bytes, configText = '';
    try {
      bytes = new Uint8Array(await model.arrayBuffer());
      if (config) configText = await config.text();
    } catch (e) {
      m.lmModelEvent('failed', `${model.name} could not be read (${e?.message || e})`);
      return;
    }
    changed(await ask({ open: { bytes, config: configText, name: model.name } }));
  };
  let input = null;
  const pick = () => {
    if (!input) {
      input = document.createElement('input');
      input.type = 'file';
      input.multiple = true;
      input.accept = '.safetensors,.json';
      input.hidden = true;
      input.dataset.attnlab = 'open-model';  // the browser tests set its files
      input.addEventListener('change', () => {
        openFiles(input.files);
        input.value = '';
      });
      document.body.append(input);
    }
    input.click();
  };
  const save = async () => {
    const data = await ask({ save: true });
    if (data.failed) {
      m.lmModelEvent('failed', `the model could not be saved (${data.failed})`);
      return;
    }
    const stem = 'attnlab-lm';
    m.exportFile?.(`${stem}.safetensors`, new Blob([data.saved.safetensors], { type: 'application/octet-stream' }));
    m.exportFile?.(`${stem}.config.json`, new Blob([data.saved.config], { type: 'application/json' }));
  };
  return {
    post: (ticket, request) => {
      pending.add(ticket);
      send({ ticket, request });
    },
    openFiles,
    pick,
    reset: async () => changed(await ask({ reset: true })),
    save,
    stop: () => {
      worker?.terminate();
      worker = null;
      pending.clear();
      waiting.clear();
      input?.remove();
    },
  };
}
