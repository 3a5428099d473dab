// The bench orchestrator's own checks: node --test bench/ (after a build: the layer's size and FLOPs
// come from attnlab_bench). Pure parts (best variant and its fallback, ratios, targets, error text,
// the child's result line), the layer as attnlab_bench reports it, one real --quick run of the
// fastest peer.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'node:test';
import { fileURLToPath } from 'node:url';
import { frameStats } from './page.mjs';
import { benchLayer, bestRows, gemmLines, gpt2Compare, gpt2Table, gpt2Targets, gpt2Units, lmTargets, pageTargets, runChild,
         shortError, table, targets, variantsTable } from './run.mjs';
import { argmax, gpt2Prompt } from './peers/gpt2_common.mjs';

const BENCH = path.dirname(fileURLToPath(import.meta.url));
const row = (impl, n, ms, extra = {}) => ({ impl, n, ms, gflops: ms == null ? null : 1e3 / ms, peak_rss_mb: 100,
                                             ...extra });
const ORT_OVERFLOW = 'failed to call OrtRun(). ERROR_CODE: 1, ERROR_MESSAGE: /a/b/onnxruntime/core/common/safeint.h:17 ' +
  'static void SafeIntExceptionHandler<onnxruntime::OnnxRuntimeException>::SafeIntOnOverflow() Integer overflow';

test('the layer comes from attnlab_bench: d_model 256, 4 heads, FLOPs 2·n·d²·4 + 4·n²·d', () => {
  const layer = benchLayer('build', [64, 1024]);
  assert.equal(layer.d_model, 256);
  assert.equal(layer.heads, 4);
  assert.equal(layer.bias, true);
  assert.equal(layer.flops_formula, '2·n·d²·4 + 4·n²·d');
  assert.equal(layer.flops[1024], 2 * 1024 * 256 * 256 * 4 + 4 * 1024 * 1024 * 256);
  assert.equal(layer.flops[64], 2 * 64 * 256 * 256 * 4 + 4 * 64 * 64 * 256);
});

// The report's line per build: what the kernel-choice probe picked on this CPU (attn/kernel_choice.h),
// as attnlab_bench peak prints it, and from which size of call 2 threads are used (attnlab_bench
// threads); --choice forces another candidate and refuses a non-candidate.
test('attnlab_bench peak says the kernel choice, threads the thread choice, the report prints them, --choice sets one', () => {
  const bin = path.join(BENCH, '..', 'build', 'native', 'bench', 'attnlab_bench');
  if (!fs.existsSync(bin)) return;  // the wasm-only CI stage: benchLayer's test above covers the binary
  const { row } = runChild([bin, 'peak'], 'attnlab_bench peak');
  assert.match(row.kernel_choice, new RegExp(`^${row.variant}: GEMM tiles of \\d rows, (16|32) KB slices; attention tiles of \\d+ queries × (64|128|256) keys \\(the fastest of \\d+ settings timed in `));
  const lines = gemmLines({ native: { peak_gflops: 100, gemm_gflops: 80, gemm_shape: '4096×256×256', peak_variant: row.variant,
                                      kernel_choice: row.kernel_choice } });
  assert.deepEqual(lines, [`- GEMM 4096×256×256, attnlab-native: 80.0 GFLOP/s = 80.0% of the measured SIMD mul+add peak (100.0 GFLOP/s, ${row.variant}, one core)\n` +
                           `- kernel choice, attnlab-native: ${row.kernel_choice}`]);
  const forced = runChild([bin, 'peak', '--kernel', row.variant, '--choice', '4,16,24,64'], 'attnlab_bench peak --choice').row;
  assert.equal(forced.kernel_choice, `${row.variant}: GEMM tiles of 4 rows, 16 KB slices; attention tiles of 24 queries × 64 keys (set, not measured here)`);
  // The thread count's crossover, learnt from the bench layer's calls (attn/thread_choice.h).
  const threads = runChild([bin, 'threads', '--threads', '2'], 'attnlab_bench threads').row;
  assert.match(threads.thread_choice, new RegExp(`^${row.variant}, 2 threads: threaded from 2\\^\\d+ FLOPs \\(measured: 2\\^\\d+ one thread [\\d.e+-]+ ms, 2 threads [\\d.e+-]+ ms`));
  assert.deepEqual(gemmLines({ native: { peak_gflops: 100, gemm_gflops: 80, gemm_shape: '4096×256×256', peak_variant: row.variant,
                                         thread_choices: [threads.thread_choice] } }),
                   [`- GEMM 4096×256×256, attnlab-native: 80.0 GFLOP/s = 80.0% of the measured SIMD mul+add peak (100.0 GFLOP/s, ${row.variant}, one core)\n` +
                    `- thread choice, attnlab-native: ${threads.thread_choice}`]);
  const refused = spawnSync(bin, ['peak', '--choice', '5,16,24,64'], { encoding: 'utf8' });
  assert.equal(refused.status, 2);
  assert.match(refused.stderr, /kernel choice: gemm_rows must be one of 4, 6/);
});

