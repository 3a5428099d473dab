// Regenerates tests/data/gpt2-bpe-golden.txt: texts and the GPT-2 token ids js-tiktoken (the page's
// tokenizer, MIT) gives them, which attn::train's C++ tokenizer must match exactly
// (tests/train/gpt2_bpe_test.cpp; CI runs it without network or node_modules, on the committed file).
// Usage: node scripts/build-gpt2-golden.mjs           writes the file
//        node scripts/build-gpt2-golden.mjs --check   exits 1 when the committed file is not what
//                                                     this js-tiktoken gives (after an upgrade)
//
// One line per text: the text's bytes in hex, a tab, the ids separated by spaces. Bytes, so that a
// text may hold invalid UTF-8: js-tiktoken takes a string, so those bytes are first read as the page
// reads them (TextDecoder, each maximal invalid subpart becoming U+FFFD), and the C++ does the same.
// <|endoftext|> in a text is text (encode(text, [], []): no special tokens), as in the C++.
// The texts: sentences in the Brown corpus's style (its first ones among them), the pattern's
// corners written out, then seeded random strings over an alphabet of the characters the
// pre-tokenizer tells apart, and seeded random bytes. No randomness beyond the fixed seed.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Tiktoken } from 'js-tiktoken/lite';
import gpt2 from 'js-tiktoken/ranks/gpt2';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'tests/data/gpt2-bpe-golden.txt');
const enc = new Tiktoken(gpt2);

const SENTENCES = [
  "The Fulton County Grand Jury said Friday an investigation of Atlanta's recent primary election produced `` no evidence '' that any irregularities took place.",
  'The jury further said in term-end presentments that the City Executive Committee, which had over-all charge of the election, `` deserves the praise and thanks of the City of Atlanta \'\' for the manner in which the election was conducted.',
  "It urged that the city `` take steps to remedy '' this problem.",
  'Only a relative handful of such reports was received, the jury said, `` considering the widespread interest in the election, the number of voters and the size of this city \'\'.',
  'The September-October term jury had been charged by Fulton Superior Court Judge Durwood Pye to investigate reports of possible `` irregularities \'\' in the hard-fought primary which was won by Mayor-nominate Ivan Allen Jr.',
  'Merger proposed',
  'However, the jury said it believes `` these two offices should be combined to achieve greater efficiency and reduce the cost of administration \'\'.',
  "He said he'd rather not; they're sure we've seen it, and I'm told you'll agree. Don't! It's HE'S, not he's.",
  'In 1961, 3,200 of the 14.5 million voters paid $1,500.75 each -- about 12% (or 0.03) of 2nd-quarter income.',
  'Wait... what?!?! ***Really*** <<no>> [[yes]] {{maybe}} ~~~ ### @@@ ;;; :::',
  'Line one.\nLine two.\n\nLine four after a blank line.\r\nWindows line.\tTabbed\t\tcolumns.',
  '    indented four spaces\n        and eight\n',
  'trailing spaces   ',
  '   ',
  '\n\n\n',
  ' \n \n ',
  'Café au lait, naïve façade, Straße, Größe, smörgåsbord, crème brûlée.',
  'Η γρήγορη καφέ αλεπού πηδά πάνω από τον τεμπέλη σκύλο.',
  'Съешь же ещё этих мягких французских булок да выпей чаю.',
  '日本語のテキストと中文文本，還有한국어 문장。',
  'Emoji: 😀 👍🏽 👨‍👩‍👧‍👦 🇫🇷 ❤️ and ✓ marks.',
  'Numbers in other scripts: ١٢٣ ४५६ 七八九 Ⅻ ² ½ ①',
  'Combining: e\u0301 a\u0308 n\u0303; zero\u200bwidth; non\u00a0breaking; ideographic\u3000space; bom\ufeffhere.',
  'Control: bell\u0007 escape\u001b NEL\u0085 FS\u001c vertical\u000btab form\u000cfeed line\u2028sep para\u2029sep',
  "'s 't 're 've 'm 'll 'd 'S 'T 'RE 'x ''s '''' 'sss 'lll 'dd",
  "rock'n'roll o'clock y'all ma'am '90s '",
  '<|endoftext|> is text here, not the special token; <|endoftext|>',
  'a  b   c    d\t e \t f \n g',
  '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!',
  'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
  '1234567890123456789012345678901234567890 000000 999 1e10 3.14159 0x1F',
  'https://example.com/path?query=a&b=c#frag user@example.org C:\\Windows\\System32',
  'def f(x):\n    return x ** 2  # square\n\nprint(f(3))',
  '{"key": [1, 2, {"nested": null}], "s": "\\u00e9"}',
  'ALL CAPS SENTENCE WITH NUMBERS 123 AND PUNCTUATION!!!',
  'mIxEd CaSe WoRdS aNd   SpAcEs',
  'x',
  ' ',
  'é',
  '',
];

