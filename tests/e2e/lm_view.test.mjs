// View 12: the language model. What the page draws — every next word and its probability, every
// head's map, the continuation, the effect of knocking heads out — is the model's, called directly
// in the same browser (attnlab-lm's run() and generate(), which call the engine without the view's
// code); the continuation is the native CLI's (`attnlab generate`) within the float32 bound; the
// model runs in a Web Worker, and on the page's thread where there is none; links reproduce it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { openBrowser, openPage, openWithoutWorker, screenshot, settle } from './browser.mjs';
import { cellCentre, clickPublished } from './cells.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

const root = join(import.meta.dirname, '../..');
const sentence = 'The jury said it did find that many of the problems';
const link = (extra = '') => `#v=lm&s=${encodeURIComponent(sentence)}${extra}`;

async function open(hash, options = {}) {
  const opened = await openPage(session, { hash, waitForVectors: false, ...options });
  await settle(opened.page);
  return opened;
}

// The model called directly in the page (its own module, not the view's code path).
async function direct(page, call, ...args) {
  return page.evaluate(async ({ call, args }) => {
    window.lmDirect ||= import(new URL('lm_session.mjs', location.href)).then(({ loadLm }) => loadLm());
    const lm = await window.lmDirect;
    const r = lm[call](...args);
    if (!r.ok) return r;
    if (r.next) r.next = { rows: r.next.rows, cols: r.next.cols, data: Array.from(r.next.data) };
    if (r.weights) r.weights = r.weights.map((w) => ({ ...w, data: Array.from(w.data) }));
    return r;
  }, { call, args });
}

const published = (page) => page.evaluate(() => ({ scalars: window.attnlab.scalars(), labels: window.attnlab.labels(), texts: window.attnlab.texts() }));

// The five likeliest words of row i of (n, V) probabilities, lowest id first on ties.
function topFive(next, i, vocabulary) {
  const row = next.data.slice(i * next.cols, (i + 1) * next.cols);
  return row.map((p, id) => ({ p, id })).sort((a, b) => b.p - a.p || a.id - b.id).slice(0, 5)
    .map(({ p, id }) => ({ p, word: vocabulary[id] }));
}

test('every next word and probability, every head and the sentence\'s own next words are the model\'s', async () => {
  const { page, problems } = await open(link());
  const { scalars, labels, texts } = await published(page);
  assert.equal(scalars['lm.error'], 0);
  const r = await direct(page, 'run', sentence, []);
  assert.ok(r.ok, r.message);
  const n = r.words.length;
  assert.equal(scalars['lm.n'], n);
  // The vocabulary's words for the ids: the page's labels name them; run() gives probabilities by id,
  // so the check goes the other way: each drawn word's probability is the model's for that word.
  const vocabulary = await page.evaluate(async () => {
    const bytes = new Uint8Array(await (await fetch(new URL('lm-brown.bin', location.href))).arrayBuffer());
    const length = new DataView(bytes.buffer).getUint32(36, true);
    return new TextDecoder().decode(bytes.subarray(40, 40 + length)).split('\n');
  });
  assert.equal(vocabulary.length, r.next.cols);
  for (let i = 0; i < n; ++i) {
    assert.equal(labels[`lm.word.${i}`], r.words[i]);
    const expected = topFive(r.next, i, vocabulary);
    for (let k = 0; k < 5; ++k) {
      assert.equal(labels[`lm.top.${i}.${k}`], expected[k].word, `word ${i}, rank ${k}`);
      assert.equal(scalars[`lm.top.${i}.${k}`], expected[k].p, `p of word ${i}, rank ${k}`);
    }
    if (i + 1 < n) {
      const next = vocabulary.indexOf(r.words[i + 1]);
      assert.equal(scalars[`lm.pnext.${i}`], next < 0 || next === vocabulary.length - 1 ? -1 : r.next.data[i * r.next.cols + next]);
    }
  }
  assert.equal(r.weights.length, 16);
  for (const w of r.weights) {
    const drawn = await page.evaluate((name) => window.attnlab.matrix(name), `lm.W${w.layer * 4 + w.head}`);
    assert.deepEqual([drawn.rows, drawn.cols], [n, n]);
    assert.deepEqual(Array.from(Object.values(drawn.data)), w.data, `head ${w.layer + 1}.${w.head + 1}`);
    for (let i = 0; i < n; ++i) for (let j = i + 1; j < n; ++j) assert.equal(w.data[i * n + j], 0, 'causal');
  }
  // The sentences name what is drawn.
  const last = r.words[n - 1];
  assert.ok(texts.some((t) => t.startsWith(`After “${last}” (word ${n})`) && t.includes(`“${labels[`lm.top.${n - 1}.0`]}”`)), texts.join('\n'));
  assert.ok(texts.some((t) => t.includes(`its perplexity is ${scalars['lm.perplexity'].toFixed(1)}`)));
  assert.deepEqual(problems, []);
  await screenshot(page, 'lm-desktop');
  await page.close();
});

