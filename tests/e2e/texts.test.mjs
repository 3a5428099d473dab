// Every sentence the page shows holds in every state: each view walked through its states (toggles,
// presets, typed sentences, trained on and off, each stock), every sentence read through
// window.attnlab.texts() and checked against the published numbers and the state: named words are
// in the sentence, numbers are the model's, mode words ("random", "trained") match the mode. At
// 390 px every control and every line of text lies inside the screen, and no number is split.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, openPage, settle, screenshot } from './browser.mjs';
import { clickPublished } from './cells.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

const kTired = 'The animal did n\'t cross the street because it was too tired';
const kLong = 'the quick brown fox jumps over the lazy dog while the cat sat on the mat and the animal did not cross ' +
  'the street because it was far too tired today and every word here is plain english text for a long test';

// Opens a state as a link does (from the defaults), waits for the views to rest, returns what the reader reads.
async function read(page, state) {
  await page.evaluate((s) => window.attnlabHandle.setState(s), state);
  await settle(page);
  return page.evaluate(() => ({ texts: window.attnlab.texts(), lines: window.attnlab.textLines(), scalars: window.attnlab.scalars(),
                                 tokens: window.attnlab.view().tokens, state: window.attnlab.state() }));
}

const fmt = (v, digits) => Number(v).toPrecision(digits).replace(/\.?0+(e|$)/, '$1');  // C's %.Ng, for the checks below
const enc = encodeURIComponent;

// The rules every state keeps, whatever the view.
function checkEveryText(r, where) {
  assert.ok(r.texts.length > 0, `${where}: the view says something`);
  for (const t of r.texts) {
    assert.doesNotMatch(t, /\b(nan|NaN|inf)\b/, `${where}: ${t}`);
    // A word the prose quotes as one of the sentence's ("it", "animal") is in the sentence.
    for (const [, word] of t.matchAll(/"([a-z']+)" \(\d+\)/g))
      assert.ok(r.tokens.map((w) => w.toLowerCase()).includes(word), `${where}: "${word}" is quoted but not in the sentence: ${t}`);
  }
  // No number is split across two lines ("0." / "17").
  for (const lines of r.lines)
    for (let l = 1; l < lines.length; ++l)
      assert.ok(!(/[\d][.,]?$/.test(lines[l - 1]) && /^[\d.]/.test(lines[l])), `${where}: a number split: "${lines[l - 1]}" / "${lines[l]}"`);
}