// Seeded (mulberry32): the same file on every run.
function random(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = random(28);
const ALPHABET = [' ', ' ', ' ', '  ', '\n', '\t', '\r', '\u000b', '\u000c', '\u00a0', '\u3000', '\u2028', '\ufeff', '\u0085',
  '\u001c', "'", "'", 's', 't', 're', 'll', 'd', 'm', 've', 'S', 'a', 'b', 'the', 'The', 'ing', 'tion', 'Q', 'z', 'é', 'ß',
  'Ω', 'α', 'ж', '中', '文', 'ア', '한', '😀', '👍🏽', '\u200d', '\u0301', '0', '1', '42', '٣', 'Ⅻ', '²', '½', '.', ',', '!',
  '?', '-', '--', '"', '(', ')', '…', '—', '€', '$', '%', '#', '\\', '/', '_', '<|endoftext|>'];
const RANDOM_TEXTS = 400;
const randomTexts = [];
for (let i = 0; i < RANDOM_TEXTS; ++i) {
  const n = 1 + Math.floor(rand() * 24);
  let s = '';
  for (let k = 0; k < n; ++k) s += ALPHABET[Math.floor(rand() * ALPHABET.length)];
  randomTexts.push(s);
}

// Byte strings, mostly invalid UTF-8: truncated and overlong sequences, surrogates, bytes above
// F4, lone continuation bytes, written out, then seeded random bytes mixed with ASCII.
const BYTES = [
  [0xe2], [0xe2, 0x82], [0xe2, 0x82, 0xac], [0x61, 0xe2, 0x82, 0x62], [0xc0, 0xaf], [0xe0, 0x80, 0xaf],
  [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xf5, 0x80], [0xff, 0xfe], [0x80, 0x80, 0x80], [0xf0, 0x9f, 0x98],
  [0x20, 0xf0, 0x9f, 0x98, 0x20, 0x41], [0xc3], [0x41, 0xc3, 0x20, 0x42], [0xef, 0xbf, 0xbd],
];
const randomBytes = [];
for (let i = 0; i < 200; ++i) {
  const n = 1 + Math.floor(rand() * 16);
  const b = [];
  for (let k = 0; k < n; ++k) {
    const r = rand();
    b.push(r < 0.3 ? 0x20 + Math.floor(rand() * 95) : r < 0.4 ? 0x20 : Math.floor(rand() * 256));
  }
  randomBytes.push(b);
}

// Non-fatal: U+FFFD per maximal invalid subpart; ignoreBOM keeps a leading U+FEFF (text, as in C++).
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
const cases = [
  ...[...SENTENCES, ...randomTexts].map((s) => Buffer.from(s, 'utf8')),
  ...[...BYTES, ...randomBytes].map((b) => Buffer.from(b)),
];
let lines = '', tokens = 0;
for (const bytes of cases) {
  const text = decoder.decode(bytes);
  const ids = enc.encode(text, [], []);
  const back = enc.decode(ids);  // (its TextDecoder drops a leading U+FEFF)
  if (back !== text.replace(/^\ufeff/, '')) throw new Error(`js-tiktoken's round trip failed on ${bytes.toString('hex')}`);
  tokens += ids.length;
  lines += `${bytes.toString('hex')}\t${ids.join(' ')}\n`;
}
const header = `# GPT-2 BPE ids from js-tiktoken (scripts/build-gpt2-golden.mjs): hex of the text's bytes, tab, ids\n`;
const text = header + lines;
if (process.argv.includes('--check')) {
  if (readFileSync(out, 'utf8') !== text) {
    console.error(`${out} is not what this js-tiktoken gives: run node scripts/build-gpt2-golden.mjs`);
    process.exit(1);
  }
  console.log(`gpt2-bpe-golden.txt: ${cases.length} texts, ${tokens} tokens, as js-tiktoken gives them`);
} else {
  writeFileSync(out, text);
  console.log(`gpt2-bpe-golden.txt: ${cases.length} texts, ${tokens} tokens`);
}
