// README's "Embed it" as a blogger follows it: the iframe and <attn-lab> snippets pasted as printed
// into a post served with README's Content-Security-Policy from a `npm run build` dist/, what Share
// copies pasted the same way, and the asset sizes README quotes against the files.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile, stat, readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '../../scripts/serve.mjs';
import { buildDist } from '../../scripts/build-dist.mjs';
import { newPage, openBrowser, screenshot, siteDir, underCsp } from './browser.mjs';
import { agrees, codeBlocks, quoted, readmeCsp } from './readme.mjs';

const kCsp = readmeCsp();
let root, server, base, manifest, session;

// A post with running prose around what a blogger pasted (long enough to scroll past it).
const prose = (k) => Array.from({ length: k }, (_, i) => `<p>Paragraph ${i + 1} of the post, in plain prose around the embed, ` +
  'long enough that the page scrolls past it on a laptop and on a phone.</p>').join('\n');
const post = (pasted) => `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,"><title>A post</title></head>
<body><article>${prose(4)}\n${pasted}\n${prose(12)}</article></body></html>`;

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'attnlab-readme-'));
  manifest = await buildDist(siteDir, join(root, 'attnlab'));
  server = await serve(root, { port: 0 });
  base = `http://127.0.0.1:${server.address().port}/`;
  session = await openBrowser(root);
});
after(async () => {
  await session?.close();
  if (server) await new Promise((r) => server.close(r));
  if (root) await rm(root, { recursive: true, force: true });
});

// Opens `path` with README's CSP as a real header on every HTML response; every problem recorded.
async function openUnderCsp(path, { width = 1000, height = 800, colorScheme = 'dark', context = null } = {}) {
  const { page, problems } = await underCsp(await newPage(context || session.browser, context ? undefined : { viewport: { width, height }, colorScheme }), kCsp);
  await page.goto(base + path);
  return { page, problems };
}

// The frame's box and its view's own height, once the view has drawn and the host has sized it.
async function frameFacts(page) {
  await page.evaluate(() => document.querySelector('iframe.attnlab').scrollIntoView({ block: 'center' }));
  await page.waitForFunction(() => {
    const w = document.querySelector('iframe.attnlab').contentWindow;
    return w?.document?.documentElement?.dataset.ready === 'true' && w.attnlab.idle() && w.attnlab.scalars()['page.content_height'] > 0;
  });
  // The host sizes the frame on the next message: wait for its height to match the view's.
  await page.waitForFunction(() => {
    const f = document.querySelector('iframe.attnlab');
    const root = f.contentWindow?.document?.querySelector('.attnlab-root');
    return root && Math.abs(f.getBoundingClientRect().height - Math.ceil(root.getBoundingClientRect().height)) <= 1;
  });
  return page.evaluate(() => {
    const f = document.querySelector('iframe.attnlab');
    const w = f.contentWindow;
    const r = f.getBoundingClientRect();
    const style = getComputedStyle(f);
    return { width: r.width, height: r.height, column: f.parentElement.clientWidth, border: style.borderTopWidth,
             inner: Math.ceil(w.document.querySelector('.attnlab-root').getBoundingClientRect().height),
             light: w.document.querySelector('.attnlab-root').classList.contains('attnlab-light'), state: w.attnlab.state() };
  });
}

async function elementFacts(page) {
  await page.evaluate(() => document.querySelector('attn-lab').scrollIntoView({ block: 'center' }));
  await page.waitForFunction(() => document.querySelector('attn-lab').handle?.attnlab.idle());
  return page.evaluate(() => {
    const el = document.querySelector('attn-lab');
    const a = el.handle.attnlab;
    return { state: el.state(), light: el.querySelector('.attnlab-root').classList.contains('attnlab-light'),
             trained: a.scalars()['heads.trained'], script: document.querySelector('script[type=module]').src };
  });
}

// Wheel over the frame: the post scrolls (the frame takes no wheel it cannot use).
async function wheelScrollsPost(page) {
  const r = await page.evaluate(() => { const b = document.querySelector('iframe.attnlab').getBoundingClientRect(); return { x: b.x + b.width / 2, y: b.y + 20 }; });
  const before = await page.evaluate(() => scrollY);
  await page.mouse.move(r.x, r.y);
  await page.mouse.wheel(0, 300);
  return page.waitForFunction((b) => scrollY > b + 100, before).then(() => true, () => false);
}

test('README\'s iframe and <attn-lab> snippets, pasted as printed into a post under README\'s CSP, size and show what README says', async () => {
  const [iframe, element] = codeBlocks('html');
  assert.match(iframe, /<iframe class="attnlab"/);
  assert.match(element, /<attn-lab view="heads" state="h\.n=8"/);
  const asPasted = (snippet) => snippet.replaceAll('https://YOUR-HOST/attnlab/', `${base}attnlab/`);
  await writeFile(join(root, 'iframe-post.html'), post(asPasted(iframe)));
  await writeFile(join(root, 'element-post.html'), post(asPasted(element)));

  for (const [width, height] of [[1000, 800], [390, 844]]) {
    const { page, problems } = await openUnderCsp('iframe-post.html', { width, height });
    const f = await frameFacts(page);
    assert.equal(f.state, 'v=masks&m.c=0');
    assert.ok(Math.abs(f.width - f.column) <= 1, `the frame is the column's width: ${f.width} of ${f.column}`);
    assert.equal(f.border, '0px');
    assert.ok(Math.abs(f.height - f.inner) <= 1 && f.height !== 480, `the frame is as tall as its view: ${f.height} px for ${f.inner}`);
    assert.ok(await wheelScrollsPost(page), 'a wheel over the frame scrolls the post');
    await screenshot(page, `readme-iframe-${width}`);
    assert.deepEqual(problems, []);
    await page.close();
  }
  const { page, problems } = await openUnderCsp('element-post.html');
  const e = await elementFacts(page);
  assert.equal(e.state, 'v=heads&h.n=8&h.tr=0');
  assert.equal(e.trained, 0, 'the seeded heads README\'s example asks for');
  const maps = await page.evaluate(() => [0, 7, 8].map((k) => document.querySelector('attn-lab').handle.attnlab.matrix(`heads.W${k}`) !== null));
  assert.deepEqual(maps, [true, true, false], '8 heads drawn');
  await screenshot(page, 'readme-element');
  assert.deepEqual(problems, []);
  await page.close();
});