test('words: the lesson names "it" and "animal" only when the sentence has them, with their weight', async () => {
  const { page, problems } = await openPage(session, { hash: '#v=words' });
  for (const sentence of [kTired, 'Sky is clear today', kLong, 'it is an animal']) {
    const r = await read(page, `v=words&s=${enc(sentence)}`);
    checkEveryText(r, sentence);
    const lesson = r.texts.find((t) => t.startsWith('In ') && t.includes('rows of W'));
    assert.ok(lesson, r.texts.join('\n'));
    assert.ok(lesson.startsWith(`In ${r.scalars['words.rows_led_by_self']} of the ${r.tokens.length} rows of W`), lesson);
    const lower = r.tokens.map((w) => w.toLowerCase());
    const names = r.texts.some((t) => t.includes('"it"') && t.includes('"animal"'));
    assert.equal(names, lower.includes('it') && lower.includes('animal'), `${sentence}: ${r.texts.join(' | ')}`);
    if (names) {
      const it = lower.indexOf('it'), animal = lower.indexOf('animal');
      const w = await page.evaluate(([i, j]) => { const m = window.attnlab.matrix('words.W'); return m.data[i * m.cols + j]; }, [it, animal]);
      assert.ok(r.texts.some((t) => t.includes(`gives "animal" (${animal + 1}) ${w.toFixed(3)}`)), r.texts.join('\n'));
    }
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test('order: "shuffled" only after a shuffle', async () => {
  const { page, problems } = await openPage(session, { hash: '#v=order' });
  let r = await read(page, 'v=order');
  checkEveryText(r, 'order');
  assert.ok(!r.texts.some((t) => t.startsWith('Shuffled')), r.texts.join('\n'));
  assert.ok(r.texts.some((t) => t.startsWith('In the order typed')));
  r = await read(page, 'v=order&o.sh=3');
  assert.ok(r.texts.some((t) => t.startsWith('Shuffled: ') || t.startsWith('Shuffle 3 happens')), r.texts.join('\n'));
  assert.deepEqual(problems, []);
  await page.close();
});

test('Q,K,V and heads: "random" only for seeded projections, "trained" only for trained ones', async () => {
  const { page, problems } = await openPage(session, { hash: '#v=qkv' });
  await page.waitForFunction(() => window.attnlab.scalars()['qkv.trained'] === 1);
  for (const [state, asked] of [['v=qkv', true], ['v=qkv&q.tr=0', false], ['v=qkv&q.tr=0&q.id=1', false], [`v=qkv&s=${enc(kLong)}`, true]]) {
    const r = await read(page, state);
    checkEveryText(r, state);
    // The mode is the model's: trained heads asked for may be refused (a sentence longer than they
    // were trained on), and then a note says why.
    const trained = r.scalars['qkv.trained'] === 1;
    if (asked && !trained) assert.ok(r.texts.some((t) => /trained/.test(t) && /seeded|random/.test(t)), `${state}: ${r.texts.join('\n')}`);
    if (!asked) assert.equal(trained, false, state);
    const step4 = r.texts.find((t) => t.startsWith('4. Softmax'));
    assert.ok(step4, r.texts.join('\n'));
    assert.equal(/random/.test(step4), !trained && !state.includes('q.id=1'), `${state}: ${step4}`);
    assert.equal(/trained head/.test(step4), trained, `${state}: ${step4}`);
    const w = r.scalars['qkv.pair.weight'];
    assert.ok(step4.includes(`wᵢⱼ = ${w.toFixed(4)}`), `${state}: the weight is the model's: ${step4}`);
  }
  for (const [state, trained] of [['v=heads', true], ['v=heads&h.n=8', false], ['v=heads&h.tr=0', false]]) {
    const r = await read(page, state);
    checkEveryText(r, state);
    assert.equal(r.scalars['heads.trained'], trained ? 1 : 0, state);
    const intro = r.texts.find((t) => t.startsWith('Multi-head attention'));
    if (intro) assert.equal(/were trained/.test(intro), trained, `${state}: ${intro}`);
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test('relevance says the scaled dot product keeps the variance near 1, not the scores', async () => {
  const { page, problems } = await openPage(session, { hash: '#v=relevance' });
  const r = await read(page, 'v=relevance');
  checkEveryText(r, 'relevance');
  assert.ok(r.texts.some((t) => t.includes('keeps its variance near 1')), r.texts.join('\n'));
  assert.ok(!r.texts.some((t) => /keeps it near 1/.test(t)));
  assert.deepEqual(problems, []);
  await page.close();
});

test('learn: no claim that a task cannot be learned; what positions-off reaches is said with its number', async () => {
  const { page, problems } = await openPage(session, { hash: '#v=learn', waitForVectors: false });
  let r = await read(page, 'v=learn&l.task=previous');
  checkEveryText(r, 'learn');
  assert.ok(!r.texts.some((t) => /cannot (learn|form)/.test(t)), r.texts.join('\n'));
  assert.ok(!r.texts.some((t) => /Every other view uses projections/.test(t)));
  r = await read(page, 'v=learn&l.task=previous&l.pe=none&l.l=1&l.h=1&l.n=60');
  await page.waitForFunction(() => window.attnlab.scalars()['learn.steps'] >= 60);
  r = await read(page, 'v=learn&l.task=previous&l.pe=none&l.l=1&l.h=1&l.n=60');
  const note = r.texts.find((t) => t.startsWith('Positions are off'));
  assert.ok(note, r.texts.join('\n'));
  const [, accuracy, step] = note.match(/held-out accuracy is ([\d.]+) at step (\d+)/);
  assert.equal(accuracy, r.scalars['learn.held_out'].toFixed(3), note);
  assert.ok(Number(step) > 0 && Number(step) <= r.scalars['learn.steps'], note);
  assert.deepEqual(problems, []);
  await page.close();
});

test('prices: on every stock, with either query, the sentence under the plot says what the errors say', async () => {
  const { page, problems } = await openPage(session, { hash: '#v=prices', waitForVectors: false });
  await page.waitForFunction(() => window.attnlab.matrix('prices.plot.real') !== null);
  let losses = 0, fittedLosses = 0;
  for (let stock = 0; stock < 6; ++stock)
    for (const q of [1, 0]) {
      const state = `v=prices&p.s=${stock}&p.sq=${q}`;
      const r = await read(page, state);
      checkEveryText(r, state);
      const s = r.scalars;
      const verdict = r.texts.find((t) => t.startsWith('On '));
      assert.ok(verdict, r.texts.join('\n'));
      assert.ok(verdict.includes(s['prices.rmse.attention'] < s['prices.rmse.average'] ? 'attention beats' : 'attention loses to'), `${state}: ${verdict}`);
      assert.ok(verdict.includes(s['prices.rmse.attention'] < s['prices.rmse.noisy'] ? 'closer to the real price' : 'further from the real price'), `${state}: ${verdict}`);
      assert.ok(verdict.includes(`The best moving average (${s['prices.best_window']} months)`), verdict);
      losses += s['prices.rmse.attention'] >= s['prices.rmse.average'] ? 1 : 0;
      assert.ok(!r.texts.some((t) => /always most similar to itself/.test(t)));
      // Fitted on held-out months: the sentence's numbers and verdict are the model's.
      const fitted = r.texts.find((t) => t.startsWith('Fitted on held-out months'));
      assert.ok(fitted, r.texts.join('\n'));
      assert.ok(fitted.includes(`τ = ${s['prices.fitted.temperature'].toFixed(2)}`), fitted);
      assert.ok(fitted.includes(`(${s['prices.fitted.window']} months)`), fitted);
      assert.ok(fitted.endsWith(s['prices.fitted.rmse.attention'] < s['prices.fitted.rmse.average'] ? 'attention wins.' : 'attention loses.'), fitted);
      const alone = r.texts.find((t) => t.startsWith('With time alone'));
      assert.ok(alone, r.texts.join('\n'));
      assert.ok(alone.includes(`fitted τ = ${s['prices.fitted.time_only.temperature'].toFixed(2)}`), alone);
      const change = (s['prices.fitted.rmse.time_only'] - s['prices.fitted.rmse.attention']) / s['prices.fitted.rmse.time_only'];
      assert.ok(alone.includes(change >= 0.02 ? `the value feature helps here, by ${(100 * change).toFixed(0)}%`
        : change <= -0.02 ? `costs attention here, ${(-100 * change).toFixed(0)}% more error` : 'changes it by under 2%'), alone);
      fittedLosses += s['prices.fitted.rmse.attention'] >= s['prices.fitted.rmse.average'] ? 1 : 0;
    }
  // "Use the fitted τ" sets the slider to it, and the errors become the fitted ones.
  let r = await read(page, 'v=prices&p.s=3');
  const want = r.scalars['prices.fitted.rmse.attention'];
  await page.evaluate(() => window.attnlab.scrollBy(600));  // below the plot: a clipped button has no label yet
  await settle(page);
  await clickPublished(page, `control.Use the fitted τ (${r.scalars['prices.fitted.temperature'].toFixed(2)})`);
  await settle(page);
  r = await read(page, await page.evaluate(() => window.attnlab.state()));
  assert.equal(r.scalars['prices.rmse.attention'], want);
  // With time alone there is no value feature to weigh.
  r = await read(page, 'v=prices&p.s=3&p.vw=0');
  assert.ok(!r.texts.some((t) => t.startsWith('With time alone')));
  console.log(`prices, fitted on held-out months: attention loses to the fitted moving average in ${fittedLosses} of 12 states`);
  console.log(`prices: attention loses to the moving average in ${losses} of 12 states (6 stocks × 2 queries)`);
  assert.deepEqual(problems, []);
  await page.close();
});

test('data size: no summary while seeds still run; when done it is the finished numbers', async () => {
  const { page, problems } = await openPage(session, { hash: '#v=datasize&ds.s=2&ds.max=6&ds.n=100', waitForVectors: false });
  const run = (await page.evaluate(() => window.attnlab.layout()))['datasize.run'];
  await page.mouse.click(run.x + run.width / 2, run.y + run.height / 2);
  const seen = [];
  for (;;) {
    const r = await page.evaluate(() => ({ p: window.attnlab.scalars()['datasize.progress'], texts: window.attnlab.texts() }));
    if (r.p < 1) seen.push(...r.texts.filter((t) => /^With \d+ training sequences|^No crossing/.test(t)));
    if (r.p >= 1) break;
    await page.waitForTimeout(100);
  }
  assert.deepEqual(seen, [], 'no summary sentence while the runs go on');
  await settle(page);
  const r = await read(page, await page.evaluate(() => window.attnlab.state()));
  checkEveryText(r, 'datasize');
  assert.ok(r.texts.some((t) => /^With \d+ training sequences the CNN is ahead.*transformer is ahead|^No crossing/.test(t)), r.texts.join('\n'));
  assert.deepEqual(problems, []);
  await page.close();
});

test('every view at 390 px: each control and each line of text lies inside the screen', async () => {
  const { page, problems } = await openPage(session, { width: 390, height: 844, touch: true, hash: '#v=words' });
  // Every view's defaults, and the states that widen it: a spotlight, seeded projections, 16 heads,
  // 3 × 4 trained heads, a compared row, the lecture mode at 1.5×.
  const views = ['words', 'order', 'qkv', 'relevance', 'heads', 'masks', 'cnn', 'datasize', 'rnn', 'retrieval', 'learn', 'prices', 'speed',
                 'words&w.sp=3', 'qkv&q.tr=0', 'heads&h.n=16', 'learn&l.l=3&l.h=4', 'relevance&r.row=2', 'masks&ui.s=1.5'];
  const outside = [];
  for (const v of views) {
    await page.evaluate((s) => window.attnlabHandle.setState(s), `v=${v}`);
    await settle(page);
    if (v === 'prices') await page.waitForFunction(() => window.attnlab.matrix('prices.plot.real') !== null);
    const max = await page.evaluate(() => window.attnlab.scalars()['page.scroll_max']);
    // Scroll through the page: controls below the fold are laid out too, but get their labels when seen.
    for (let y = 0; ; y += 600) {
      await page.evaluate((to) => window.attnlab.scrollBy(to - window.attnlab.scalars()['page.scroll']), Math.min(y, max));
      await settle(page);
      const layout = await page.evaluate(() => window.attnlab.layout());
      for (const [name, r] of Object.entries(layout))
        if ((name.startsWith('control.') || name.startsWith('text.') || name.endsWith('.numbers')) && r.width > 0 && (r.x < -0.5 || r.x + r.width > 390.5))
          outside.push(`${v}: ${name} [${r.x.toFixed(0)}, ${(r.x + r.width).toFixed(0)}]`);
      const r = await page.evaluate(() => ({ lines: window.attnlab.textLines(), texts: window.attnlab.texts(), tokens: window.attnlab.view().tokens }));
      checkEveryText(r, v);
      if (y >= max) break;
    }
    await screenshot(page, `phone-${v.replace(/[&=]/g, '-')}`);
  }
  assert.deepEqual([...new Set(outside)], []);
  assert.deepEqual(problems, []);
  await page.close();
});

test('lecture mode: the UI scale and the explanations are in the link; the view\'s text is also HTML', async () => {
  const { page, problems } = await openPage(session, { hash: '#v=masks' });
  const before = await read(page, 'v=masks');
  // The median control's height (buttons, sliders, checkboxes: the page's own window and maps left out).
  const controlHeight = (r) => {
    const h = Object.entries(r).filter(([k, v]) => k.startsWith('control.') && v.height > 0 && v.height < 120).map(([, v]) => v.height).sort((a, b) => a - b);
    return h[h.length >> 1];
  };
  const normal = controlHeight(await page.evaluate(() => window.attnlab.layout()));
  assert.ok(before.texts.some((t) => t.startsWith('Try this:')) && before.texts.some((t) => t.startsWith('Takeaway:')));
  const lecture = await read(page, 'v=masks&ui.s=2&ui.p=0');
  assert.equal(lecture.state, 'v=masks&ui.s=2&ui.p=0');
  assert.ok(!lecture.texts.some((t) => t.startsWith('Try this:') || t.startsWith('Takeaway:')), lecture.texts.join('\n'));
  const large = controlHeight(await page.evaluate(() => window.attnlab.layout()));
  assert.ok(large >= 1.8 * normal, `controls at 2×: ${large} px against ${normal}`);
  const mask = await page.evaluate(() => window.attnlab.layout()['masks.W']);
  assert.ok(mask && mask.height > 0, 'the figure is still drawn');
  await screenshot(page, 'lecture-masks');
  // The same sentences as HTML, in the page: what a screen reader or the browser's find reaches.
  const html = await page.evaluate(() => [...document.querySelectorAll('.attnlab-prose p')].map((p) => p.textContent));
  assert.deepEqual(html, lecture.texts);
  const hidden = await page.evaluate(() => document.querySelector('.attnlab-prose').getBoundingClientRect().height);
  assert.ok(hidden <= 1, `without ui.t the section takes no room: ${hidden} px`);
  // "The text as page text" (ui.t=1): the section shows under the canvas, inside the window, at the
  // UI scale, and its text can be selected like any page text.
  const withText = await read(page, 'v=masks&ui.s=1.5&ui.t=1');
  assert.equal(withText.state, 'v=masks&ui.s=1.5&ui.t=1');
  const shown = await page.evaluate(() => {
    const section = document.querySelector('.attnlab-prose'), canvas = document.querySelector('canvas');
    const first = section.querySelector('p');
    const range = document.createRange();
    range.selectNodeContents(first);
    getSelection().removeAllRanges();
    getSelection().addRange(range);
    const r = section.getBoundingClientRect(), c = canvas.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, height: r.height, canvasBottom: c.bottom, font: getComputedStyle(first).fontSize,
             selected: getSelection().toString(), first: first.textContent, windowHeight: innerHeight,
             userSelect: getComputedStyle(first).userSelect };
  });
  assert.ok(shown.height > 100 && shown.top >= shown.canvasBottom - 1 && shown.bottom <= shown.windowHeight + 1, JSON.stringify(shown));
  assert.equal(shown.font, '24px');
  assert.equal(shown.selected, shown.first);
  assert.notEqual(shown.userSelect, 'none');
  await screenshot(page, 'lecture-page-text');
  assert.deepEqual(problems, []);
  await page.close();
});
