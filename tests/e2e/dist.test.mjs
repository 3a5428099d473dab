// `npm run build`'s dist/: content-hashed names, served from a sub-path of a plain static server
// under a strict Content-Security-Policy header, the full page and a pinned embed script both work.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '../../scripts/serve.mjs';
import { buildDist } from '../../scripts/build-dist.mjs';
import { launchChromium, newPage, siteDir } from './browser.mjs';

const kCsp = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data: blob:";
let root, server, browser, base, manifest;

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'attnlab-dist-'));
  manifest = await buildDist(siteDir, join(root, 'blog/static/attnlab'));
  // A host page elsewhere on the site that pins one version of the embed script.
  await writeFile(join(root, 'blog/post.html'), `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,">
<script type="module" src="static/attnlab/${manifest['attnlab-embed.js']}"></script></head>
<body><attn-lab id="a" view="cnn" theme="light"></attn-lab></body></html>`);
  server = await serve(root, { port: 0 });
  base = `http://127.0.0.1:${server.address().port}/`;
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  if (server) await new Promise((r) => server.close(r));
  if (root) await rm(root, { recursive: true, force: true });
});

async function open(url) {
  const page = await newPage(browser, { viewport: { width: 900, height: 700 }, colorScheme: 'dark' });
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
  await page.route('**/*', async (route) => {
    const response = await route.fetch();
    const html = (response.headers()['content-type'] || '').startsWith('text/html');
    await route.fulfill({ response, headers: html ? { ...response.headers(), 'content-security-policy': kCsp } : response.headers() });
  });
  await page.addInitScript(() => document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP: ${e.violatedDirective}`)));
  await page.goto(url);
  return { page, problems };
}

test('every file but the entry points has a content-hashed name, and nothing references an unhashed one', async () => {
  for (const [name, hashed] of Object.entries(manifest)) assert.match(hashed, new RegExp(`^${name.replace(/\.[^.]+$/, '')}\\.[0-9a-f]{10}\\.`), name);
  // mount.js imports its jobs' files by their hashed names; the assets' file fetches the hashed assets.
  const read = (name) => readFile(join(root, 'blog/static/attnlab', manifest[name]), 'utf8');
  const mount = await read('mount.js'), assets = await read('mount_assets.js');
  assert.ok(mount.includes(manifest['mount_assets.js']) && !/["']\.\/mount_assets\.js["']/.test(mount));
  assert.ok(assets.includes(manifest['word-vectors.bin']) && !/["']word-vectors\.bin["']/.test(assets));
});

test('the explorer runs from a sub-path under the strict CSP, and the pinned embed script on another page', async () => {
  const full = await open(`${base}blog/static/attnlab/index.html#v=masks`);
  await full.page.waitForSelector('html[data-ready=true]');
  await full.page.waitForFunction(() => window.attnlab.view().wordVectorsLoaded && window.attnlab.idle());
  assert.equal(await full.page.evaluate(() => window.attnlab.state()), 'v=masks');
  assert.ok((await full.page.evaluate(() => Array.from(window.attnlab.matrix('masks.W').data))).every(Number.isFinite));
  // The speed view's timing runs in the page's Web Worker (hashed names, a sub-path, the strict CSP).
  await full.page.evaluate(() => window.attnlab.setState('v=speed&sp.n=12&sp.l=0'));
  await full.page.waitForFunction(() => window.attnlab.idle() && window.attnlab.scalars()['speed.n'] === 4096);
  assert.equal(await full.page.evaluate(() => window.attnlab.scalars()['speed.in_worker']), 1);
  assert.deepEqual(full.problems, []);
  await full.page.close();

  const post = await open(`${base}blog/post.html`);
  await post.page.waitForFunction(() => document.querySelector('#a').handle?.attnlab.idle());
  assert.equal(await post.page.evaluate(() => document.querySelector('#a').state()), 'v=cnn');
  const href = await post.page.evaluate(() => document.querySelector('#a .attnlab-open').href);
  assert.ok(href.startsWith(`${base}blog/static/attnlab/index.html#v=cnn`), href);
  assert.deepEqual(post.problems, []);
  await post.page.close();
});