test('Generate: the continuation is generate()\'s, the native CLI\'s within the float32 bound, and a link gives it again', async () => {
  const extra = '&lm.g=1&lm.n=12&lm.sd=3&lm.t=0.8';
  const { page } = await open(link(extra));
  const { scalars, labels, texts } = await published(page);
  assert.equal(scalars['lm.generated'], 12);
  const g = await direct(page, 'generate', sentence, 12, 0.8, 3);
  assert.ok(g.ok, g.message);
  const n = scalars['lm.n'];
  g.generated.forEach((w, k) => {
    assert.equal(labels[`lm.gen.${k}`], w.word, `word ${k}`);
    assert.equal(scalars[`lm.gen.${k}.p`], w.p);
    assert.equal(scalars[`lm.gen.${k}.cache`], 4 * 2 * 4 * 128 * (n + k), 'the KV cache grows by one position a word');
  });
  assert.ok(texts.some((t) => t.endsWith(`→ ${g.generated.map((w) => w.word).join(' ')}`)));
  // The native engine: the same words; each p within the bound of tests/train/lm_shipped_test.cpp
  // (|Δ logit| ≤ K·u·S with K = 4224 roundings, u = 2⁻²⁴, S ≤ 64 here: |Δ log p| ≤ 2·K·u·S ≈ 0.032).
  const cli = join(root, 'build/native/engine/attnlab');
  if (existsSync(cli)) {
    const out = JSON.parse(execFileSync(cli, ['generate', '--prompt', sentence, '--tokens', '12', '--temperature', '0.8', '--seed', '3',
      '--model', join(root, 'web/assets/lm-brown.bin'), '--json'], { encoding: 'utf8' }).trim().split('\n').pop());
    assert.deepEqual(out.generated.map((w) => w.word), g.generated.map((w) => w.word));
    out.generated.forEach((w, k) => assert.ok(Math.abs(Math.log(w.p) - Math.log(g.generated[k].p)) <= 2 * 4224 * 2 ** -24 * 64,
      `word ${k}: native p ${w.p}, page ${g.generated[k].p}`));
  }
  // The link reproduces it.
  const state = await page.evaluate(() => window.attnlab.state());
  for (const field of ['lm.g=1', 'lm.n=12', 'lm.sd=3']) assert.ok(state.includes(field), state);
  const again = await open(`#${state}`);
  assert.equal((await published(again.page)).labels['lm.gen.11'], labels['lm.gen.11']);
  // Generate another: the next seed, other words.
  await clickPublished(page, 'lm.generate');
  await settle(page);
  assert.ok((await page.evaluate(() => window.attnlab.state())).includes('lm.sd=4'));
  await again.page.close();
  await page.close();
});

test('knocking heads out: the words shown are the ablated model\'s; KL and Δ log p are the two models\'', async () => {
  const { page } = await open(link('&lm.x=0,6'));  // heads 1.1 and 2.3
  const { scalars, labels, texts } = await published(page);
  const full = await direct(page, 'run', sentence, []);
  const out = await direct(page, 'run', sentence, [0, 6]);
  const n = full.words.length;
  for (let i = 0; i < n; ++i) {
    const row = (r) => r.next.data.slice(i * r.next.cols, (i + 1) * r.next.cols);
    const p = row(full), q = row(out);
    let kl = 0;
    p.forEach((v, w) => { if (v > 0) kl += v * (Math.log(v) - Math.log(q[w])); });
    // KL is summed over 4,096 words in double from float32 probabilities: both sides agree to 1e-6
    // of the largest term (the float32 inputs are the same numbers).
    assert.ok(Math.abs(scalars[`lm.kl.${i}`] - kl) <= 1e-5 + 1e-5 * kl, `KL at ${i}: ${scalars[`lm.kl.${i}`]} vs ${kl}`);
    const top = p.indexOf(Math.max(...p));
    assert.ok(Math.abs(scalars[`lm.dlogp.${i}`] - (Math.log(q[top]) - Math.log(p[top]))) <= 1e-4);
    assert.equal(scalars[`lm.top.${i}.0`], Math.max(...q));
  }
  assert.ok(texts.some((t) => t.startsWith('With heads 1.1 and 2.3 zeroed')), texts.join('\n'));
  // A click on a head's box knocks it out too (the state's list), and the model is asked again.
  const before = scalars['lm.answers'];
  await clickPublished(page, 'control.1.2');
  await settle(page);
  const after = await published(page);
  assert.match(await page.evaluate(() => window.attnlab.state()), /lm\.x=0(,|%2C)6(,|%2C)1(&|$)/);
  assert.equal(after.scalars['lm.answers'], before + 1);
  assert.ok(after.texts.some((t) => t.startsWith('With heads 1.1, 1.2 and 2.3 zeroed')));
  assert.equal(labels['lm.word.0'], full.words[0]);
  await page.close();
});

