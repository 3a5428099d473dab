// The engine from JavaScript: forward() with the full configuration, and its errors.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, openPage } from './browser.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

test('forward(): heads, projections and errors from JavaScript', async () => {
  const { page, problems } = await openPage(session);
  const r = await page.evaluate(() => {
    const x = { rows: 3, cols: 4, data: new Float32Array([1, 0, 0, 1, 0, 1, 1, 0, 1, 1, 0, 0]) };
    const out = window.attnlab.forward({ numHeads: 2, projectInputs: true, projectOutput: true, seed: 7, causal: true }, { query: x });
    return {
      ok: out.ok, heads: out.heads.length, w0: Array.from(out.heads[0].weights.data),
      out: [out.output.rows, out.output.cols], wq: [out.parameters.wq.rows, out.parameters.wq.cols],
      again: Array.from(window.attnlab.forward({ numHeads: 2, projectInputs: true, projectOutput: true, seed: 7, causal: true }, { query: x }).output.data),
      first: Array.from(out.output.data),
      badName: window.attnlab.forward({ normalizer: 'softmx' }, { query: x }),
      badHeads: window.attnlab.forward({ numHeads: 3, projectInputs: true }, { query: x }),
      badShape: window.attnlab.forward({}, { query: { rows: 2, cols: 2, data: [1, 2, 3] } }),
    };
  });
  assert.equal(r.ok, true);
  assert.equal(r.heads, 2);
  assert.deepEqual(r.out, [3, 4]);
  assert.deepEqual(r.wq, [4, 4]);
  // Causal: row 0 attends only to itself; rows sum to 1.
  assert.deepEqual(r.w0.slice(0, 3), [1, 0, 0]);
  assert.ok(Math.abs(r.w0.slice(3, 6).reduce((a, b) => a + b) - 1) < 1e-6);
  assert.deepEqual(r.again, r.first, 'the same seed gives the same parameters');
  assert.equal(r.badName.code, 'unknown_option');
  assert.match(r.badName.message, /expected one of softmax/);
  assert.equal(r.badHeads.ok, false);
  assert.equal(r.badShape.code, 'shape_mismatch');
  assert.deepEqual(problems, []);
  await page.close();
});
