// The static build to host anywhere: node scripts/build-dist.mjs [SITE_DIR] [OUT_DIR]
// (defaults build/wasm/site -> dist; `npm run build` runs it after building the site).
//
// Every file but the entry points gets a content-hashed name (mount.3f9a1c2b.js), and every
// reference to it is rewritten, leaves first, so a file's hash covers everything it loads. The entry
// points keep their names: index.html (the explorer), attnlab-embed.js (the latest embed script).
// attnlab-embed.<hash>.js is the same script under a name a blog can pin: it and everything it loads
// never change. manifest.json lists name -> hashed name (the Share button reads it to give the pinned
// script; the site's own manifest.json, for npm start, names nothing hashed and is replaced). All
// references stay relative, so dist/ works from any sub-path of any static host, with no special
// headers. dist/ holds only what a host serves: the example post (site/examples/) and the npm package
// (build/npm/) stay out.
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const kEntries = new Set(['index.html', 'attnlab-embed.js']);
const kText = new Set(['.html', '.js', '.mjs', '.css']);

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// A file name as code references it: right after a quote or "url(", or after one with "./"; before a
// quote, ")", "#" or "?" (so "web/public/mount.js" in a comment is no reference).
const referencePattern = (name) => new RegExp(`(?<=['"(]|['"(]\\./)${escape(name)}(?=['")#?])`, 'g');

function hashedName(name, bytes) {
  const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 10);
  const ext = extname(name);
  return `${name.slice(0, -ext.length)}.${hash}${ext}`;
}

export async function buildDist(siteDir, outDir) {
  const files = (await readdir(siteDir, { withFileTypes: true })).filter((e) => e.isFile() && e.name !== 'manifest.json').map((e) => e.name);
  const content = new Map();
  for (const name of files) content.set(name, await readFile(join(siteDir, name)));
  const hashable = files.filter((n) => !kEntries.has(n));
  const refsOf = (name) => (kText.has(extname(name))
    ? hashable.filter((other) => other !== name && referencePattern(other).test(content.get(name).toString('utf8')))
    : []);
  const rewrite = (name) => {
    if (!kText.has(extname(name))) return content.get(name);
    let text = content.get(name).toString('utf8');
    for (const other of refsOf(name)) text = text.replace(referencePattern(other), renamed.get(other));
    return Buffer.from(text, 'utf8');
  };

  // Leaves first: a file is renamed once everything it references has its final name.
  const renamed = new Map();
  const output = new Map();
  while (renamed.size < hashable.length) {
    const ready = hashable.filter((n) => !renamed.has(n) && refsOf(n).every((r) => renamed.has(r)));
    if (!ready.length) throw new Error(`build-dist: circular references among ${hashable.filter((n) => !renamed.has(n)).join(', ')}`);
    for (const name of ready) {
      const bytes = rewrite(name);
      renamed.set(name, hashedName(name, bytes));
      output.set(renamed.get(name), bytes);
    }
  }
  for (const entry of kEntries) {
    if (!content.has(entry)) throw new Error(`build-dist: ${entry} missing from ${siteDir}`);
    const bytes = rewrite(entry);
    output.set(entry, bytes);
    if (entry.endsWith('.js')) renamed.set(entry, hashedName(entry, bytes));
    if (entry.endsWith('.js')) output.set(renamed.get(entry), bytes);
  }

  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  for (const [name, bytes] of output) await writeFile(join(outDir, name), bytes);
  const manifest = Object.fromEntries([...renamed].sort());
  await writeFile(join(outDir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const siteDir = resolve(process.argv[2] || join(root, 'build/wasm/site'));
  const outDir = resolve(process.argv[3] || join(root, 'dist'));
  const manifest = await buildDist(siteDir, outDir);
  console.log(`build-dist: ${outDir}: index.html, attnlab-embed.js (pin: ${manifest['attnlab-embed.js']}), ${Object.keys(manifest).length} files hashed`);
}