test('a click on a head enlarges it without asking the model again; its map is the one drawn small', async () => {
  const { page } = await open(link());
  const answers = (await published(page)).scalars['lm.answers'];
  const layout = await page.evaluate(() => window.attnlab.layout());
  const tile = layout['lm.W6'];
  assert.ok(tile, 'tile 2.3 is laid out');
  if (tile.y + tile.height > 800) {
    await page.mouse.move(600, 400);
    await page.mouse.wheel(0, tile.y - 300);
    await settle(page);
  }
  const r = (await page.evaluate(() => window.attnlab.layout()))['lm.W6'];
  const n = (await published(page)).scalars['lm.n'];
  const c = cellCentre(r, n, n, n - 1, 0);
  await page.mouse.click(c.x, c.y);
  await settle(page);
  assert.ok((await page.evaluate(() => window.attnlab.state())).includes('lm.e=6'));
  const big = await page.evaluate(() => window.attnlab.matrix('lm.big'));
  const small = await page.evaluate(() => window.attnlab.matrix('lm.W6'));
  assert.deepEqual(Object.values(big.data), Object.values(small.data));
  assert.equal((await published(page)).scalars['lm.answers'], answers, 'enlarging only redraws');
  await page.close();
});

test('hovering a word in one head map outlines it in all 16, each at the key its head sends it to', async () => {
  const { page } = await open(link());
  let tile = (await page.evaluate(() => window.attnlab.layout()))['lm.W5'];
  if (tile.y + tile.height > 800) {
    await page.mouse.move(600, 400);
    await page.mouse.wheel(0, tile.y - 300);
    await settle(page);
  }
  const layout0 = await page.evaluate(() => window.attnlab.layout());
  tile = layout0['lm.W5'];
  const n = (await published(page)).scalars['lm.n'];
  const row = 4;
  const c = cellCentre(tile, n, n, row, 1);
  await page.mouse.move(c.x, c.y);
  await settle(page);
  const layout = await page.evaluate(() => window.attnlab.layout());
  for (let k = 0; k < 16; ++k) {
    const t = layout[`lm.W${k}`], outline = layout[`lm.W${k}.row`], sends = layout[`lm.W${k}.sends`];
    assert.ok(outline && sends, `tile ${k} outlines the hovered word`);
    assert.ok(Math.abs(outline.y - (t.y + row * t.height / n)) < 0.5, `tile ${k}: row ${row} outlined at ${outline.y}`);
    const w = await page.evaluate((name) => window.attnlab.matrix(name), `lm.W${k}`);
    const values = Object.values(w.data).slice(row * n, (row + 1) * n);
    const key = values.indexOf(Math.max(...values));  // the first largest, as the page picks
    assert.ok(Math.abs(sends.x - (t.x + key * t.width / n)) < 0.5, `tile ${k}: sends word ${row} to ${key}`);
  }
  await page.mouse.move(5, 5);
  await settle(page);
  assert.equal((await page.evaluate(() => window.attnlab.layout()))['lm.W0.row'], undefined, 'no outline without a hover');
  await page.close();
});

test('without a Web Worker the model runs on the page\'s thread and gives the same numbers', async () => {
  const { page: withWorker } = await open(link('&lm.g=1&lm.n=5'));
  const expected = await published(withWorker);
  await withWorker.close();
  const { page, problems } = await openWithoutWorker(session, link('&lm.g=1&lm.n=5'));
  await settle(page);
  const got = await published(page);
  assert.equal(await page.evaluate(() => typeof Worker), 'undefined');
  for (const name of ['lm.top.3.0', 'lm.top.5.2', 'lm.gen.4']) assert.equal(got.labels[name], expected.labels[name], name);
  for (const name of ['lm.top.3.0', 'lm.top.5.2', 'lm.gen.4.p']) assert.equal(got.scalars[name], expected.scalars[name], name);
  assert.deepEqual(problems, []);
  await page.close();
});

test('on a 390 px phone the next words, the heads and the tables fit the width', async () => {
  const { page, problems } = await open(link('&lm.g=1&lm.x=0&lm.e=2'), { width: 390, height: 844, dpr: 2, touch: true });
  const layout = await page.evaluate(() => window.attnlab.layout());
  const names = Object.keys(layout).filter((k) => /^lm\.(word\.\d+|W\d+|big|norms|generate)$/.test(k));
  assert.equal(names.length, 11 + 16 + 3, names.join(' '));  // 11 words, 16 heads, the enlarged head, Generate, the norms
  for (const name of names) assert.ok(layout[name].x >= 0 && layout[name].x + layout[name].width <= 390 + 0.5, `${name} fits: ${JSON.stringify(layout[name])}`);
  // The logit lens scrolls sideways here: its box ends under its last row, leaving room for the
  // scrollbar and no more (a row's worth of empty band was left before).
  let scrolled = layout;
  await page.mouse.move(200, 400);
  for (let k = 0; k < 10 && scrolled['lm.norms'].y > 100; ++k) {  // the lens follows the norms
    await page.mouse.wheel(0, scrolled['lm.norms'].y - 100);
    await settle(page);
    scrolled = await page.evaluate(() => window.attnlab.layout());
  }
  const lens = scrolled['lm.lens'], last = scrolled['lm.lens.last'];
  assert.ok(lens && last, 'the lens table is laid out');
  const band = lens.y + lens.height - (last.y + last.height);
  assert.ok(band >= 0 && band <= 24, `the lens table ends ${band} px under its last row`);
  assert.deepEqual(problems, []);
  await screenshot(page, 'lm-phone');
  await page.close();
});
