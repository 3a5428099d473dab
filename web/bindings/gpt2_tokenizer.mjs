// GPT-2's byte-level BPE for view 12, from the npm package js-tiktoken (MIT; scripts/vendor-tiktoken.mjs
// copies it beside this file at build time). lm_session.mjs imports this only when a checkpoint with
// GPT-2's vocabulary is opened, so the page never downloads the 0.5 MB of ranks otherwise.
//
//   const t = gpt2Tokenizer();
//   t.encode(text) -> [ids]   every character is text: "<|endoftext|>" typed is its 7 ordinary tokens
//   t.display(id)  -> the token as the reader reads it: a leading space as "·" (so " the" and "the"
//                     differ on screen), a newline as "\n", a tab as "\t", bytes that are not whole
//                     UTF-8 characters as \xNN; ids past GPT-2's 50,257 (nanoGPT pads its vocabulary
//                     to 50,304) as "[id]"
//   t.vocabulary(V) -> [display(0), …, display(V − 1)]
import { Tiktoken } from './js-tiktoken-lite.mjs';
import ranks from './js-tiktoken-gpt2.mjs';

export const kGpt2Vocabulary = 50257;

export function gpt2Tokenizer() {
  const tiktoken = new Tiktoken(ranks);
  const strict = new TextDecoder('utf-8', { fatal: true });
  const display = (id) => {
    if (id === 50256) return '<|endoftext|>';  // the special token: its text is not its bytes
    const bytes = tiktoken.textMap.get(id);
    if (!bytes) return `[${id}]`;
    let text;
    try {
      text = strict.decode(bytes);
    } catch {
      text = Array.from(bytes, (b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : `\\x${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');
    }
    return text.replace(/^ /, '·').replaceAll('\n', '\\n').replaceAll('\t', '\\t').replaceAll('\r', '\\r');
  };
  return {
    encode: (text) => tiktoken.encode(String(text), [], []),
    display,
    vocabulary: (size) => Array.from({ length: size }, (_, id) => display(id)),
  };
}
