// Assembles the npm package `attnlab`: node scripts/build-lib.mjs [--pack] [BUILD_LIB_DIR] [OUT_DIR]
// (defaults build/wasm/lib -> build/npm/attnlab; scripts/build-lib.sh builds the wasm first).
//
// The package: the engine-only module (attnlab-engine.mjs + .wasm, CMake target attnlab_lib, and
// attnlab-engine-relaxed.wasm, its relaxed-SIMD twin: target attnlab_lib_relaxed), the
// loader and its types (web/lib/index.mjs, index.d.ts), its README and the licence, and a
// package.json whose version is the root package.json's (one version in one place: CMake's
// project() and attn::Version() say the same, tests/cli_version_test.cmake checks). --pack runs
// `npm pack` on it and writes the tarball beside OUT_DIR.
import { execFileSync } from 'node:child_process';
import { copyFile, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

// Where each file of the package comes from.
const kFiles = (buildLibDir) => ({
  'attnlab-engine.mjs': join(buildLibDir, 'attnlab-engine.mjs'),
  'attnlab-engine.wasm': join(buildLibDir, 'attnlab-engine.wasm'),
  // The relaxed-SIMD build (CMake target attnlab_lib_relaxed), loaded where the engine has relaxed SIMD.
  'attnlab-engine-relaxed.wasm': join(buildLibDir, 'attnlab-engine-relaxed.wasm'),
  'relaxed_simd.mjs': join(root, 'web/bindings/relaxed_simd.mjs'),
  // The language model's module (CMake target attnlab_lm, built beside the page) and its weights.
  'attnlab-lm.mjs': join(buildLibDir, '../site/attnlab-lm.mjs'),
  'attnlab-lm.wasm': join(buildLibDir, '../site/attnlab-lm.wasm'),
  'lm-brown.bin': join(root, 'web/assets/lm-brown.bin'),
  'index.mjs': join(root, 'web/lib/index.mjs'),
  'index.d.ts': join(root, 'web/lib/index.d.ts'),
  'README.md': join(root, 'web/lib/README.md'),
  LICENSE: join(root, 'LICENSE'),
});

export async function buildLib(buildLibDir, outDir) {
  const rootPackage = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
  const files = kFiles(buildLibDir);
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  for (const [name, from] of Object.entries(files)) await copyFile(from, join(outDir, name));
  const manifest = {
    name: 'attnlab',
    version: rootPackage.version,
    description: 'Self-attention as WebAssembly: forward, fused forward and backward of a C++ attention engine, with strict inputs, for browsers, Web Workers and node.',
    license: rootPackage.license,
    type: 'module',
    main: './index.mjs',
    types: './index.d.ts',
    exports: {
      '.': { types: './index.d.ts', import: './index.mjs', default: './index.mjs' },
      './attnlab-engine.wasm': './attnlab-engine.wasm',
      './attnlab-engine-relaxed.wasm': './attnlab-engine-relaxed.wasm',
      './attnlab-lm.wasm': './attnlab-lm.wasm',
      './lm-brown.bin': './lm-brown.bin',
      './package.json': './package.json',
    },
    files: Object.keys(files),
    // GPT-2's BPE for openModel's texts: imported only when a GPT-2-vocabulary checkpoint opens.
    peerDependencies: { 'js-tiktoken': `^${rootPackage.devDependencies['js-tiktoken']}` },
    peerDependenciesMeta: { 'js-tiktoken': { optional: true } },
    sideEffects: false,
    engines: { node: '>=18' },
    keywords: ['attention', 'transformer', 'webassembly', 'wasm', 'simd', 'softmax'],
  };
  await writeFile(join(outDir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const wasm = await readFile(join(outDir, 'attnlab-engine.wasm'));
  const glue = await readFile(join(outDir, 'attnlab-engine.mjs'));
  return {
    version: manifest.version,
    wasmBytes: wasm.length,
    wasmGzipBytes: gzipSync(wasm, { level: 9 }).length,
    glueBytes: glue.length,
    glueGzipBytes: gzipSync(glue, { level: 9 }).length,
  };
}

// `npm pack` of the package in `outDir` into `destination`; returns the tarball's path. Packing
// reads no registry (the package's one peer dependency, js-tiktoken, is optional).
export function packLib(outDir, destination) {
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', destination, outDir],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return join(destination, JSON.parse(out)[0].filename);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const pack = args.includes('--pack');
  const [buildLibDir = join(root, 'build/wasm/lib'), outDir = join(root, 'build/npm/attnlab')] = args.filter((a) => a !== '--pack').map((a) => resolve(a));
  const kib = (n) => `${(n / 1024).toFixed(0)} KiB`;
  const s = await buildLib(buildLibDir, outDir);
  console.log(`build-lib: ${outDir}: attnlab ${s.version}; wasm ${kib(s.wasmBytes)} (${kib(s.wasmGzipBytes)} gzip), ` +
              `glue ${kib(s.glueBytes)} (${kib(s.glueGzipBytes)} gzip)`);
  if (pack) {
    const tarball = packLib(outDir, dirname(outDir));
    console.log(`build-lib: ${tarball} (${kib((await stat(tarball)).size)})`);
  }
}