test('onnxruntime error text is shortened to its message', () => {
  assert.equal(shortError(ORT_OVERFLOW), 'Integer overflow');
  assert.equal(shortError('not built'), 'not built');
});

test('best variant per (impl, n); a failed fused variant falls back to the explicit one', () => {
  const rows = [
    row('onnxruntime-web', 4096, null, { variant: 'fused', error: ORT_OVERFLOW }),
    row('onnxruntime-web', 4096, 1200, { variant: 'explicit' }),
    row('pytorch', 4096, 600, { variant: 'mha' }),
    row('pytorch', 4096, 500, { variant: 'explicit' }),
  ];
  const best = bestRows(rows);
  assert.deepEqual(best.map((r) => [r.impl, r.variant]), [['onnxruntime-web', 'explicit'], ['pytorch', 'explicit']]);
  assert.equal(best[0].failedVariants[0].variant, 'fused');
  assert.match(table(rows, { native: {}, wasm: {} }), /onnxruntime-web \(explicit\) — fused: Integer overflow \| 1200 \|/);
});

test('ratios and targets: wasm peers against attnlab-wasm, native peers against attnlab-native', () => {
  const o = { ns: [256, 16384], peerNs: [256], only: null };
  const rows = [
    row('attnlab-wasm', 256, 5), row('onnxruntime-web', 256, 10, { variant: 'fused' }), row('tfjs-wasm', 256, 7),
    row('attnlab-native', 256, 2), row('onnxruntime-node', 256, 2.5, { variant: 'fused' }), row('pytorch', 256, 3),
    row('attnlab-wasm', 16384, 9000), row('attnlab-native', 16384, null, { error: 'not built', not_built: true }),
  ];
  const peaks = { native: { peak_gflops: 100, gemm_gflops: 70, peak_variant: 'avx2' }, wasm: { peak_gflops: 50, gemm_gflops: 20 } };
  const t = table(rows, peaks);
  assert.match(t, /\| 256 \| onnxruntime-web \(fused\) \| 10\.0 \| [\d.]+ \| 2\.00× \|/);
  assert.match(t, /\| 256 \| pytorch \| 3\.00 \| [\d.]+ \| 1\.50× \|/);
  const lines = targets(rows, peaks, { gzip_bytes: 500 * 1024, parts: [] }, o).split('\n');
  const verdict = (re) => lines.find((l) => re.test(l))?.split(':')[0];
  assert.equal(verdict(/faster than onnxruntime-web/), '- **met**');
  assert.equal(verdict(/faster than tfjs-wasm/), '- **not met**');          // 1.4×
  assert.equal(verdict(/1\.1× faster than onnxruntime-node/), '- **met**');  // 1.25×
  assert.equal(verdict(/2× faster than pytorch/), '- **not met**');          // 1.5×
  assert.equal(verdict(/attnlab-native GEMM/), '- **met**');                 // 70%
  assert.equal(verdict(/attnlab-wasm GEMM/), '- **not met**');               // 40%
  assert.equal(verdict(/attnlab-wasm completes/), '- **met**');
  assert.equal(verdict(/attnlab-native completes/), '- not measured');
  assert.equal(verdict(/400 KB/), '- **not met**');
  assert.match(lines.find((l) => /onnxruntime-web/.test(l)), /every n ≥ 256/);  // the smallest n measured
});