test('what Share copies from a light embed, pasted into a post under README\'s CSP, loads the pinned script and keeps the theme', async () => {
  const context = await session.browser.newContext({ viewport: { width: 1000, height: 800 }, colorScheme: 'dark' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const { page, problems } = await openUnderCsp('attnlab/index.html#embed&theme=light&v=masks&m.c=0', { context });
  await page.waitForSelector('html[data-ready=true]');
  await page.click('.attnlab-share-button');
  await page.waitForFunction(() => !document.querySelector('.attnlab-share').hidden);
  const codes = await page.evaluate(() => Object.fromEntries(['link', 'iframe', 'element'].map((k) => [k, document.querySelector(`.attnlab-share-${k}`).value])));
  const pinned = `${base}attnlab/${manifest['attnlab-embed.js']}`;
  assert.match(manifest['attnlab-embed.js'], /^attnlab-embed\.[0-9a-f]{10}\.js$/);
  assert.ok(codes.iframe.includes(`src="${pinned}"`) && codes.element.includes(`src="${pinned}"`), `the pinned script: ${codes.element}`);
  assert.deepEqual(problems, []);
  await context.close();

  await writeFile(join(root, 'shared-iframe.html'), post(codes.iframe));
  await writeFile(join(root, 'shared-element.html'), post(codes.element));
  const framed = await openUnderCsp('shared-iframe.html');
  const f = await frameFacts(framed.page);
  assert.deepEqual([f.state, f.light, f.border], ['v=masks&m.c=0', true, '0px']);
  assert.ok(Math.abs(f.height - f.inner) <= 1 && Math.abs(f.width - f.column) <= 1, JSON.stringify(f));
  assert.deepEqual(framed.problems, []);
  await framed.page.close();
  const hosted = await openUnderCsp('shared-element.html');
  const e = await elementFacts(hosted.page);
  assert.deepEqual([e.state, e.light, e.script], ['v=masks&m.c=0', true, pinned]);
  assert.deepEqual(hosted.problems, []);
  await hosted.page.close();
  const linked = await openUnderCsp(codes.link.slice(base.length));
  await linked.page.waitForSelector('html[data-ready=true]');
  assert.deepEqual(await linked.page.evaluate(() => [window.attnlab.state(), document.querySelector('.attnlab-root').classList.contains('attnlab-light')]),
                   ['v=masks&m.c=0', true]);
  assert.deepEqual(linked.problems, []);
  await linked.page.close();
});

test('a view of words downloads the UI font once (the canvas and the HTML sentence box share it)', async () => {
  const { page, problems } = await openUnderCsp('attnlab/index.html#v=words');
  const fonts = [];
  page.on('request', (r) => { if (/ui-font/.test(r.url())) fonts.push(r.url()); });
  await page.reload();
  await page.waitForFunction(() => window.attnlab?.view().wordVectorsLoaded && window.attnlab.idle());
  await page.waitForFunction(() => document.fonts.check('16px "attnlab-ui"'));
  assert.equal(fonts.length, 1, fonts.join(', '));
  assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('.attnlab-sentence')).fontFamily.split(',')[0].replaceAll('"', '')), 'attnlab-ui');
  assert.deepEqual(problems, []);
  await page.close();
});

test('dist/ holds what a host serves: no npm package, no example post', async () => {
  for (const name of ['lib', 'examples', 'attnlab-0.1.0.tgz']) await assert.rejects(stat(join(root, 'attnlab', name)), name);
});

test('README: the asset sizes it quotes are the files\' (gzipped with zlib at level 9, as the transfer tests measure)', async () => {
  const gzKiB = async (name) => gzipSync(await readFile(join(siteDir, name)), { level: 9 }).length / 1024;
  const checks = [
    [quoted(/the word vectors \(([\d,]+) KiB gzipped\)/), await gzKiB('word-vectors.bin'), 'word vectors'],
    [quoted(/quantised to ([\d,]+) KiB gzipped/), await gzKiB('word-vectors.bin'), 'word vectors (Data)'],
    [quoted(/prices\.csv \(([\d,]+) KiB gzipped\)/), await gzKiB('prices.csv'), 'prices'],
    [quoted(/the trained heads \(([\d,]+) KiB gzipped\)/), await gzKiB('heads-trained-brown.bin'), 'trained heads'],
  ];
  for (const [printed, measured, what] of checks) assert.ok(agrees(printed, measured), `${what}: README ${printed} KiB, the file ${measured.toFixed(1)} KiB`);
});
