// Regenerates engine/train/data/gpt2-bpe.bin: GPT-2's byte-level BPE (its 50,256 ranked byte
// strings and the <|endoftext|> token) from the npm package js-tiktoken (MIT; the page tokenizes
// with the same package), plus the Unicode classes GPT-2's pre-tokenizer needs (\p{L}, \p{N}, \s)
// as this node's regular expressions see them, the ones js-tiktoken's pattern runs on. The CLI
// embeds the file at build time (engine/train/CMakeLists.txt); engine/train/data/README.md says
// where each part comes from. Build-time only, no network: js-tiktoken is a devDependency.
// Usage: node scripts/build-gpt2-vocab.mjs   (then node scripts/build-gpt2-golden.mjs)
//        node scripts/build-gpt2-vocab.mjs --check   exits 1 when the committed ranks are not this
//                                                    js-tiktoken's (scripts/gpt2-bpe.test.mjs)
//
// Format (little-endian; read by attn/train/gpt2_bpe.h, which checks every count and range):
//   "ATTNBPE1"
//   u32 ranks (50,256)   u32 special id (50,256)   u32 special length   special bytes
//   256 × u8: the byte of ranks 0–255 (GPT-2's order: "!" first, not byte 0)
//   (ranks − 256) × (u16 left, u16 right): rank r ≥ 256 is the bytes of rank `left` then of rank
//     `right`, both below r (every GPT-2 token past the bytes is a merge of two earlier ones: half
//     the size of the byte strings themselves, 197 KiB against 330 KiB with lengths)
//   3 × (u32 count, count × (u32 first, u32 last)): code point ranges of \p{L}, \p{N}, \s, sorted
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import gpt2 from 'js-tiktoken/ranks/gpt2';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'engine/train/data/gpt2-bpe.bin');
// (The package's exports map hides package.json: read from node_modules, where npm put it.)
const version = JSON.parse(readFileSync(join(root, 'node_modules/js-tiktoken/package.json'), 'utf8')).version;

// The pre-tokenizer is written by hand in C++ (gpt2_bpe.cpp) for this pattern; another one would
// need new code, not new data.
const PATTERN = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";
if (gpt2.pat_str !== PATTERN) throw new Error(`js-tiktoken ${version}: gpt2's pattern changed: ${gpt2.pat_str}`);
const special = Object.entries(gpt2.special_tokens);
if (special.length !== 1 || special[0][0] !== '<|endoftext|>' || special[0][1] !== 50256 || gpt2.explicit_n_vocab !== 50257)
  throw new Error(`js-tiktoken ${version}: expected <|endoftext|> = 50256 of 50,257, got ${JSON.stringify(gpt2.special_tokens)}`);

// js-tiktoken's own parse (dist/chunk-*.js): lines "name offset token token …", tokens base64.
const tokens = [];
for (const line of gpt2.bpe_ranks.split('\n').filter(Boolean)) {
  const [, offsetText, ...list] = line.split(' ');
  const offset = Number.parseInt(offsetText, 10);
  list.forEach((t, i) => { tokens[offset + i] = Buffer.from(t, 'base64'); });
}
const ranks = tokens.length;
if (ranks !== 50256 || tokens.some((t) => t === undefined)) throw new Error(`expected ranks 0–50255, got ${ranks}`);
const rankOf = new Map(tokens.map((t, r) => [t.toString('latin1'), r]));
if (rankOf.size !== ranks) throw new Error('two ranks hold the same bytes');
for (let r = 0; r < 256; ++r) if (tokens[r].length !== 1) throw new Error(`rank ${r} is not one byte`);
if (new Set(tokens.slice(0, 256).map((t) => t[0])).size !== 256) throw new Error('ranks 0–255 are not the 256 bytes');

const pairs = Buffer.alloc((ranks - 256) * 4);
for (let r = 256; r < ranks; ++r) {
  const t = tokens[r].toString('latin1');
  let found = false;
  for (let cut = 1; cut < t.length && !found; ++cut) {
    const left = rankOf.get(t.slice(0, cut)), right = rankOf.get(t.slice(cut));
    if (left !== undefined && right !== undefined && left < r && right < r) {
      pairs.writeUInt16LE(left, (r - 256) * 4);
      pairs.writeUInt16LE(right, (r - 256) * 4 + 2);
      found = true;
    }
  }
  if (!found) throw new Error(`rank ${r} is no two earlier ranks`);
}

// Code point ranges where `re` matches (surrogates skipped: UTF-8 holds none).
function ranges(re) {
  const list = [];
  for (let cp = 0; cp <= 0x10ffff; ++cp) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    if (!re.test(String.fromCodePoint(cp))) continue;
    const last = list[list.length - 1];
    if (last && last[1] === cp - 1) last[1] = cp;
    else list.push([cp, cp]);
  }
  return list;
}
const classes = [ranges(/^\p{L}$/u), ranges(/^\p{N}$/u), ranges(/^\s$/u)];

const specialBytes = Buffer.from(special[0][0], 'utf8');
const head = Buffer.alloc(8 + 12);
head.write('ATTNBPE1', 0, 'latin1');
head.writeUInt32LE(ranks, 8);
head.writeUInt32LE(special[0][1], 12);
head.writeUInt32LE(specialBytes.length, 16);
const classBytes = classes.map((list) => {
  const b = Buffer.alloc(4 + list.length * 8);
  b.writeUInt32LE(list.length, 0);
  list.forEach(([first, last], i) => { b.writeUInt32LE(first, 4 + i * 8); b.writeUInt32LE(last, 8 + i * 8); });
  return b;
});
const ranksPart = Buffer.concat([head, specialBytes, Buffer.from(tokens.slice(0, 256).map((t) => t[0])), pairs]);
const bytes = Buffer.concat([ranksPart, ...classBytes]);
if (process.argv.includes('--check')) {
  // The ranks must be the committed ones; the classes follow this node's Unicode version, so another
  // node may differ there (a note, not a failure: the golden file says whether any text moved).
  const committed = readFileSync(out);
  if (!committed.subarray(0, ranksPart.length).equals(ranksPart)) {
    console.error(`${out}: the ranks are not js-tiktoken ${version}'s: run node scripts/build-gpt2-vocab.mjs`);
    process.exit(1);
  }
  if (!committed.equals(bytes))
    console.log(`gpt2-bpe.bin: the Unicode classes differ from node ${process.versions.node}'s (Unicode ${process.versions.unicode})`);
  console.log(`gpt2-bpe.bin: the ranks are js-tiktoken ${version}'s`);
  process.exit(0);
}
writeFileSync(out, bytes);
console.log(`gpt2-bpe.bin: js-tiktoken ${version}, ${ranks} ranks + <|endoftext|>, ranges L ${classes[0].length}, ` +
  `N ${classes[1].length}, \\s ${classes[2].length} (node ${process.versions.node}, Unicode ${process.versions.unicode}); ` +
  `${bytes.length} bytes, sha256 ${createHash('sha256').update(bytes).digest('hex')}`);
