// Copies GPT-2's byte-level BPE from the npm package js-tiktoken (MIT, a devDependency) into the
// site as ES modules a browser loads without a bundler: the page imports them (through
// web/bindings/gpt2_tokenizer.mjs) only when a GPT-2-vocabulary checkpoint is opened in view 12.
//   node scripts/vendor-tiktoken.mjs OUT_DIR
// writes OUT_DIR/js-tiktoken-lite.mjs (the library, its one bare import made relative),
// OUT_DIR/base64-js.mjs (its dependency base64-js, MIT, wrapped as a module) and
// OUT_DIR/js-tiktoken-gpt2.mjs (the GPT-2 ranks, 50,257 tokens). Nothing of it is committed.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const out = process.argv[2];
if (!out) {
  console.error('usage: node scripts/vendor-tiktoken.mjs OUT_DIR');
  process.exit(2);
}
const modules = join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules');
const tiktokenDir = join(modules, 'js-tiktoken');
const base64Dir = join(modules, 'base64-js');
const version = (dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
const banner = (name, dir) => `// ${name} ${version(dir)} (MIT; its LICENSE is in the npm package), copied by scripts/vendor-tiktoken.mjs.\n`;

// The library: lite.js re-exports a chunk that imports 'base64-js' by its bare name.
const lite = readFileSync(join(tiktokenDir, 'dist/lite.js'), 'utf8');
const chunk = /from '\.\/(chunk-[A-Za-z0-9]+\.js)'/.exec(lite)?.[1];
if (!chunk) throw new Error(`js-tiktoken ${version(tiktokenDir)}: dist/lite.js no longer re-exports a chunk; update this script`);
const library = readFileSync(join(tiktokenDir, 'dist', chunk), 'utf8');
if (!library.includes("from 'base64-js'")) throw new Error(`js-tiktoken: ${chunk} no longer imports base64-js; update this script`);
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'js-tiktoken-lite.mjs'), banner('js-tiktoken', tiktokenDir) + library.replace("from 'base64-js'", "from './base64-js.mjs'"));
// base64-js is CommonJS: run it with a module object of its own and export what it set.
const base64 = readFileSync(join(base64Dir, 'index.js'), 'utf8');
writeFileSync(join(out, 'base64-js.mjs'),
  banner('base64-js', base64Dir) + 'const module = { exports: {} };\nconst exports = module.exports;\n' + base64 + '\nexport default module.exports;\n');
writeFileSync(join(out, 'js-tiktoken-gpt2.mjs'), banner('js-tiktoken', tiktokenDir) + readFileSync(join(tiktokenDir, 'dist/ranks/gpt2.js'), 'utf8'));
