// View 12 on a checkpoint the reader opens: GPT-2's layout and vocabulary (random weights written
// here, 3.2 MB), chosen with the file picker or dropped on the canvas, read with the File API. What
// the page draws is the model module's own answer for the same bytes (called directly in the same
// browser, GPT-2's BPE from js-tiktoken); a file too big is refused before it is read, a broken one
// is named and the built-in model stays; Export weights gives a checkpoint that opens again with the
// same numbers.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, openPage, screenshot, settle } from './browser.mjs';
import { clickPublished } from './cells.mjs';
import { gpt2Checkpoint, gpt2Config } from './gpt2_checkpoint.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

const sentence = 'The jury said it did find that many of the problems';
const link = `#v=lm&s=${encodeURIComponent(sentence)}`;

const config = gpt2Config;

const file = (name, bytes, mimeType = 'application/octet-stream') => ({ name, mimeType, buffer: Buffer.from(bytes) });
const checkpointFiles = () => [file('tiny-gpt2.safetensors', gpt2Checkpoint()), file('config.json', JSON.stringify(config), 'application/json')];

// [SECTION] Helpers

const published = (page) => page.evaluate(() => ({ scalars: window.attnlab.scalars(), labels: window.attnlab.labels(), texts: window.attnlab.texts() }));

// The files the page exported, as { name, bytes: Buffer }. Bytes cross between node and the page as
// base64: an array of numbers megabytes long takes tens of seconds to serialise.
async function exportedFiles(page) {
  const saved = await page.evaluate(async () => Promise.all(window.attnlabHandle.exports.filter((e) => e.kind === 'file')
    .map((e) => new Promise((resolve, reject) => {
      const reader = new FileReader();
      reader.onload = () => resolve({ name: e.name, base64: reader.result.slice(reader.result.indexOf(',') + 1) });
      reader.onerror = () => reject(reader.error);
      reader.readAsDataURL(e.blob);
    }))));
  return saved.map(({ name, base64 }) => ({ name, bytes: Buffer.from(base64, 'base64') }));
}

// Opens `files` with the page's own file picker (the "Open a model…" button).
async function pickFiles(page, files) {
  const chooser = page.waitForEvent('filechooser');
  await clickPublished(page, 'lm.open');
  await (await chooser).setFiles(files);
}

// Waits until the view shows the answer for the model opened (or the open failed).
async function waitForModel(page, opened) {
  await page.waitForFunction((opened) => {
    const s = window.attnlab.scalars();
    return s['lm.open.error'] === 1 || (s['lm.opened'] === opened && s['lm.current'] === 1);
  }, opened);
  await settle(page);
}

// The checkpoint's answer called directly in the page: its own module instance, the same bytes, GPT-2's
// BPE from js-tiktoken on `text`, its first `context` tokens read; the five likeliest tokens after each
// position of `rows` (default: every one; lowest id first on ties). `total`: the tokens of the text.
async function direct(page, bytes, configText, { text = sentence, context = Infinity, rows = null } = {}) {
  return page.evaluate(async ({ base64, configText, text, context, rows }) => {
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const { default: create } = await import(new URL('attnlab-lm.mjs', location.href));
    const { gpt2Tokenizer } = await import(new URL('gpt2_tokenizer.mjs', location.href));
    const lm = await create();
    const info = lm.openModel(bytes, configText, 0);
    if (!info.ok) return info;
    const t = gpt2Tokenizer();
    const all = t.encode(text), ids = all.slice(0, context ?? all.length);
    const r = lm.runIds(ids, [], false);
    const top = [];
    for (const i of rows ?? ids.keys()) {
      const row = Array.from(r.next.data.slice(i * r.next.cols, (i + 1) * r.next.cols));
      top[i] = row.map((p, id) => ({ p, id })).sort((a, b) => b.p - a.p || a.id - b.id).slice(0, 5)
        .map(({ p, id }) => ({ p, token: t.display(id) }));
    }
    return { ok: true, total: all.length, tokens: ids.map(t.display), top };
  }, { base64: Buffer.from(bytes).toString('base64'), configText, text, context: Number.isFinite(context) ? context : null, rows });
}

// [SECTION] Tests

