// View 12's model module and what it holds, in the model's Web Worker (lm_worker.mjs) or, where no
// worker can start, on the page's thread (lm_host.mjs): the built-in model (attnlab-lm.mjs with
// lm-brown.bin, 1.4 MB, and its heads' held-out table lm-brown-heads.txt, 6 KB, all beside this file)
// or a checkpoint the reader opened (File API bytes: nothing leaves the machine). Messages are
// handled one after another, so a request never meets a half-opened model:
//
//   {ticket, request: Uint8Array}           -> {ticket, answer: Uint8Array} (lessons/lm_wire.h)
//   {ticket, open: {bytes, config, name}}   -> {ticket, opened: {name, tokenizer, info}}
//   {ticket, reset: true}                   -> {ticket, opened: {…}} (the built-in model again)
//   {ticket, save: true}                    -> {ticket, saved: {safetensors: Uint8Array, config}}
//   any of them                             -> {ticket, failed: "why"}
import createAttnlabLm from './attnlab-lm.mjs';

// The tokens a checkpoint without words of its own may have and still be read with GPT-2's BPE:
// GPT-2's 50,257, or nanoGPT's padding of them to 50,304 (the extra ids are never typed).
const kGpt2Tokens = 50257, kNanoGptPaddedTokens = 50304;

async function loadBuiltIn(lm) {
  const heads = fetch(new URL('lm-brown-heads.txt', import.meta.url)).then((r) => (r.ok ? r.text() : '')).catch(() => '');
  const response = await fetch(new URL('lm-brown.bin', import.meta.url));
  if (!response.ok) throw new Error(`lm-brown.bin: HTTP ${response.status}`);
  const error = lm.loadModel(new Uint8Array(await response.arrayBuffer()));
  if (error) throw new Error(error);
  const table = await heads;
  if (table) {
    const problem = lm.loadHeads(table);
    if (problem) console.warn(`attnlab: lm-brown-heads.txt: ${problem}`);
  }
  return { name: '', tokenizer: 'words', info: lm.info() };
}

// Opens a checkpoint and names its tokenizer: its own words (attnlab's exports), GPT-2's BPE for a
// GPT-2 vocabulary, or, for any other vocabulary without words, the token ids typed in the sentence.
async function open(lm, { bytes, config, name }) {
  const info = lm.openModel(bytes, config || '', 0);
  if (!info.ok) throw new Error(info.message);
  try {
    return await nameOpened(lm, info, name);
  } catch (e) {
    await loadBuiltIn(lm);  // a checkpoint that cannot be read is not left half-named in the module
    throw e;
  }
}

async function nameOpened(lm, info, name) {
  const ownWords = info.words;
  let tokenizer = 'words', vocabulary = null, encode = null;
  if (!ownWords && (info.vocabulary < kGpt2Tokens || info.vocabulary > kNanoGptPaddedTokens)) {
    // No words and not GPT-2's vocabulary: the sentence is read as the ids typed ("5 17 96"), shown as [id].
    tokenizer = 'ids';
    encode = (text) => (String(text).match(/\d+/g) || []).map(Number);
  } else if (!ownWords) {
    const { gpt2Tokenizer } = await import('./gpt2_tokenizer.mjs');
    const t = gpt2Tokenizer();
    tokenizer = 'gpt2';
    vocabulary = t.vocabulary(info.vocabulary);
    encode = t.encode;
  }
  const error = lm.nameModel(name, tokenizer, vocabulary, encode);
  if (error) throw new Error(error);
  return { name, tokenizer, info: lm.info() };
}

// The model module with the built-in model loaded, called directly (the browser tests compare the
// view with it).
export async function loadLm() {
  const lm = await createAttnlabLm();
  await loadBuiltIn(lm);
  return lm;
}

export function createLmSession() {
  const module = createAttnlabLm();
  let queue = module.then(loadBuiltIn);
  const run = (ticket, work) => {
    const reply = queue.then(() => module).then(work).then(
      (value) => ({ ticket, ...value }),
      (e) => ({ ticket, failed: String(e?.message || e) }));
    queue = reply;  // the next message waits for this one, whatever it gave
    return reply;
  };
  return {
    // The reply to one message (see the top), with what can be transferred.
    handle(data) {
      const { ticket } = data;
      if (data.request) {
        return run(ticket, (lm) => {
          const answer = lm.computeView(data.request);
          if (!(answer instanceof Uint8Array)) throw new Error(answer?.message || 'the model failed');
          return { answer };
        });
      }
      if (data.open) return run(ticket, async (lm) => ({ opened: await open(lm, data.open) }));
      if (data.reset) return run(ticket, async (lm) => ({ opened: await loadBuiltIn(lm) }));
      if (data.save) {
        return run(ticket, (lm) => {
          const saved = lm.saveModel();
          if (!saved.ok) throw new Error(saved.message);
          return { saved: { safetensors: saved.safetensors, config: saved.config } };
        });
      }
      return Promise.resolve({ ticket, failed: 'the model got a message it does not know' });
    },
  };
}

// What a reply can hand over without copying.
export function transferables(reply) {
  return [reply.answer?.buffer, reply.saved?.safetensors?.buffer].filter(Boolean);
}