// Issue 30: each ratio says how much it moves — peer Q1 / attnlab Q3 to peer Q3 / attnlab Q1 of the
// pooled samples — in the table and in the targets' lines; none from fewer than 4 samples a side.
test('a ratio shows the spread of its samples', () => {
  const o = { ns: [256], peerNs: [256], only: null };
  const rows = [
    row('attnlab-native', 256, 2, { samples: [1.8, 1.9, 2.0, 2.1, 2.2] }),  // Q1 1.9, Q3 2.1
    row('onnxruntime-node', 256, 2.5, { variant: 'fused', samples: [2.3, 2.4, 2.5, 2.6, 2.7] }),  // Q1 2.4, Q3 2.6
    row('pytorch', 256, 3, { samples: [3, 3, 3] }),
  ];
  const t = table(rows, { native: {}, wasm: {} });
  assert.match(t, /\| 256 \| onnxruntime-node \(fused\) \| 2\.50 \| [\d.]+ \| 1\.25× \(1\.14–1\.37\) \|/);  // 2.4/2.1, 2.6/1.9
  assert.match(t, /\| 256 \| pytorch \| 3\.00 \| [\d.]+ \| 1\.50× \|/);  // 3 samples: no spread
  const lines = targets(rows, { native: {}, wasm: {} }, null, o).split('\n');
  assert.match(lines.find((l) => /1\.1× faster than onnxruntime-node/.test(l)), /n=256: 1\.25× \(1\.14–1\.37\)/);
});