test('a GPT-2 checkpoint opened with the file picker: its config is shown, and every next token and probability is the model\'s', async () => {
  const { page, problems } = await openPage(session, { hash: link, waitForVectors: false });
  await page.waitForFunction(() => window.attnlab.scalars()['lm.current'] === 1);
  const files = checkpointFiles();
  await pickFiles(page, files);
  await waitForModel(page, 1);
  const { scalars, labels, texts } = await published(page);
  assert.equal(scalars['lm.open.error'], 0);
  assert.equal(scalars['lm.error'], 0);
  const expected = await direct(page, files[0].buffer, files[1].buffer.toString());
  assert.ok(expected.ok, expected.message);
  const n = expected.tokens.length;
  assert.equal(scalars['lm.n'], n);
  for (let i = 0; i < n; ++i) {
    assert.equal(labels[`lm.word.${i}`], expected.tokens[i], `token ${i}`);
    for (let k = 0; k < 5; ++k) {
      assert.equal(labels[`lm.top.${i}.${k}`], expected.top[i][k].token, `token ${i}, rank ${k}`);
      assert.ok(Math.abs(scalars[`lm.top.${i}.${k}`] - expected.top[i][k].p) <= 1e-6, `p of token ${i}, rank ${k}`);
    }
  }
  const all = texts.join('\n');
  // The weights packed for the kernel's products: every matrix once more (panels padded to whole vectors).
  assert.match(all, /Your checkpoint tiny-gpt2\.safetensors: gpt2 \(Conv1D\), stored as F32, 861,985 parameters, 3 MB in memory as float32 and 3 MB more packed for the kernel's products/);
  assert.match(all, /2 layers × 2 heads, d_model 16, a context of 64 tokens/);
  assert.ok(all.includes(`reads your text as ${n} tokens`) && all.includes('·jury'), 'the tokens are shown, a leading space as ·');
  assert.deepEqual(problems, []);
  await screenshot(page, 'lm-checkpoint');
  // Export weights of a GPT-2 checkpoint: no words in the file (its display forms are not words), so
  // it opens again with GPT-2's BPE and the same numbers.
  await clickPublished(page, 'lm.export');
  await page.waitForFunction(() => window.attnlabHandle.exports.filter((e) => e.kind === 'file').length === 2);
  const saved = await exportedFiles(page);
  const header = saved[0].bytes.subarray(8, 8 + Number(saved[0].bytes.readBigUInt64LE(0))).toString();
  assert.ok(!header.includes('attnlab.vocabulary'), 'no words in the export of a GPT-2 checkpoint');
  await pickFiles(page, saved.map((f) => file(f.name, f.bytes)));
  await page.waitForFunction(() => window.attnlab.texts().some((t) => t.startsWith('Your checkpoint attnlab-lm.safetensors')) &&
    window.attnlab.scalars()['lm.current'] === 1);
  const again = await published(page);
  assert.ok(again.texts.join('\n').includes(`reads your text as ${n} tokens`));
  for (let k = 0; k < 5; ++k) assert.equal(again.labels[`lm.top.${n - 1}.${k}`], labels[`lm.top.${n - 1}.${k}`]);
  // Back to the built-in model: its words again.
  await clickPublished(page, 'lm.reset');
  await waitForModel(page, 0);
  assert.equal((await published(page)).labels['lm.word.1'], 'jury');
  await page.close();
});

// GPT-2's context is 1024 tokens: a text that long is read whole, in one forward, and the view draws
// its last 128 tokens (every head's map of them, their next tokens), each predicted with everything
// before it; the view says so and how long the forward took.
test('a text as long as the context: the model reads 1024 tokens, the view draws the last 128 and says how long a forward takes', async () => {
  const long = Array.from({ length: 90 }, (_, i) => `The jury said it did find that ${i} of the problems were real.`).join(' ');
  const { page, problems } = await openPage(session, { hash: `#v=lm&s=${encodeURIComponent(long)}`, waitForVectors: false });
  await page.waitForFunction(() => window.attnlab.scalars()['lm.current'] === 1);
  const positions = 1024;
  const bytes = gpt2Checkpoint(11, positions);
  const configText = JSON.stringify({ ...config, n_positions: positions });
  await pickFiles(page, [file('long-gpt2.safetensors', bytes), file('config.json', configText, 'application/json')]);
  await waitForModel(page, 1);
  const { scalars, labels, texts } = await published(page);
  assert.equal(scalars['lm.error'], 0);
  // The same model called directly on the first 1024 tokens: the drawn rows are its last 128.
  const rows = [positions - 128, positions - 65, positions - 1];
  const expected = await direct(page, bytes, configText, { text: long, context: positions, rows });
  assert.ok(expected.ok, expected.message);
  assert.ok(expected.total > positions, `the text is longer than the context (${expected.total} tokens)`);
  assert.equal(scalars['lm.first'], positions - 128);
  assert.equal(scalars['lm.n'], 128);
  for (const i of rows) {
    const k = i - (positions - 128);
    assert.equal(labels[`lm.word.${k}`], expected.tokens[i], `drawn token ${k} is token ${i + 1} of the text`);
    for (let r = 0; r < 5; ++r) {
      assert.equal(labels[`lm.top.${k}.${r}`], expected.top[i][r].token, `rank ${r} after token ${i + 1}, read with the ${i} before it`);
      assert.ok(Math.abs(scalars[`lm.top.${k}.${r}`] - expected.top[i][r].p) <= 1e-6, `p of rank ${r} after token ${i + 1}`);
    }
  }
  const all = texts.join('\n');
  assert.ok(all.includes(`reads the first 1024 of your ${expected.total} tokens: its context ends there`), all.slice(0, 400));
  assert.ok(all.includes('It reads all 1024 tokens in one forward; the view draws the last 128 (tokens 897–1024)'));
  assert.ok(all.includes(`reads your text as ${expected.total} tokens, a leading space shown as “·”; the drawn ones: … `));
  assert.match(all, /On the last 128 tokens of your text its perplexity is [0-9.]+ \(over their 127 next tokens/);
  // The view says how long the forward took: the sentence and its token count, whatever the duration
  // (no bound on it: the speed targets live in npm run bench).
  assert.match(all, /a forward of 1023 tokens [0-9.]+ ms/, 'the view says how long a forward of the text takes');
  assert.deepEqual(problems, []);
  await screenshot(page, 'lm-long-text');
  await page.close();
});

test('a checkpoint dropped on the canvas opens too; on a 390 px phone the view fits the width', async () => {
  const { page, problems } = await openPage(session, { hash: link, waitForVectors: false, width: 390, height: 844, dpr: 2, touch: true });
  await page.waitForFunction(() => window.attnlab.scalars()['lm.current'] === 1);
  const [model, configFile] = checkpointFiles();
  await page.evaluate(({ model, config }) => {
    const transfer = new DataTransfer();
    transfer.items.add(new File([Uint8Array.from(atob(model), (c) => c.charCodeAt(0))], 'dropped.safetensors'));
    transfer.items.add(new File([config], 'config.json'));
    document.querySelector('canvas').dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
  }, { model: model.buffer.toString('base64'), config: configFile.buffer.toString() });
  await waitForModel(page, 1);
  const { scalars, texts } = await published(page);
  assert.equal(scalars['lm.open.error'], 0);
  assert.ok(texts.join('\n').includes('Your checkpoint dropped.safetensors'));
  const layout = await page.evaluate(() => window.attnlab.layout());
  const names = Object.keys(layout).filter((k) => /^lm\.(word\.\d+|W\d+|open|export|reset)$/.test(k));
  assert.ok(names.length >= 3 + 4, names.join(' '));
  for (const name of names) assert.ok(layout[name].x >= 0 && layout[name].x + layout[name].width <= 390 + 0.5, `${name} fits: ${JSON.stringify(layout[name])}`);
  // A knocked-out head: the sentence speaks of tokens, as the view does for a checkpoint.
  await page.evaluate(() => window.attnlab.setState(`${window.attnlab.state()}&lm.x=1`));
  await page.waitForFunction(() => window.attnlab.texts().some((t) => t.startsWith('With head 1.2 zeroed, the next-token distribution moves')));
  assert.ok((await published(page)).texts.some((t) => /most after “.+”: [\d.]+ nats, where the full model's top token “/.test(t)));
  assert.deepEqual(problems, []);
  await screenshot(page, 'lm-checkpoint-phone');
  await page.close();
});

test('a file too big is refused before it is read, a broken one is named, and the built-in model stays', async () => {
  const { page, problems } = await openPage(session, { hash: link, waitForVectors: false });
  await page.waitForFunction(() => window.attnlab.scalars()['lm.current'] === 1);
  // A header claiming 50,257 × 30,000 floats (6 GB) over 8 bytes of data.
  const json = JSON.stringify({ 'wte.weight': { dtype: 'F32', shape: [50257, 30000], data_offsets: [0, 8] } });
  const huge = new Uint8Array(8 + json.length + 8);
  new DataView(huge.buffer).setBigUint64(0, BigInt(json.length), true);
  huge.set(new TextEncoder().encode(json), 8);
  await pickFiles(page, [file('huge.safetensors', huge)]);
  await page.waitForFunction(() => window.attnlab.scalars()['lm.open.error'] === 1);
  let texts = (await published(page)).texts.join('\n');
  assert.match(texts, /huge\.safetensors needs about 11,50\d MB to open/);  // the file, its floats read and packed
  // Truncated: the header promises more bytes than the file holds; the module names the tensor.
  const truncated = gpt2Checkpoint().slice(0, 100000);
  await pickFiles(page, [file('cut.safetensors', truncated), file('config.json', JSON.stringify(config))]);
  await page.waitForFunction(() => window.attnlab.texts().join('\n').includes('cut.safetensors') === false &&
    window.attnlab.scalars()['lm.open.error'] === 1 && /safetensors/.test(window.attnlab.texts().join('\n')));
  texts = (await published(page)).texts.join('\n');
  assert.match(texts, /data_offsets|beyond|holds|bytes/);
  // Without its config the head count is asked for, not guessed.
  await pickFiles(page, [file('tiny-gpt2.safetensors', gpt2Checkpoint())]);
  await page.waitForFunction(() => /n_head/.test(window.attnlab.texts().join('\n')));
  const { scalars, labels } = await published(page);
  assert.equal(scalars['lm.opened'], 0);
  assert.equal(labels['lm.word.1'], 'jury', 'the built-in model is still shown');
  assert.deepEqual(problems, []);
  await page.close();
});

test('Export weights gives a checkpoint and its config that open again with the same next words', async () => {
  const { page, problems } = await openPage(session, { hash: link, waitForVectors: false });
  await page.waitForFunction(() => window.attnlab.scalars()['lm.current'] === 1);
  const before = await published(page);
  await clickPublished(page, 'lm.export');
  await page.waitForFunction(() => window.attnlabHandle.exports.filter((e) => e.kind === 'file').length === 2);
  const saved = await exportedFiles(page);
  assert.deepEqual(saved.map((s) => s.name), ['attnlab-lm.safetensors', 'attnlab-lm.config.json']);
  await pickFiles(page, saved.map((s) => file(s.name, s.bytes)));
  await waitForModel(page, 1);
  const after = await published(page);
  assert.equal(after.scalars['lm.open.error'], 0);
  assert.ok(after.texts.join('\n').includes('Your checkpoint attnlab-lm.safetensors'));
  for (let i = 0; i < before.scalars['lm.n']; ++i) {
    for (let k = 0; k < 5; ++k) {
      const name = `lm.top.${i}.${k}`;
      assert.equal(after.labels[name], before.labels[name], name);
      // The asset is int8 per row, dequantised to the same floats the export holds: the same numbers.
      assert.ok(Math.abs(after.scalars[name] - before.scalars[name]) <= 1e-6, name);
    }
  }
  assert.deepEqual(problems, []);
  await page.close();
});

// The committed fixtures (tests/data/checkpoints: GPT-2 and nanoGPT layouts, F32 / F16 / BF16, 97
// tokens without words) with their logits from tests/torch/gpt2_checkpoints.py's float64 PyTorch
// GPT-2: the sentence is read as the fixture's ids, and every probability drawn is PyTorch's within
// the bound. lm_checkpoint_test.cpp bounds |Δ logit| by 5e-4 for these shapes; a softmax moves
// log p by at most twice that, so |Δp| ≤ p (e^0.001 − 1) < 1.1e-3.
test('the committed GPT-2 and nanoGPT fixtures in the page: every next-token probability is PyTorch\'s', async () => {
  const { readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const dir = join(import.meta.dirname, '../data/checkpoints');
  for (const name of ['gpt2-f32', 'nanogpt-bf16', 'gpt2-f16']) {
    const lines = readFileSync(join(dir, `${name}.logits.txt`), 'utf8').split('\n').filter((l) => l && !l.startsWith('#'));
    const ids = lines[0].replace(/^ids /, '').split(',').map(Number);
    const logits = lines.slice(1).map((l) => l.trim().split(/\s+/).map(Number));
    const { page, problems } = await openPage(session, { hash: `#v=lm&s=${encodeURIComponent(ids.join(' '))}`, waitForVectors: false });
    await page.waitForFunction(() => window.attnlab.scalars()['lm.current'] === 1);
    await pickFiles(page, [file(`${name}.safetensors`, readFileSync(join(dir, `${name}.safetensors`))),
      file('config.json', readFileSync(join(dir, `${name}.config.json`)))]);
    await waitForModel(page, 1);
    const { scalars, labels, texts } = await published(page);
    assert.equal(scalars['lm.open.error'], 0, name);
    assert.equal(scalars['lm.n'], ids.length, name);
    assert.ok(texts.join('\n').includes(`reads the ${ids.length} token ids in your text (each 0–96)`), name);
    let worst = 0;
    for (let i = 0; i < ids.length; ++i) {
      assert.equal(labels[`lm.word.${i}`], `[${ids[i]}]`);
      const max = Math.max(...logits[i]);
      const sum = logits[i].reduce((a, z) => a + Math.exp(z - max), 0);
      for (let k = 0; k < 5; ++k) {
        const id = Number(/^\[(\d+)\]$/.exec(labels[`lm.top.${i}.${k}`])[1]);
        const p = Math.exp(logits[i][id] - max) / sum;
        worst = Math.max(worst, Math.abs(scalars[`lm.top.${i}.${k}`] - p));
      }
    }
    assert.ok(worst < 1.1e-3, `${name}: max |Δp| ${worst}`);
    console.log(`${name}: max |Δp| against PyTorch ${worst.toExponential(2)}`);
    assert.deepEqual(problems, []);
    await page.close();
  }
});