test('issue 16: every n against onnxruntime, n ≥ 256 against tfjs and PyTorch, n = 16 against the peak, T threads', () => {
  const o = { ns: [16, 64, 256], peerNs: [16, 64, 256], only: null, threads: [1, 2] };
  const rows = [
    row('attnlab-wasm', 16, 0.2, { gflops: 30 }), row('onnxruntime-web', 16, 0.25, { variant: 'fused' }),
    row('attnlab-wasm', 64, 1), row('onnxruntime-web', 64, 2, { variant: 'fused' }),
    row('attnlab-wasm', 256, 5), row('onnxruntime-web', 256, 10, { variant: 'fused' }), row('tfjs-wasm', 64, 1.1), row('tfjs-wasm', 256, 8),
    row('attnlab-native', 16, 0.05, { gflops: 150 }), row('onnxruntime-node', 16, 0.06, { variant: 'fused' }),
    row('attnlab-native', 64, 0.2), row('onnxruntime-node', 64, 0.18, { variant: 'fused' }),
    row('attnlab-native', 256, 1), row('onnxruntime-node', 256, 1.2, { variant: 'fused' }), row('pytorch', 256, 2.5),
    row('attnlab-native-2t', 256, 0.6), row('onnxruntime-node-2t', 256, 0.7, { variant: 'fused' }),
  ];
  const peaks = { native: { peak_gflops: 200, gemm_gflops: 150 }, wasm: { peak_gflops: 60, gemm_gflops: 50 } };
  const lines = targets(rows, peaks, null, o).split('\n');
  const verdict = (re) => lines.find((l) => re.test(l))?.split(':')[0];
  assert.equal(verdict(/faster than onnxruntime-web at every n ≥ 16 /), '- **not met**');  // 1.25× at n = 16
  assert.equal(verdict(/faster than tfjs-wasm at every n ≥ 256 /), '- **met**');           // 1.1× at 64 does not count
  assert.equal(verdict(/1\.1× faster than onnxruntime-node at every n ≥ 16 /), '- **not met**');  // 0.9× at n = 64
  // A miss says by how much: 1.5 / 1.25 − 1 = 20% at n = 16; 0.18 / 0.2 = 0.9× needs 1.1 / 0.9 − 1 = 22.2% at n = 64.
  assert.match(lines.find((l) => /onnxruntime-web at every n ≥ 16 /.test(l)), /; short by 20\.0% at n=16$/);
  assert.match(lines.find((l) => /onnxruntime-node at every n ≥ 16 /.test(l)), /; short by 22\.2% at n=64$/);
  assert.doesNotMatch(lines.find((l) => /2× faster than pytorch/.test(l)), /short by/);
  assert.equal(verdict(/2× faster than pytorch/), '- **met**');
  assert.equal(verdict(/\(2 threads\) at least as fast as onnxruntime-node-2t/), '- not measured');  // no n ≥ 512
  assert.equal(verdict(/attnlab-native at n = 16/), '- **met**');   // 75%
  assert.equal(verdict(/attnlab-wasm at n = 16/), '- **not met**'); // 50%
  assert.equal(lines.find((l) => /view 5/.test(l)), undefined, 'not measured: no line');
  const withPage = (heads_recompute) => targets(rows, peaks, { gzip_bytes: 1, parts: [], heads_recompute }, o).split('\n')
    .find((l) => /recompute of view 5/.test(l));
  assert.match(withPage({ ms: 0.19, batches: 9 }), /^- \*\*met\*\*: .*\(0\.190 ms, median of 9 batches/);
  assert.match(withPage({ ms: 0.21, batches: 9 }), /^- \*\*not met\*\*/);
  assert.match(withPage(null), /^- not measured: .*site not built/);
});

test('the page section: each speed and frame-time target with its number, met or not; not measured says why', () => {
  const page = {
    heads_recompute: { ms: 0.19, batches: 9, js_ms: 0.04 },                     // 4 · 0.04 + 0.5 = 0.66 > 0.19
    saturation: { ms: 250 },                                                   // the target is < 250
    learn: { steps: 301, steps_per_second: 45.4, median: 12, p90: 20.5, max: 31, frames: 120, in_worker: true,
             wall_steps_per_second: 40, rate_ratio: 40 / 32, main_thread: { wall_steps_per_second: 32, median: 11, p90: 13 } },
    data_size: { seconds: 59.96, median: 10, p90: 14.25, max: 22, frames: 230, crossover: 256, main_thread_seconds: 100,
                 ratio: 0.5996, cores: 2, same_points: true, main_thread_frames: { median: 9, p90: 11.3 } },
    embed: { first_frame_ms: 1234.4, extra_start_ms: [150, 1999.6, 160] },
    rnn: { attention_us: 12.5, rnn_us: 1.25, seconds: 4.2, median: 3.5, p90: 17.5, frames: 80,
           main_thread: { seconds: 5.1, median: 14, p90: 19 } },
    main_thread_gap: { max_gap_ms: 117.4, frames: 2400, in_worker: true },
  };
  const lines = pageTargets(page);
  assert.equal(lines.length, 15);
  const line = (re) => lines.find((l) => re.test(l));
  assert.match(line(/recompute of view 5/), /^- \*\*met\*\*: page: .* ≤ 0\.2 ms \(0\.190 ms, median of 9 batches, headless Chromium\)$/);
  assert.match(line(/from JavaScript/), /^- \*\*met\*\*: .*\(0\.190 ms against 0\.040 ms from JavaScript, 4\.75×\)$/);
  assert.match(line(/saturation sweep/), /^- \*\*not met\*\*: .*< 250 ms \(250\.0 ms\)$/);
  assert.match(line(/steps\/s/), /^- \*\*met\*\*: .*> 20 steps\/s .*\(45 steps\/s over 301 steps\)$/);
  assert.match(line(/frames while training/), /^- \*\*not met\*\*: .*median ≤ 12 ms, 90th percentile ≤ 20 ms \(median 12\.0 ms, p90 20\.5 ms, max 31\.0 ms over 120 frames\)$/);
  assert.match(line(/default experiment/), /^- \*\*met\*\*: .*≤ 60 s \(60\.0 s, crossover at N = 256\)$/);
  assert.match(line(/view 8's frames/), /^- \*\*met\*\*: .*≤ 25 ms \(median 10\.0 ms, p90 14\.3 ms, max 22\.0 ms over 230 frames\)$/);
  assert.match(line(/in Web Workers in/), /^- \*\*met\*\*: .*≤ 0\.6× .*\(60\.0 s against 100\.0 s: 0\.60× on 2 cores, the same points\)$/);
  assert.match(line(/runs are in Web Workers/), /^- \*\*met\*\*: .*median ≤ 10 ms, 90th percentile ≤ 17 ms \(median 10\.0 ms, p90 14\.3 ms over 230 frames/);
  assert.match(line(/view 9's timing sweep/), /^- \*\*not met\*\*: .*median ≤ 10 ms, 90th percentile ≤ 17 ms \(median 3\.5 ms, p90 17\.5 ms over 80 frames, 4\.2 s \(on the page's thread, one batch a frame: median 14\.0 ms, p90 19\.0 ms, 5\.1 s\)\)$/);
  assert.match(line(/trains in a Web Worker/), /^- \*\*met\*\*: .*\(40 against 32 steps\/s: 1\.25×; the page's frames meanwhile median 12\.0 ms, p90 20\.5 ms \(on the page's thread: 11\.0 ms, 13\.0 ms\)\)$/);
  assert.match(pageTargets({ data_size: { ...page.data_size, cores: 4 } }).find((l) => /in Web Workers in/.test(l)), /^- \*\*not met\*\*/,
               '4 cores: ≤ 0.35×');
  assert.match(pageTargets({ data_size: { ...page.data_size, same_points: false } }).find((l) => /in Web Workers in/.test(l)),
               /^- \*\*not met\*\*.*different points/);
  assert.match(line(/first frame < 10000 ms/), /^- \*\*met\*\*: .*\(1234 ms\)$/);
  assert.match(line(/further <attn-lab>/), /^- \*\*met\*\*: .*< 2000 ms after mounting \(150 ms, 2000 ms, 160 ms\)$/);
  assert.match(line(/view 9/), /^- \*\*met\*\*: .*\(12\.50 µs against 1\.25 µs\)$/);
  assert.match(line(/without a frame/), /^- \*\*met\*\*: .*250 ms without a frame .*\(longest gap 117 ms over 2400 frames, n = 8192 timed in a Web Worker\)$/);
  assert.match(pageTargets({ main_thread_gap: { max_gap_ms: 1150, frames: 90, in_worker: false } })[0],
               /^- \*\*not met\*\*: .*\(longest gap 1150 ms over 90 frames, n = 8192 timed on the page's thread\)$/);
  // Misses (0.7 ms ≥ 4 · 0.01 + 0.5), and parts not measured: an error, --quick, a number the page did
  // not show, a part not asked for.
  const other = pageTargets({ heads_recompute: { ms: 0.7, batches: 9, js_ms: 0.01 }, learn: { error: 'page.click: Timeout 300000ms exceeded.' },
                              data_size: { skipped: '--quick' }, embed: { first_frame_ms: 12000, extra_start_ms: [2500] },
                              rnn: { attention_us: 1, rnn_us: undefined } });
  assert.deepEqual(other.map((l) => l.split(':')[0]), ['- **not met**', '- **not met**', '- not measured', '- not measured', '- not measured',
                                             '- not measured', '- not measured', '- not measured', '- not measured',
                                             '- **not met**', '- **not met**', '- not measured', '- not measured']);
  assert.match(other.find((l) => /steps\/s/.test(l)), /\(page\.click: Timeout 300000ms exceeded\.\)$/);
  assert.match(other.find((l) => /default experiment/.test(l)), /\(not run with --quick\)$/);
  assert.match(other.find((l) => /view 9/.test(l)), /\(not shown\)$/);
  assert.equal(other.find((l) => /saturation/.test(l)), undefined, 'not asked for: no line');
  assert.deepEqual(pageTargets(null), []);
});

test('frame statistics: median, 90th percentile and largest of the samples', () => {
  assert.deepEqual(frameStats([5, 1, 4, 2, 3, 10, 9, 8, 7, 6]), { median: 6, p90: 10, max: 10, frames: 10 });
  assert.deepEqual(frameStats([3]), { median: 3, p90: 3, max: 3, frames: 1 });
});

test('attnlab-wasm\'s two builds are variants, each a share of its own peak; wasm peers are compared with the faster', () => {
  // gflops = 1000 / ms: 20 and 25 GFLOP/s.
  const rows = [
    row('attnlab-wasm', 1024, 50, { variant: 'wasm_simd128' }), row('attnlab-wasm', 1024, 40, { variant: 'wasm_relaxed_simd' }),
    row('tfjs-wasm', 1024, 80, { variant: 'simd' }),
  ];
  const peaks = { native: {}, wasm: { peak_gflops: 40 }, 'wasm-relaxed': { peak_gflops: 100 } };
  const t = table(rows, peaks);
  assert.match(t, /\| 1024 \| attnlab-wasm \(wasm_relaxed_simd\) \| 40\.0 \| 25\.0 \|  \| 25\.0% \|/);  // 25 of its 100
  assert.match(t, /\| 1024 \| tfjs-wasm \(simd\) \| 80\.0 \| 12\.5 \| 2\.00× \| 31\.3% \|/);        // the plain peak, 40
  const v = variantsTable(rows, peaks);
  assert.match(v, /\| 1024 \| attnlab-wasm \| wasm_simd128 \| 50\.0 \| 20\.0 \| 50\.0% \|/);           // 20 of 40
  assert.match(v, /\| 1024 \| attnlab-wasm \| wasm_relaxed_simd \| 40\.0 \| 25\.0 \| 25\.0% \|/);
});

test('rows on T threads (--threads 1,2) are compared with each other, after the one-thread rows', () => {
  const rows = [
    row('attnlab-native-2t', 1024, 4), row('onnxruntime-node-2t', 1024, 5, { variant: 'fused' }),
    row('attnlab-native', 1024, 8), row('onnxruntime-node', 1024, 6, { variant: 'fused' }),
  ];
  const t = table(rows, { native: {}, wasm: {} });
  assert.match(t, /\| 1024 \| onnxruntime-node \(fused\) \| 6\.00 \| [\d.]+ \| 0\.75× \|/);
  assert.match(t, /\| 1024 \| onnxruntime-node-2t \(fused\) \| 5\.00 \| [\d.]+ \| 1\.25× \|/);
  assert.deepEqual(bestRows(rows).map((r) => r.impl), ['attnlab-native', 'onnxruntime-node', 'attnlab-native-2t',
                                                       'onnxruntime-node-2t']);
});

test('a child result is the last JSON line of its stdout; a silent failure becomes an error row', () => {
  const ok = runChild([process.execPath, '-e', 'console.log("banner"); console.log(JSON.stringify({impl: "x", n: 4, ms: 1}))'], 'x');
  assert.deepEqual(ok.row, { impl: 'x', n: 4, ms: 1 });
  const bad = runChild([process.execPath, '-e', 'console.error("oops"); process.exit(3)'], 'x');
  assert.equal(bad.row.error, 'x: exit 3, no result line: oops');
});

test('--quick --only tfjs-wasm runs and writes its rows', () => {
  const json = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'attnlab-bench-')), 'rows.json');
  const r = spawnSync(process.execPath, [path.join(BENCH, 'run.mjs'), '--quick', '--only', 'tfjs-wasm', '--json', json],
                      { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const rows = JSON.parse(fs.readFileSync(json, 'utf8'));
  assert.deepEqual(rows.map((x) => x.n), [64, 256]);
  for (const x of rows) {
    assert.equal(x.impl, 'tfjs-wasm');
    assert.ok(x.ms > 0 && x.gflops > 0 && x.peak_rss_mb > 0, JSON.stringify(x));
  }
  assert.match(r.stdout, /\| 64 \| tfjs-wasm \(simd\) \|/);
});

test('the language model\'s targets: training against PyTorch, the KV cache against recomputing; not measured says why', () => {
  const lines = lmTargets({ train: { attnlab: { tokens_per_s: 1800 }, pytorch: { tokens_per_s: 2400 } },
                            generate: { ms_per_word_cached: 1.1, ms_per_word_recomputed: 3.63 } });
  assert.equal(lines.length, 2);
  assert.match(lines[0], /^- \*\*not met\*\*: language model: a training step .*\(1800 against 2400 tokens\/s, 0\.75×\)$/);
  assert.match(lines[1], /^- \*\*not met\*\*: .*\(1\.100 against 3\.630 ms per word, 3\.30×\)$/);
  const met = lmTargets({ train: { attnlab: { tokens_per_s: 5000, kernel: 'avx2' }, pytorch: { tokens_per_s: 2400 } },
                          generate: { ms_per_word_cached: 0.5, ms_per_word_recomputed: 3 } });
  assert.deepEqual(met.map((l) => l.split(':')[0]), ['- **met**', '- **met**']);
  assert.match(met[0], /\(5000 against 2400 tokens\/s, 2\.08×, attnlab on its avx2 kernel\)$/);
  const none = lmTargets({ train: { attnlab: { error: 'not built' }, pytorch: { tokens_per_s: 1 } }, generate: { error: 'exit 1' } });
  assert.match(none[0], /^- not measured: .*\(not built\)$/);
  assert.match(none[1], /^- not measured: .*\(exit 1\)$/);
  assert.deepEqual(lmTargets(undefined), []);
});

// The GPT-2-small workload (issue 28): rows as its runners print them, logits from a stub reader (no
// 500 MB model here; no duration is asserted).
const gpt2Row = (impl, variant, prefill_ms, decode_ms_per_token, extra = {}) => ({
  impl, variant, prefill_ms, decode_ms_per_token, tokens: [5, 7, 7], logits_file: `${impl}-${variant}.f32`, peak_rss_mb: 900, ...extra });

test('GPT-2-small: tokens and max |Δ logit| against attnlab-native\'s first row; a failed row is left as it is', () => {
  const logits = { 'attnlab-native-avx512.f32': [1, 2, 3], 'attnlab-native-eigen.f32': [1, 2, 3.5],
                   'onnxruntime-node-cpu.f32': [1.25, 2, 3], 'pytorch-eager.f32': [1, 2] };
  const read = (f) => (logits[f] ? Float32Array.from(logits[f]) : null);
  const rows = gpt2Compare([
    gpt2Row('attnlab-native', 'avx512', 100, 10), gpt2Row('attnlab-native', 'eigen', 200, 8),
    gpt2Row('onnxruntime-node', 'cpu', 120, 9, { tokens: [5, 7, 8] }), gpt2Row('pytorch', 'eager', 300, 20),
    { impl: 'onnxruntime-web', error: 'boom' },
  ], read);
  assert.equal(rows[0].same_tokens, undefined);  // the reference
  assert.deepEqual(rows.slice(1, 4).map((r) => [r.same_tokens, r.max_abs_diff]), [[true, 0.5], [false, 0.25], [true, null]]);
  assert.equal(rows[4].error, 'boom');
  const t = gpt2Table({ rows }).join('\n');
  assert.match(t, /\| attnlab-native \(avx512\) \| 100 \| 1280 \| 10\.0 \| {2}\| reference \|/);
  // ratios against attnlab's best variant per phase: prefill 100 (avx512), decode 8 (eigen)
  assert.match(t, /\| onnxruntime-node \(cpu\) \| 120 \| 1067 \| 9\.00 \| 1\.20×, 1\.13× \| \*\*no\*\* \| 2\.5e-1 \|/);
  assert.match(t, /\| onnxruntime-web \| error: boom \|/);
  assert.deepEqual(gpt2Table({ error: 'model missing' }), ['GPT-2-small: not measured (model missing)']);
});

test('GPT-2-small targets: wasm ≥ 1.5× onnxruntime-web, native ≥ 1× onnxruntime-node, prefill and decode; tokens agree', () => {
  const rows = [
    gpt2Row('attnlab-wasm', 'wasm_simd128', 1000, 100, { same_tokens: true }), gpt2Row('onnxruntime-web', 'wasm-simd', 2000, 120, { same_tokens: true }),
    gpt2Row('attnlab-native', 'avx512', 300, 60), gpt2Row('onnxruntime-node', 'cpu', 250, 70, { same_tokens: false }),
  ];
  const lines = gpt2Targets({ rows });
  assert.equal(lines.length, 5);
  assert.deepEqual(lines.map((l) => l.split(':')[0]), ['- **met**', '- **not met**', '- **not met**', '- **met**', '- **not met**']);
  assert.match(lines[0], /attnlab-wasm ≥ 1\.5× faster than onnxruntime-web, prefill of 128 tokens \(1000 against 2000 ms, 2\.00×, attnlab wasm_simd128\)$/);
  assert.match(lines[1], /decode \(100 against 120 ms\/token, 1\.20×, attnlab wasm_simd128; short by 25\.0%\)$/);
  assert.match(lines[2], /prefill of 128 tokens \(300 against 250 ms, 0\.83×, attnlab avx512; short by 20\.0%\)$/);
  assert.match(lines[4], /differ: onnxruntime-node \(cpu\)\)$/);
  const missing = gpt2Targets({ rows: [{ impl: 'attnlab-wasm', error: 'not built' }, ...rows.slice(1)] });
  assert.match(missing[0], /^- not measured: GPT-2-small: .*\(attnlab-wasm: not built\)$/);
  assert.ok(gpt2Targets({ error: 'no model' }).slice(0, 4).every((l) => /^- not measured: .*\(no model\)$/.test(l)));
  assert.deepEqual(gpt2Targets(undefined), []);
});

test('GPT-2-small: every runner gets the same loop; the prompt is gpt2.py\'s; argmax takes the lowest id on ties', () => {
  const units = gpt2Units('build');
  assert.deepEqual([...new Set(units.map((u) => u.impl))],
                   ['attnlab-wasm', 'onnxruntime-web', 'attnlab-native', 'onnxruntime-node', 'pytorch']);
  assert.ok(units.every((u) => u.cmd.includes('--reps') && u.cmd.includes('--warmup')));
  const ids = gpt2Prompt(50257);
  assert.equal(ids.length, 128);
  assert.ok(ids.every((id) => Number.isInteger(id) && id >= 0 && id < 50257));
  // gpt2.py's prompt() gives the same ids (xorshift32 from 0x9E3779B9); where torch's python runs
  const py = spawnSync(process.env.ATTNLAB_BENCH_PYTHON || '/usr/bin/python3', ['-c',
    'import sys; sys.path.insert(0, "bench/peers"); import gpt2; print(",".join(map(str, gpt2.prompt(50257))))'],
  { cwd: path.dirname(BENCH), encoding: 'utf8' });
  if (py.status === 0) assert.equal(py.stdout.trim(), ids.join(','));
  assert.equal(argmax(Float32Array.from([1, 3, 3, 2])), 1);
});
