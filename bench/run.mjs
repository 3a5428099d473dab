// The benchmark: attnlab (native and WebAssembly) against its peers on one full multi-head attention
// forward, one thread: the layer of lessons/bench_layer.h, whose d_model, heads and FLOPs this script
// reads from `attnlab_bench layer` (so they are written down once, in C++).
//
//   node bench/run.mjs [--quick] [--only impl,impl] [--markdown bench/RESULTS.md]
//                      [--ns 64,256] [--reps 5] [--rounds 2] [--warmup-ms 1500]
//                      [--json bench/results.json] [--build-dir build] [--threads 1,2]
// --only gpt2 runs the GPT-2-small workload alone (it also runs without --only; see measureGpt2).
// --threads 1,2 adds, for each count T > 1, attnlab-native-Tt (AttentionConfig::threads = T) and
// onnxruntime-node-Tt (intra_op_num_threads = T), compared with each other (group native-Tt).
//
// Every (impl, variant, n) runs in its own child process (so its peak RSS is its own), which prints one
// JSON line (see bench/peers/common.mjs). Order: for n, for round, for impl — so a noisy moment on
// the machine does not land on one implementation only. The rounds' samples are pooled and ms is their
// median. Peers run n = 64…4096 (never above); attnlab also n = 16384. Prints a markdown table and the
// targets, writes the rows to bench/results.json (--quick: bench/.cache/results-quick.json).
// The page section (bench/page.mjs; without --only, when <build-dir>/wasm/site is built): the page's
// speed and frame-time targets in headless Chromium, one run each (--quick leaves out view 8's
// default experiment); the browser tests assert none of them.
// Its own checks: node --test bench/
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { PAGE_TARGETS, measurePage } from './page.mjs';

const BENCH = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.dirname(BENCH);
const PEER_NS = [16, 64, 256, 1024, 4096];
const ATTNLAB_ONLY_NS = [16384];
const PEER_MAX_N = 4096;  // peers at n = 16384 are not asked for (ort-web already needs 721 MB at 4096)
const PYTHON = process.env.ATTNLAB_BENCH_PYTHON || '/usr/bin/python3';  // Debian's, which has torch
const NODE = [process.execPath, '--no-experimental-fetch'];
// attnlab's relaxed-SIMD twins (bench/relaxed/) need the flag in node 20 (Chromium has it on).
const NODE_RELAXED = [...NODE, '--experimental-wasm-relaxed-simd'];
// attnlab-wasm's two builds, as its rows' variants: the plain SIMD128 one and the relaxed-SIMD one
// (f32x4.relaxed_madd, fused on FMA CPUs), each against its own measured peak.
const WASM_PLAIN = 'wasm_simd128', WASM_RELAXED = 'wasm_relaxed_simd';
const CHILD_TIMEOUT_MS = 15 * 60 * 1000;


// attnlab_bench's binaries: the native one and the two node ones.
const benchBinaries = (buildDir) => ({
  native: path.resolve(ROOT, buildDir, 'native/bench/attnlab_bench'),
  wasm: path.resolve(ROOT, buildDir, 'wasm/bench/attnlab_bench.js'),
  wasmRelaxed: path.resolve(ROOT, buildDir, 'wasm/bench/relaxed/attnlab_bench.js'),
});

// The benchmark layer as attnlab_bench describes it (lessons/bench_layer.h), from whichever build
// exists: {d_model, heads, seed, bias, flops_formula, flops: {n: FLOPs of one forward}} for every n.
export function benchLayer(buildDir, ns) {
  const bin = benchBinaries(buildDir);
  const cmd = fs.existsSync(bin.native) ? [bin.native] : fs.existsSync(bin.wasm) ? [...NODE, bin.wasm] : null;
  if (!cmd) {
    throw new Error(`attnlab_bench is not built (${path.relative(ROOT, bin.native)} or ${path.relative(ROOT, bin.wasm)}), ` +
                    'and it defines the layer: npm run bench builds it, or cmake --build --preset native-release --target attnlab_bench');
  }
  const { row } = runChild([...cmd, 'layer', '--ns', ns.join(',')], 'attnlab_bench layer');
  const missing = ns.filter((n) => !Number.isFinite(row.flops?.[n]));
  if (row.error || !(row.d_model > 0 && row.heads > 0) || missing.length) {
    throw new Error(row.error ?? `attnlab_bench layer: no d_model, heads or FLOPs for n = ${missing.join(', ')}`);
  }
  return row;
}

// ---------------------------------------------------------------------------------------------- options
function parseOptions(argv) {
  const o = { quick: false, only: null, markdown: null, ns: null, reps: null, rounds: null, warmupMs: null,
              json: null, buildDir: 'build', threads: [1] };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i], next = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--quick') o.quick = true;
    else if (a === '--only') o.only = next().split(',').map((s) => s.trim()).filter(Boolean);
    else if (a === '--markdown') o.markdown = next();
    else if (a === '--ns') o.ns = next().split(',').map(Number);
    else if (a === '--reps') o.reps = Number(next());
    else if (a === '--rounds') o.rounds = Number(next());
    else if (a === '--warmup-ms') o.warmupMs = Number(next());
    else if (a === '--json') o.json = next();
    else if (a === '--build-dir') o.buildDir = next();
    else if (a === '--threads') o.threads = next().split(',').map(Number);
    else if (a === '--help' || a === '-h') {
      console.log(fs.readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\nimport ')[0]);
      process.exit(0);
    } else throw new Error(`unknown option ${a} (see --help)`);
  }
  o.reps ??= o.quick ? 3 : 5;
  o.rounds ??= o.quick ? 1 : 2;
  o.warmupMs ??= o.quick ? 300 : 1500;
  o.json ??= o.quick ? path.join('bench', '.cache', 'results-quick.json') : path.join('bench', 'results.json');
  const ns = o.ns ?? (o.quick ? [64, 256] : [...PEER_NS, ...ATTNLAB_ONLY_NS]);
  o.ns = ns;
  o.peerNs = ns.filter((n) => n <= PEER_MAX_N);
  if (!(o.reps > 0 && o.rounds > 0 && o.warmupMs >= 0 && ns.every((n) => n > 0))) throw new Error('bad options');
  if (!o.threads.every((t) => Number.isInteger(t) && t >= 1 && t <= 64)) throw new Error('--threads: expected counts in 1..64');
  return o;
}

// -------------------------------------------------------------------------------------------- the impls
// Each unit is one (impl, variant) and the command that runs it; group: which peak and which attnlab
// it is compared with.
function units(buildDir, threads = [1]) {
  const { native: nativeBin, wasm: wasmJs, wasmRelaxed } = benchBinaries(buildDir);
  const peer = (f) => path.join(BENCH, 'peers', f);
  const threaded = threads.filter((t) => t > 1).flatMap((t) => [
    { impl: `attnlab-native-${t}t`, cmd: [nativeBin, 'forward', '--threads', String(t)], needs: nativeBin },
    ...['explicit', 'fused'].map((variant) => ({
      impl: `onnxruntime-node-${t}t`, variant, cmd: [...NODE, peer('ort_node.mjs'), '--variant', variant, '--threads', String(t)],
    })),
  ]);
  return [
    { impl: 'attnlab-wasm', variant: WASM_PLAIN, group: 'wasm', cmd: [...NODE, wasmJs, 'forward'], needs: wasmJs },
    { impl: 'attnlab-wasm', variant: WASM_RELAXED, group: 'wasm', cmd: [...NODE_RELAXED, wasmRelaxed, 'forward'],
      needs: wasmRelaxed },
    { impl: 'attnlab-native', group: 'native', cmd: [nativeBin, 'forward'], needs: nativeBin },
    { impl: 'onnxruntime-web', variant: 'explicit', group: 'wasm', cmd: [...NODE, peer('ort_web.mjs'), '--variant', 'explicit'] },
    { impl: 'onnxruntime-web', variant: 'fused', group: 'wasm', cmd: [...NODE, peer('ort_web.mjs'), '--variant', 'fused'] },
    { impl: 'tfjs-wasm', variant: 'simd', group: 'wasm', cmd: [...NODE, peer('tfjs_wasm.mjs')] },
    { impl: 'onnxruntime-node', variant: 'explicit', group: 'native', cmd: [...NODE, peer('ort_node.mjs'), '--variant', 'explicit'] },
    { impl: 'onnxruntime-node', variant: 'fused', group: 'native', cmd: [...NODE, peer('ort_node.mjs'), '--variant', 'fused'] },
    { impl: 'pytorch', variant: 'mha', group: 'native', cmd: [PYTHON, peer('torch_mha.py'), '--variant', 'mha'] },
    { impl: 'pytorch', variant: 'functional', group: 'native', cmd: [PYTHON, peer('torch_mha.py'), '--variant', 'functional'] },
    { impl: 'pytorch', variant: 'explicit', group: 'native', cmd: [PYTHON, peer('torch_mha.py'), '--variant', 'explicit'] },
    ...threaded,
  ];
}
const IMPL_ORDER = ['attnlab-wasm', 'onnxruntime-web', 'tfjs-wasm', 'attnlab-native', 'onnxruntime-node', 'pytorch'];
const implRank = (impl) => {  // the threaded rows (attnlab-native-2t, onnxruntime-node-2t) after the rest
  const t = /-(\d+)t$/.exec(impl);
  return t ? IMPL_ORDER.length * Number(t[1]) + IMPL_ORDER.indexOf(impl.slice(0, t.index)) : IMPL_ORDER.indexOf(impl);
};
const isAttnlab = (impl) => impl.startsWith('attnlab-');
// wasm, native, or native-Tt for the rows on T threads.
const groupOf = (impl) => {
  const t = /-(\d+)t$/.exec(impl);
  if (t) return `native-${t[1]}t`;
  return ['attnlab-wasm', 'onnxruntime-web', 'tfjs-wasm'].includes(impl) ? 'wasm' : 'native';
};

// Runs one child; returns its JSON row (the last stdout line that is a JSON object), or an error row.
export function runChild(cmd, label) {
  const t0 = Date.now();
  const r = spawnSync(cmd[0], cmd.slice(1), { cwd: ROOT, encoding: 'utf8', timeout: CHILD_TIMEOUT_MS,
                                                maxBuffer: 64 << 20 });
  const seconds = (Date.now() - t0) / 1000;
  const lines = (r.stdout || '').split('\n').map((l) => l.trim()).filter((l) => l.startsWith('{'));
  for (const line of lines.reverse()) {
    try {
      const row = JSON.parse(line);
      if (row && typeof row === 'object') return { row, seconds };
    } catch { /* not the result line */ }
  }
  const why = r.error ? (r.error.code === 'ETIMEDOUT' ? `timed out after ${CHILD_TIMEOUT_MS / 1000} s` : r.error.message)
    : r.signal ? `killed by ${r.signal}`
      : `exit ${r.status}, no result line${lastLine(r.stderr) ? ': ' + lastLine(r.stderr) : ''}`;
  return { row: { error: `${label}: ${why}` }, seconds };
}
const lastLine = (s) => (s || '').trim().split('\n').pop()?.slice(0, 200) ?? '';

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b), h = s.length >> 1;
  return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2;
};

// Short form of the errors the table shows (onnxruntime's carry a build path and a C++ signature).
export function shortError(message) {
  const m = /ERROR_MESSAGE: (.*)$/.exec(message);
  let s = m ? m[1] : message;
  s = s.replace(/^\S+\.(h|cc|cpp):\d+ .*?\) /, '');
  return s.length > 80 ? s.slice(0, 77) + '…' : s;
}

// ------------------------------------------------------------------------------------------ measuring
function measure(o, layer) {
  const every = units(o.buildDir, o.threads);
  const all = every.filter((u) => !o.only || o.only.includes(u.impl));
  if (o.only) {
    const known = new Set([...every.map((u) => u.impl), 'gpt2']);  // gpt2: the GPT-2-small workload alone
    const unknown = o.only.filter((i) => !known.has(i));
    if (unknown.length) throw new Error(`--only: unknown impl ${unknown.join(', ')} (known: ${[...known].join(', ')})`);
  }
  const common = ['--warmup-ms', String(o.warmupMs), '--reps', String(o.reps)];
  const pooled = new Map();  // key impl|variant|n -> { impl, variant, n, samples, rss, error }
  const notBuilt = (u) => u.needs && !fs.existsSync(u.needs);
  for (const n of o.ns) {
    const here = all.filter((u) => isAttnlab(u.impl) || o.peerNs.includes(n));
    for (let round = 1; round <= o.rounds; ++round) {
      for (const u of here) {
        const key = `${u.impl}|${u.variant ?? ''}|${n}`;
        let acc = pooled.get(key);
        if (!acc) pooled.set(key, acc = { impl: u.impl, variant: u.variant, n, samples: [], rss: [], errors: [], extra: {} });
        if (notBuilt(u)) {
          acc.errors.push('not built');
          continue;
        }
        if (acc.errors.length && !acc.samples.length) continue;  // failed in an earlier round: it will again
        const label = `${u.impl}${u.variant ? ' ' + u.variant : ''}`;
        const { row, seconds } = runChild([...u.cmd, '--n', String(n), ...common], label);
        if (row.variant) acc.variant = row.variant;
        if (row.error || !Number.isFinite(row.ms)) {
          acc.errors.push(row.error ?? 'no ms in the result line');
        } else {
          acc.samples.push(...(Array.isArray(row.samples) && row.samples.length ? row.samples : [row.ms]));
          if (Number.isFinite(row.peak_rss_mb)) acc.rss.push(row.peak_rss_mb);
          for (const k of ['version', 'blas', 'threads']) if (row[k] !== undefined) acc.extra[k] = row[k];
        }
        const shown = row.error ? `error: ${shortError(row.error)}` : `${row.ms?.toFixed?.(2)} ms`;
        process.stderr.write(`bench: n=${n} round ${round}/${o.rounds} ${label}: ${shown} (${seconds.toFixed(1)} s)\n`);
      }
    }
  }
  return [...pooled.values()].map((a) => {
    const base = { impl: a.impl, variant: a.variant ?? null, n: a.n };
    if (!a.samples.length) {
      return { ...base, ms: null, gflops: null, peak_rss_mb: null, error: a.errors[0] ?? 'no result',
               not_built: a.errors[0] === 'not built' || undefined };
    }
    const ms = median(a.samples);
    return { ...base, ms: round(ms, 4), gflops: round(layer.flops[a.n] / ms / 1e6, 3),
             peak_rss_mb: a.rss.length ? Math.max(...a.rss) : null, samples: a.samples, ...a.extra };
  });
}

// attnlab_bench peak / gemm (the projection GEMM at n = 4096) of each build: {native: {peak, gemm},
// wasm: {...}, 'wasm-relaxed': {...}}, nulls when not built. A build that is not there at all is
// left out silently for wasm-relaxed (an optional second build), reported as not built otherwise.
function measurePeaks(o, layer) {
  const out = { native: {}, wasm: {}, 'wasm-relaxed': {} };
  const { native: nativeBin, wasm: wasmJs, wasmRelaxed } = benchBinaries(o.buildDir);
  for (const [key, cmd, needs] of [['native', [nativeBin], nativeBin], ['wasm', [...NODE, wasmJs], wasmJs],
                                   ['wasm-relaxed', [...NODE_RELAXED, wasmRelaxed], wasmRelaxed]]) {
    const group = key === 'wasm-relaxed' ? 'wasm' : key;
    if (o.only && !o.only.includes(`attnlab-${group}`) && !o.only.some((i) => i !== 'gpt2' && groupOf(i) === group)) continue;
    if (key === 'wasm-relaxed' && !fs.existsSync(needs)) continue;
    if (!fs.existsSync(needs)) {
      out[key] = { error: 'not built' };
      continue;
    }
    const peak = runChild([...cmd, 'peak'], `attnlab-${key} peak`).row;
    const d = String(layer.d_model);
    const gemm = runChild([...cmd, 'gemm', '--m', '4096', '--k', d, '--n', d, '--warmup-ms', '500', '--reps', '5'],
                          `attnlab-${key} gemm`).row;
    out[key] = {
      peak_gflops: Number.isFinite(peak.peak_gflops) ? peak.peak_gflops : null,
      peak_variant: peak.variant ?? null,
      kernel_choice: peak.kernel_choice ?? null,
      // From which size of call each thread count of the run is used (attn/thread_choice.h): learnt
      // by calls of the bench layer at n = 16 … 1024. Native only: the wasm builds run one thread.
      thread_choices: key === 'native'
        ? o.threads.filter((t) => t > 1).map((t) => runChild([...cmd, 'threads', '--threads', String(t)], `attnlab-${key} threads`).row.thread_choice ?? null)
        : [],
      gemm_gflops: Number.isFinite(gemm.gemm_gflops) ? gemm.gemm_gflops : null,
      gemm_shape: `4096×${d}×${d}`,
      error: peak.error ?? gemm.error ?? ((Number.isFinite(peak.peak_gflops) && Number.isFinite(gemm.gemm_gflops)) ? undefined : 'no peak_gflops / gemm_gflops in the output'),
    };
    process.stderr.write(`bench: attnlab-${key} peak ${out[key].peak_gflops ?? '?'} GFLOP/s, GEMM ${out[key].gemm_gflops ?? '?'} GFLOP/s\n`);
  }
  return out;
}

// The language model's workload (issue 27): one training step of the shipped shape natively against
// the same model and batch in PyTorch (one thread each), and a generated word with the KV cache
// against recomputing the sentence. {train: {attnlab, pytorch}, generate} rows, each its result line
// or {error}.
function measureLm(o) {
  const { native: nativeBin } = benchBinaries(o.buildDir);
  const reps = String(o.quick ? 3 : 10);
  const run = (cmd, label) => (fs.existsSync(cmd[0]) || cmd[0] === PYTHON ? runChild(cmd, label).row : { error: 'not built' });
  const out = {
    train: {
      attnlab: run([nativeBin, 'lm-train', '--reps', reps], 'attnlab-native lm-train'),
      pytorch: run([PYTHON, path.join(BENCH, 'peers', 'torch_lm_train.py'), '--steps', reps], 'pytorch lm-train'),
    },
    generate: run([nativeBin, 'lm-generate', '--reps', reps], 'attnlab-native lm-generate'),
  };
  process.stderr.write(`bench: lm ${JSON.stringify(out)}\n`);
  return out;
}

// Issue 27's targets for the language model, from measureLm's rows (pure: bench/run.test.mjs).
export function lmTargets(lm) {
  if (!lm) return [];
  const lines = [];
  const verdict = (ok, text) => lines.push(`- ${ok === null ? 'not measured' : ok ? '**met**' : '**not met**'}: ${text}`);
  const a = lm.train?.attnlab, p = lm.train?.pytorch, g = lm.generate;
  const trained = Number.isFinite(a?.tokens_per_s) && Number.isFinite(p?.tokens_per_s);
  verdict(trained ? a.tokens_per_s / p.tokens_per_s >= 1.0 : null,
          `language model: a training step natively at least as fast as PyTorch (tokens/s, one thread, batch 16 × 64) (${trained
            ? `${fmt(a.tokens_per_s, 0)} against ${fmt(p.tokens_per_s, 0)} tokens/s, ${(a.tokens_per_s / p.tokens_per_s).toFixed(2)}×` +
              (a.kernel ? `, attnlab on its ${a.kernel} kernel` : '')
            : shortError(a?.error ?? p?.error ?? 'no tokens_per_s')})`);
  const generated = Number.isFinite(g?.ms_per_word_cached) && Number.isFinite(g?.ms_per_word_recomputed);
  verdict(generated ? g.ms_per_word_recomputed / g.ms_per_word_cached >= 5 : null,
          `language model: a generated word ≥ 5× faster with the KV cache than recomputing the sentence (${generated
            ? `${g.ms_per_word_cached.toFixed(3)} against ${g.ms_per_word_recomputed.toFixed(3)} ms per word, ` +
              `${(g.ms_per_word_recomputed / g.ms_per_word_cached).toFixed(2)}×` : shortError(g?.error ?? 'no ms_per_word')})`);
  return lines;
}

// -------------------------------------------------------------------------------------- GPT-2-small
// Issue 28's second workload: a GPT-2-small-shaped model with random weights (bench/peers/gpt2.py
// export writes it to bench/.cache/gpt2-small, ~1 GB with its ONNX graph: never committed), a prefill
// of 128 tokens and 32 greedy decode steps through the KV cache, one thread, in every runner (the loop
// and the result line: bench/peers/gpt2_common.mjs). Each runner is one child process.
export const GPT2_DIR = path.join(BENCH, '.cache', 'gpt2-small');
export function gpt2Units(buildDir, o = {}) {
  const { native: nativeBin } = benchBinaries(buildDir);
  const wasmBin = path.resolve(ROOT, buildDir, 'wasm/bench/attnlab_bench_gpt2.js');
  const relaxedBin = path.resolve(ROOT, buildDir, 'wasm/bench/relaxed/attnlab_bench_gpt2.js');
  const reps = ['--reps', String(o.quick ? 1 : 3), '--warmup', '1'];
  const peer = (f) => path.join(BENCH, 'peers', f);
  return [
    { impl: 'attnlab-wasm', cmd: [...NODE, wasmBin, 'gpt2', ...reps], needs: wasmBin },
    // The relaxed-SIMD build (f32x4.relaxed_madd), what Chromium loads: an optional second build, left
    // out when it is not there (as the layer workload's wasm-relaxed rows are).
    { impl: 'attnlab-wasm', cmd: [...NODE_RELAXED, relaxedBin, 'gpt2', ...reps], needs: relaxedBin, optional: true },
    { impl: 'onnxruntime-web', cmd: [...NODE, peer('gpt2_ort.mjs'), '--pkg', 'onnxruntime-web', ...reps] },
    { impl: 'attnlab-native', cmd: [nativeBin, 'gpt2', ...reps], needs: nativeBin },
    // The engine's portable products too (LmConfig::kernel = eigen): inference's other kernel.
    { impl: 'attnlab-native', cmd: [nativeBin, 'gpt2', '--kernel', 'eigen', ...reps], needs: nativeBin },
    { impl: 'onnxruntime-node', cmd: [...NODE, peer('gpt2_ort.mjs'), '--pkg', 'onnxruntime-node', ...reps] },
    { impl: 'pytorch', cmd: [PYTHON, peer('gpt2.py'), 'run', ...reps] },
  ];
}

function measureGpt2(o) {
  if (!fs.existsSync(path.join(GPT2_DIR, 'model.safetensors'))) {
    return { error: `${path.relative(ROOT, GPT2_DIR)}/model.safetensors missing: npm run bench writes it ` +
                    '(/usr/bin/python3 bench/peers/gpt2.py export)' };
  }
  const rows = [];
  for (const u of gpt2Units(o.buildDir, o)) {
    if (u.optional && !fs.existsSync(u.needs)) continue;
    const label = `gpt2 ${u.impl}`;
    const { row, seconds } = u.needs && !fs.existsSync(u.needs) ? { row: { error: 'not built' }, seconds: 0 }
      : runChild([...u.cmd, '--dir', GPT2_DIR], label);
    rows.push({ impl: u.impl, ...row });
    process.stderr.write(`bench: ${label} ${row.variant ?? ''}: ${row.error ? `error: ${shortError(row.error)}`
      : `prefill ${row.prefill_ms} ms, decode ${row.decode_ms_per_token} ms/token`} (${seconds.toFixed(1)} s)\n`);
  }
  return { rows: gpt2Compare(rows, readLogits) };
}

const readLogits = (file) => {
  try {
    const b = fs.readFileSync(file);
    return new Float32Array(b.buffer, b.byteOffset, b.length >> 2);
  } catch { return null; }
};

// Each row against attnlab-native's first (the reference): the same greedy tokens, and max |Δ logit|
// on the prefill's last row (read through `read(file)`: Float32Array or null). Pure but for `read`.
export function gpt2Compare(rows, read) {
  const ref = rows.find((r) => r.impl === 'attnlab-native' && !r.error);
  const refLogits = ref ? read(ref.logits_file) : null;
  return rows.map((r) => {
    if (r.error || !ref || r === ref) return r;
    const same_tokens = JSON.stringify(r.tokens) === JSON.stringify(ref.tokens);
    const l = read(r.logits_file);
    let max_abs_diff = null;
    if (l && refLogits && l.length === refLogits.length) {
      max_abs_diff = 0;
      for (let i = 0; i < l.length; ++i) max_abs_diff = Math.max(max_abs_diff, Math.abs(l[i] - refLogits[i]));
    }
    return { ...r, same_tokens, max_abs_diff };
  });
}

// The best measured row of impl for one phase ('prefill_ms' or 'decode_ms_per_token').
const gpt2Best = (rows, impl, key) => rows.filter((r) => r.impl === impl && Number.isFinite(r[key]))
  .sort((a, b) => a[key] - b[key])[0];

export function gpt2Table(g) {
  if (!g) return [];
  if (g.error) return [`GPT-2-small: not measured (${g.error})`];
  const out = ['| impl (variant) | prefill 128 tokens ms | prefill tokens/s | decode ms/token | attnlab ×faster (prefill, decode) | ' +
               'same 33 greedy tokens | max abs Δ logit (last prefill row) | peak RSS MB |',
               '| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: |'];
  for (const r of g.rows) {
    const name = `${r.impl}${r.variant ? ` (${r.variant})` : ''}`;
    if (r.error) {
      out.push(`| ${name} | ${r.error === 'not built' ? 'not built' : 'error: ' + shortError(r.error)} | | | | | | |`);
      continue;
    }
    const a = `attnlab-${groupOf(r.impl)}`;
    const ratio = (key) => {
      const best = gpt2Best(g.rows, a, key);
      return isAttnlab(r.impl) || !best ? null : r[key] / best[key];
    };
    const ratios = [ratio('prefill_ms'), ratio('decode_ms_per_token')];
    out.push(`| ${name} | ${fmtMs(r.prefill_ms)} | ${fmt(128e3 / r.prefill_ms, 0)} | ${fmtMs(r.decode_ms_per_token)} | ` +
             `${ratios.every((x) => x == null) ? '' : ratios.map((x) => (x == null ? '–' : x.toFixed(2) + '×')).join(', ')} | ` +
             `${r.same_tokens == null ? (r.impl === 'attnlab-native' && r === g.rows.find((x) => x.impl === r.impl && !x.error) ? 'reference' : '–')
               : r.same_tokens ? 'yes' : '**no**'} | ${r.max_abs_diff == null ? '–' : r.max_abs_diff.toExponential(1)} | ${fmt(r.peak_rss_mb, 0)} |`);
  }
  return out;
}

// Issue 28's targets, from gpt2's rows measured in the same run (pure: bench/run.test.mjs): wasm
// ≥ 1.5× onnxruntime-web and native ≥ 1.0× onnxruntime-node, on prefill and on decode; attnlab's
// best variant per phase; every runner's greedy tokens the same as attnlab-native's.
export function gpt2Targets(g) {
  if (!g) return [];
  const lines = [];
  const verdict = (ok, text) => lines.push(`- ${ok === null ? 'not measured' : ok ? '**met**' : '**not met**'}: GPT-2-small: ${text}`);
  for (const [attnlab, peer, factor, what] of [['attnlab-wasm', 'onnxruntime-web', 1.5, '≥ 1.5× faster than'],
                                               ['attnlab-native', 'onnxruntime-node', 1.0, 'at least as fast as']]) {
    for (const [key, phase, unit] of [['prefill_ms', 'prefill of 128 tokens', 'ms'], ['decode_ms_per_token', 'decode', 'ms/token']]) {
      const a = g.rows ? gpt2Best(g.rows, attnlab, key) : null, p = g.rows ? gpt2Best(g.rows, peer, key) : null;
      const ratio = a && p ? p[key] / a[key] : null;
      const why = g.error ?? (!a ? `${attnlab}: ${shortError(g.rows.find((r) => r.impl === attnlab)?.error ?? 'not run')}`
        : !p ? `${peer}: ${shortError(g.rows.find((r) => r.impl === peer)?.error ?? 'not run')}` : null);
      verdict(ratio == null ? null : ratio >= factor, `${attnlab} ${what} ${peer}, ${phase} (` + (why ?? `${fmtMs(a[key])} against ` +
        `${fmtMs(p[key])} ${unit}, ${ratio.toFixed(2)}×${a.variant ? `, attnlab ${a.variant}` : ''}` +
        (ratio < factor ? `; short by ${fmt(100 * (factor / ratio - 1))}%` : '')) + ')');
    }
  }
  if (g.rows) {
    const compared = g.rows.filter((r) => r.same_tokens != null);
    const differ = compared.filter((r) => !r.same_tokens).map((r) => `${r.impl}${r.variant ? ` (${r.variant})` : ''}`);
    verdict(compared.length ? !differ.length : null, `every runner's 33 greedy tokens equal attnlab-native's (${compared.length
      ? differ.length ? `differ: ${differ.join(', ')}` : `${compared.length} runners compared` : 'no runner to compare'})`);
  }
  return lines;
}

function pageSize(buildDir) {
  const site = path.resolve(ROOT, buildDir, 'wasm/site');
  const files = ['attnlab.wasm', 'attnlab.mjs'].map((f) => path.join(site, f));
  if (!files.every((f) => fs.existsSync(f))) return null;
  const parts = files.map((f) => ({ file: path.relative(ROOT, f),
                                    gzip_bytes: zlib.gzipSync(fs.readFileSync(f), { level: 9 }).length }));
  return { parts, gzip_bytes: parts.reduce((s, p) => s + p.gzip_bytes, 0) };
}

// ---------------------------------------------------------------------------------------------- report
const round = (x, digits) => (x == null ? null : Math.round(x * 10 ** digits) / 10 ** digits);
const fmtMs = (ms) => (ms == null ? '' : ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));
const fmt = (x, d = 1) => (x == null || !Number.isFinite(x) ? '–' : x.toFixed(d));

// The best variant per (impl, n); when every variant failed, the first error.
export function bestRows(rows) {
  const by = new Map();
  for (const r of rows) {
    const key = `${r.impl}|${r.n}`;
    const cur = by.get(key);
    if (!cur || (r.ms != null && (cur.ms == null || r.ms < cur.ms))) by.set(key, r);
  }
  return [...by.values()].map((best) => {
    const failed = rows.filter((r) => r.impl === best.impl && r.n === best.n && r.ms == null && r !== best);
    return failed.length && best.ms != null ? { ...best, failedVariants: failed } : best;
  }).sort((a, b) => a.n - b.n || implRank(a.impl) - implRank(b.impl));
}

// The measured peak a row is a share of: attnlab-wasm's relaxed build against its own (fused) peak,
// every other row against its group's.
const peakOf = (peaks, r) =>
  (r.impl === 'attnlab-wasm' && r.variant === WASM_RELAXED ? peaks['wasm-relaxed'] : peaks[groupOf(r.impl)])?.peak_gflops;

const attnlabFor = (best, r) => best.find((x) => x.impl === `attnlab-${groupOf(r.impl)}` && x.n === r.n);

function ratioTo(best, r) {  // peer ms / attnlab ms in the same group at the same n
  if (isAttnlab(r.impl) || r.ms == null) return null;
  const a = attnlabFor(best, r);
  return a?.ms != null ? r.ms / a.ms : null;
}

// The q-quantile of xs (linear between the sorted samples).
function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b), at = q * (s.length - 1), lo = Math.floor(at);
  return lo + 1 < s.length ? s[lo] + (at - lo) * (s[lo + 1] - s[lo]) : s[lo];
}

// How much a ratio moves with the machine (issue 30: "say how much its own numbers move"): from the
// pooled samples of the peer's row and attnlab's, peer Q1 / attnlab Q3 to peer Q3 / attnlab Q1 — the
// ratio when both sides land in their middle halves' opposite ends. A difference inside it is the
// machine's noise, not the code's. null with fewer than 4 samples on either side.
export function ratioSpread(best, r) {
  const a = isAttnlab(r.impl) ? null : attnlabFor(best, r);
  if (!a || !(r.samples?.length >= 4) || !(a.samples?.length >= 4)) return null;
  return [quantile(r.samples, 0.25) / quantile(a.samples, 0.75), quantile(r.samples, 0.75) / quantile(a.samples, 0.25)];
}
const fmtRatio = (ratio, spread) =>
  `${ratio.toFixed(2)}×${spread ? ` (${spread[0].toFixed(2)}–${spread[1].toFixed(2)})` : ''}`;

export function table(rows, peaks) {
  const best = bestRows(rows);
  const out = ['| n | impl (variant) | ms | GFLOP/s | attnlab ×faster | % of peak | peak RSS MB |',
               '| ---: | --- | ---: | ---: | ---: | ---: | ---: |'];
  for (const r of best) {
    const name = `${r.impl}${r.variant ? ` (${r.variant})` : ''}` +
      (r.failedVariants ? ` — ${r.failedVariants.map((f) => `${f.variant}: ${shortError(f.error)}`).join('; ')}` : '');
    if (r.ms == null) {
      out.push(`| ${r.n} | ${name} | ${r.not_built ? 'not built' : 'error: ' + shortError(r.error)} | | | | |`);
      continue;
    }
    const peak = peakOf(peaks, r);
    const ratio = ratioTo(best, r);
    out.push(`| ${r.n} | ${name} | ${fmtMs(r.ms)} | ${fmt(r.gflops)} | ${ratio == null ? '' : fmtRatio(ratio, ratioSpread(best, r))} | ` +
             `${peak ? fmt(100 * r.gflops / peak) + '%' : '–'} | ${fmt(r.peak_rss_mb, 0)} |`);
  }
  return out.join('\n');
}

export function variantsTable(rows, peaks = {}) {
  const withVariants = rows.filter((r) => rows.some((s) => s.impl === r.impl && s.n === r.n && s !== r));
  if (!withVariants.length) return '';
  const out = ['| n | impl | variant | ms | GFLOP/s | % of peak | peak RSS MB |',
               '| ---: | --- | --- | ---: | ---: | ---: | ---: |'];
  for (const r of withVariants.sort((a, b) => a.n - b.n || implRank(a.impl) - implRank(b.impl))) {
    const peak = peakOf(peaks, r);
    out.push(`| ${r.n} | ${r.impl} | ${r.variant} | ${r.ms == null ? 'error: ' + shortError(r.error) : fmtMs(r.ms)} | ` +
             `${fmt(r.gflops)} | ${peak && r.gflops != null ? fmt(100 * r.gflops / peak) + '%' : '–'} | ${fmt(r.peak_rss_mb, 0)} |`);
  }
  return out.join('\n');
}

export function gemmLines(peaks) {
  return ['native', 'wasm', 'wasm-relaxed'].filter((g) => Object.keys(peaks[g] ?? {}).length).map((g) => {
    const p = peaks[g];
    if (p.peak_gflops == null || p.gemm_gflops == null) return `- GEMM${p.gemm_shape ? ' ' + p.gemm_shape : ''}, attnlab-${g}: ${p.error ?? 'not measured'}`;
    return `- GEMM ${p.gemm_shape}, attnlab-${g}: ${fmt(p.gemm_gflops)} GFLOP/s = ${fmt(100 * p.gemm_gflops / p.peak_gflops)}% ` +
           `of the measured SIMD mul+add peak (${fmt(p.peak_gflops)} GFLOP/s, ${p.peak_variant ?? '?'}, one core)` +
           (p.kernel_choice ? `\n- kernel choice, attnlab-${g}: ${p.kernel_choice}` : '') +
           (p.thread_choices ?? []).filter(Boolean).map((c) => `\n- thread choice, attnlab-${g}: ${c}`).join('');
  });
}

export function targets(rows, peaks, page, o) {
  const best = bestRows(rows);
  const lines = [];
  const verdict = (ok, text) => lines.push(`- ${ok === null ? 'not measured' : ok ? '**met**' : '**not met**'}: ${text}`);
  // Issue 16's targets: each ratio from rows measured side by side in this run, at every n from minN.
  const ratioTarget = (attnlab, peer, factor, what, minN) => {
    const ns = o.peerNs.filter((n) => n >= minN);
    const pairs = ns.map((n) => {
      const p = best.find((r) => r.impl === peer && r.n === n);
      return { n, ratio: p ? ratioTo(best, p) : null, spread: p ? ratioSpread(best, p) : null };
    });
    const known = pairs.filter((p) => p.ratio != null);
    const ok = !ns.length || known.length < ns.length ? null : known.every((p) => p.ratio >= factor);
    const detail = pairs.map((p) => `n=${p.n}: ${p.ratio == null ? '–' : fmtRatio(p.ratio, p.spread)}`).join(', ');
    // By how much a miss misses: the speed-up attnlab still needs at each n that falls short.
    const short = known.filter((p) => p.ratio < factor).map((p) => `${fmt(100 * (factor / p.ratio - 1))}% at n=${p.n}`);
    verdict(ok, `${attnlab} ${what} ${peer} at every n ≥ ${minN} (${detail || `no n ≥ ${minN} measured`})` +
                (short.length ? `; short by ${short.join(', ')}` : ''));
  };
  const smallest = Math.min(...o.peerNs);
  ratioTarget('attnlab-wasm', 'onnxruntime-web', 1.5, '≥ 1.5× faster than', smallest);
  ratioTarget('attnlab-wasm', 'tfjs-wasm', 1.5, '≥ 1.5× faster than', 256);
  ratioTarget('attnlab-native', 'onnxruntime-node', 1.1, '≥ 1.1× faster than', smallest);  // issue 30 (was 1.0)
  ratioTarget('attnlab-native', 'pytorch', 2.0, '≥ 2× faster than', 256);
  for (const t of (o.threads ?? []).filter((t) => t > 1)) {
    ratioTarget(`attnlab-native-${t}t`, `onnxruntime-node-${t}t`, 1.0, `(${t} threads) at least as fast as`, 512);
  }
  // The smallest call is mostly the projections: its share of the core's measured peak shows what is
  // left of the fixed cost per call.
  for (const g of ['native', 'wasm']) {
    const r = best.find((x) => x.impl === `attnlab-${g}` && x.n === 16);
    const peak = r ? peakOf(peaks, r) : peaks[g]?.peak_gflops;  // the best build's own peak
    if (!o.ns.includes(16) || (o.only && !o.only.includes(`attnlab-${g}`))) continue;
    const share = r?.gflops != null && peak ? r.gflops / peak : null;
    verdict(share == null ? null : share >= 0.6, `attnlab-${g} at n = 16 ≥ 60% of the measured SIMD peak (${share == null ? '–' :
      `${fmtMs(r.ms)} ms = ${fmt(r.gflops)} GFLOP/s, ${fmt(100 * share)}% of ${fmt(peak)}`})`);
  }
  for (const g of ['native', 'wasm', 'wasm-relaxed']) {
    const p = peaks[g];
    if (!p || !Object.keys(p).length) continue;
    const share = p.peak_gflops && p.gemm_gflops ? p.gemm_gflops / p.peak_gflops : null;
    verdict(share == null ? null : share >= 0.6,
            `attnlab-${g} GEMM ≥ 60% of the measured SIMD peak (${share == null ? p.error ?? '–' : fmt(100 * share) + '%'})`);
  }
  for (const impl of ['attnlab-wasm', 'attnlab-native']) {
    if (!o.ns.includes(16384) || (o.only && !o.only.includes(impl))) continue;
    const r = best.find((x) => x.impl === impl && x.n === 16384);
    verdict(r?.ms == null ? (r?.not_built ? null : false) : true,
            `${impl} completes n = 16384 (${r?.ms != null ? `${fmtMs(r.ms)} ms, peak RSS ${fmt(r.peak_rss_mb, 0)} MB` : r?.not_built ? 'not built' : shortError(r?.error ?? 'not run')})`);
  }
  lines.push(...pageTargets(page));
  lines.push(...lmTargets(o.lm));
  lines.push(...gpt2Targets(o.gpt2));
  verdict(page == null ? null : page.gzip_bytes <= 400 * 1024,
          `page wasm + js ≤ 400 KB gzipped (${page == null ? 'build/wasm/site/attnlab.wasm + attnlab.mjs not built' :
            `${fmt(page.gzip_bytes / 1024)} KB: ${page.parts.map((p) => `${path.basename(p.file)} ${fmt(p.gzip_bytes / 1024)} KB`).join(' + ')}`})`);
  return lines.join('\n');
}

// The page's speed and frame-time targets (bench/page.mjs measures them; the browser tests assert
// none). A part that is undefined was not asked for (--only, or the site is not built: no line);
// null: the site is not built; { error } or { skipped }: not measured, saying why.
export function pageTargets(page) {
  const T = PAGE_TARGETS, lines = [];
  const verdict = (ok, text) => lines.push(`- ${ok === null ? 'not measured' : ok ? '**met**' : '**not met**'}: page: ${text}`);
  const part = (name, check, what, shown) => {
    const p = page?.[name];
    if (p === undefined) return;
    const why = p === null ? 'site not built' : p.error ? shortError(p.error) : p.skipped ? `not run with ${p.skipped}` : null;
    let ok = null;
    if (!why) {
      ok = check(p);
      if (typeof ok !== 'boolean') ok = null;  // a number missing from the page
    }
    verdict(ok, `${what} (${why ?? (ok === null ? 'not shown' : shown(p))})`);
  };
  const ms = (x, d = 1) => (Number.isFinite(x) ? `${x.toFixed(d)} ms` : '–');
  const isNum = (...xs) => xs.every(Number.isFinite);
  const bool = (ok, ...xs) => (isNum(...xs) ? ok : null);
  part('heads_recompute', (p) => bool(p.ms <= T.view5Ms, p.ms),
       `the speed view's recompute of view 5 (32 words, 8 heads) ≤ ${T.view5Ms} ms`,
       (p) => `${p.ms.toFixed(3)} ms, median of ${p.batches} batches, headless Chromium`);
  // The test allowed the timer's noise on a shared machine: 4× and 0.5 ms.
  part('heads_recompute', (p) => bool(p.ms < 4 * p.js_ms + 0.5, p.ms, p.js_ms),
       'view 5\'s recompute, engine only, no slower than the same layer through forward() from JavaScript (< 4× + 0.5 ms)',
       (p) => `${p.ms.toFixed(3)} ms against ${p.js_ms.toFixed(3)} ms from JavaScript, ${(p.ms / p.js_ms).toFixed(2)}×`);
  part('saturation', (p) => bool(p.ms < T.saturationMs, p.ms),
       `view 2's saturation sweep (d_k = 2 … 1024) < ${T.saturationMs} ms`, (p) => ms(p.ms));
  part('learn', (p) => bool(p.steps_per_second > T.learnStepsPerSecond, p.steps_per_second),
       `view 11 trains > ${T.learnStepsPerSecond} steps/s (previous letter, 1 layer, 2 heads)`,
       (p) => `${p.steps_per_second.toFixed(0)} steps/s over ${p.steps} steps`);
  part('learn', (p) => bool(p.median <= T.learnFrameMedianMs && p.p90 <= T.learnFrameP90Ms, p.median, p.p90),
       `view 11's frames while training: median ≤ ${T.learnFrameMedianMs} ms, 90th percentile ≤ ${T.learnFrameP90Ms} ms`,
       (p) => `median ${ms(p.median)}, p90 ${ms(p.p90)}, max ${ms(p.max)} over ${p.frames} frames`);
  part('learn', (p) => bool(p.in_worker && p.rate_ratio >= T.learnWorkerRateRatio, p.rate_ratio),
       `view 11 trains in a Web Worker at ≥ ${T.learnWorkerRateRatio}× its steps per second on the page's thread (the page's clock)`,
       (p) => `${p.wall_steps_per_second.toFixed(0)} against ${p.main_thread.wall_steps_per_second.toFixed(0)} steps/s: ` +
         `${p.rate_ratio.toFixed(2)}×; the page's frames meanwhile median ${ms(p.median)}, p90 ${ms(p.p90)} ` +
         `(on the page's thread: ${ms(p.main_thread.median)}, ${ms(p.main_thread.p90)})`);
  part('data_size', (p) => bool(p.seconds <= T.dataSizeSeconds, p.seconds),
       `view 8's default experiment (4 sizes × 3 seeds × 2 models) done in ≤ ${T.dataSizeSeconds} s`,
       (p) => `${p.seconds.toFixed(1)} s, crossover at N = ${p.crossover}`);
  part('data_size', (p) => bool(p.p90 <= T.dataSizeFrameP90Ms, p.p90),
       `view 8's frames while it runs: 90th percentile ≤ ${T.dataSizeFrameP90Ms} ms`,
       (p) => `median ${ms(p.median)}, p90 ${ms(p.p90)}, max ${ms(p.max)} over ${p.frames} frames`);
  const ratioTarget = (p) => (p.cores >= 4 ? T.dataSizeWorkerRatio4Cores : T.dataSizeWorkerRatio2Cores);
  part('data_size', (p) => bool(p.ratio <= ratioTarget(p) && p.same_points === true, p.ratio),
       `view 8's experiment with its runs in Web Workers in ≤ ${T.dataSizeWorkerRatio2Cores}× the time on the page's thread ` +
       `(2–3 cores; ≤ ${T.dataSizeWorkerRatio4Cores}× with 4 or more), the same points`,
       (p) => `${p.seconds.toFixed(1)} s against ${p.main_thread_seconds.toFixed(1)} s: ${p.ratio.toFixed(2)}× on ${p.cores} cores` +
         `, ${p.same_points ? 'the same points' : 'different points'}`);
  part('data_size', (p) => bool(p.median <= T.jobFrameMedianMs && p.p90 <= T.jobFrameP90Ms, p.median, p.p90),
       `the page's frames while the runs are in Web Workers: median ≤ ${T.jobFrameMedianMs} ms, 90th percentile ≤ ${T.jobFrameP90Ms} ms`,
       (p) => `median ${ms(p.median)}, p90 ${ms(p.p90)} over ${p.frames} frames (on the page's thread: median ` +
         `${ms(p.main_thread_frames?.median)}, p90 ${ms(p.main_thread_frames?.p90)})`);
  part('embed', (p) => bool(p.first_frame_ms < T.embedFirstFrameMs, p.first_frame_ms),
       `an embed's first frame < ${T.embedFirstFrameMs} ms after navigation`, (p) => ms(p.first_frame_ms, 0));
  part('embed', (p) => (p.extra_start_ms?.length && isNum(...p.extra_start_ms) ? Math.max(...p.extra_start_ms) < T.embedExtraStartMs : null),
       `each further <attn-lab> on a page draws its first frame < ${T.embedExtraStartMs} ms after mounting`,
       (p) => p.extra_start_ms.map((x) => ms(x, 0)).join(', '));
  part('rnn', (p) => bool(p.attention_us > p.rnn_us, p.attention_us, p.rnn_us),
       'view 9 at n = 4096: attention\'s measured time per token above the RNN\'s (4·n·d against 4·d² operations)',
       (p) => `${p.attention_us.toFixed(2)} µs against ${p.rnn_us.toFixed(2)} µs`);
  part('rnn', (p) => bool(p.median <= T.jobFrameMedianMs && p.p90 <= T.jobFrameP90Ms, p.median, p.p90),
       `the page's frames while view 9's timing sweep runs in a Web Worker: median ≤ ${T.jobFrameMedianMs} ms, 90th percentile ≤ ${T.jobFrameP90Ms} ms`,
       (p) => `median ${ms(p.median)}, p90 ${ms(p.p90)} over ${p.frames} frames, ${p.seconds.toFixed(1)} s (on the page's thread, ` +
         `one batch a frame: median ${ms(p.main_thread?.median)}, p90 ${ms(p.main_thread?.p90)}, ${p.main_thread?.seconds?.toFixed(1)} s)`);
  part('main_thread_gap', (p) => bool(p.max_gap_ms <= T.mainThreadGapMs, p.max_gap_ms),
       `the page's thread never goes ${T.mainThreadGapMs} ms without a frame while view 14 times n = 8192 and sweeps every kernel`,
       (p) => `longest gap ${ms(p.max_gap_ms, 0)} over ${p.frames} frames, n = 8192 timed ${p.in_worker ? 'in a Web Worker' : 'on the page\'s thread'}`);
  return lines;
}

function gpt2Intro() {
  return 'Issue 28\'s second workload: a GPT-2-small-shaped model with random weights (vocab 50257, 1024 positions, ' +
    '12 layers, d_model 768, 12 heads, 124 M parameters, F32; `bench/peers/gpt2.py export`, seed fixed), a prefill of ' +
    '128 tokens (logits at every position), then 32 greedy decode steps through the KV cache, one thread everywhere. ' +
    'attnlab: the checkpoint read by ReadLmCheckpoint, its weights packed once for the variant\'s GEMM by ' +
    'attn::train::PrepareLm (not timed, as onnxruntime\'s session creation is not), then attn::train::LmAdvance ' +
    '(prefill, then one token a step) on the variant LmConfig::kernel (eigen: Eigen\'s products on the weights in ' +
    'place); attnlab-wasm is the same C++ built ' +
    'with Emscripten (attnlab_bench_gpt2.js) under node: SIMD128, and the relaxed-SIMD build Chromium loads ' +
    '(wasm_relaxed_simd, node --experimental-wasm-relaxed-simd). onnxruntime-node / -web: torch.onnx.export of the ' +
    'same model with past key/values (one graph, dynamic n and past length; the prefill feeds empty pasts), ' +
    'one thread, optimisation level "all". pytorch: the same module eagerly, inference mode, one thread. Each runner ' +
    'is one process: prefill ms and decode ms/token are medians of its repeats (a decode sample is 32 steps / 32), ' +
    'after a warm-up repeat. "same 33 greedy tokens" and "max abs Δ logit" are against attnlab-native\'s first row.';
}

function environment() {
  const cpuinfo = fs.readFileSync('/proc/cpuinfo', 'utf8');
  const cpu = (cpuinfo.match(/^model name\s*:\s*(.*)$/m) || [])[1] ?? os.cpus()[0]?.model;
  const flags = new Set(((cpuinfo.match(/^flags\s*:\s*(.*)$/m) || [])[1] ?? '').split(/\s+/));
  const simd = [['avx512f', 'AVX-512F'], ['avx2', 'AVX2'], ['fma', 'FMA']].filter(([f]) => flags.has(f)).map(([, s]) => s);
  const emcc = spawnSync('emcc', ['--version'], { encoding: 'utf8' });
  const pkgVersion = (name) => {
    try {
      return JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
    } catch { return 'not installed'; }
  };
  return {
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    cpu: `${cpu} (${os.cpus().length} logical cores${simd.length ? ', ' + simd.join(', ') : ''})`,
    load: os.loadavg()[0],
    node: process.version,
    emscripten: emcc.status === 0 ? (emcc.stdout.match(/\d+\.\d+\.\d+/) || ['?'])[0] : 'not found',
    packages: Object.fromEntries(['onnxruntime-web', 'onnxruntime-node', '@tensorflow/tfjs-core',
                                  '@tensorflow/tfjs-backend-wasm'].map((p) => [p, pkgVersion(p)])),
  };
}

function report(rows, peaks, page, o, env, seconds, layer) {
  const torch = rows.find((r) => r.impl === 'pytorch' && r.version);
  const args = process.argv.slice(2).join(' ');
  return [
    `# attnlab benchmark`,
    '',
    `One full multi-head attention forward: fp32, batch 1, d_model ${layer.d_model}, ${layer.heads} heads, the four ` +
    `projections Wq, Wk, Wv, Wo${layer.bias ? ' with biases' : ''}, one thread` +
    (o.threads.some((t) => t > 1) ? ` (rows named …-Tt: T threads, attnlab's AttentionConfig::threads against ` +
      `onnxruntime-node's intra_op_num_threads, compared with each other)` : '') + `. attnlab times a layer prepared once ` +
    `(attn::PreparedAttention: parameters checked, seeded and packed for the kernel outside the timing); peers also ` +
    `prepare once (onnxruntime session, PyTorch module). ms is the median of ${o.rounds * o.reps} runs (${o.rounds} round${o.rounds > 1 ? 's' : ''} × ${o.reps}, ` +
    `each in a fresh process after ${o.warmupMs} ms of warm-up); peak RSS is the process's VmHWM. Each peer is shown at ` +
    `its best variant (all variants below). "attnlab ×faster" is peer ms / attnlab ms (attnlab-wasm for the wasm ` +
    `peers, attnlab-native for the native ones), with in brackets how much it moves on this machine: peer Q1 / ` +
    `attnlab Q3 to peer Q3 / attnlab Q1 of the pooled samples (a difference inside it is noise); "% of peak" is against attnlab_bench's measured one-core SIMD ` +
    `mul+add peak (wasm rows against the wasm peak, native rows against the native one; attnlab-wasm's variant ` +
    `wasm_relaxed_simd, the relaxed-SIMD build run by node --experimental-wasm-relaxed-simd, against its own fused ` +
    `peak; wasm peers are compared with attnlab-wasm's faster variant). FLOPs = ${layer.flops_formula}.`,
    '',
    `- date: ${env.date}`,
    `- CPU: ${env.cpu}`,
    `- node ${env.node}, emscripten ${env.emscripten}`,
    `- packages: ${Object.entries(env.packages).map(([k, v]) => `${k} ${v}`).join(', ')}`,
    `- PyTorch: ${torch ? `${torch.version}, ${torch.threads} thread, BLAS ${(torch.blas || []).join(', ')}` : 'not measured'}`,
    `- command: \`node bench/run.mjs${args ? ' ' + args : ''}\` (${Math.round(seconds)} s); load average (1 min) ` +
    `${env.load.toFixed(1)} at the start, ${os.loadavg()[0].toFixed(1)} at the end`,
    '',
    table(rows, peaks),
    '',
    ...gemmLines(peaks),
    '',
    ...(o.gpt2 ? ['## GPT-2-small', '', gpt2Intro(), '', ...gpt2Table(o.gpt2), ''] : []),
    '## Targets',
    '',
    targets(rows, peaks, page, o),
    '',
    'Why a target is missed, with the profiles that show where the time goes (perf on the native and ' +
    'the wasm builds): docs/engine.md, section Kernels, "Fused attention" and "Relaxed SIMD".',
    '',
    '## Every variant',
    '',
    variantsTable(rows, peaks) || '(one variant per implementation)',
    '',
    '## The peers',
    '',
    '- onnxruntime-web: wasm backend (SIMD build), numThreads 1, under node; onnxruntime-node: CPU provider, ' +
    '1 intra-op and 1 inter-op thread. Both at graph optimisation level "all", on two models written by ' +
    '`bench/peers/export_onnx.py` (Debian\'s python3-torch): `explicit` (torch.onnx.export of the projections + ' +
    'per-head softmax(QKᵀ/√d)V + Wo) and `fused` (the projections around `com.microsoft.MultiHeadAttention`). ' +
    'Where the fused op fails (ort-web at n = 4096: "Integer overflow") the explicit graph is the result.',
    '- tfjs-wasm: @tensorflow/tfjs-backend-wasm SIMD, one thread (the non-threaded binary under node): fused ' +
    '2-D matMul + bias projections, 1/√d folded into Q, one 2-D matMul per head on a once-transposed K.',
    '- pytorch: torch.set_num_threads(1), inference mode, OpenBLAS serial; variants `mha` ' +
    '(nn.MultiheadAttention fast path), `functional` (F.multi_head_attention_forward), `explicit` (F.linear, then ' +
    'per head and per block of 512 query rows mm + softmax + mm).',
    '',
  ].join('\n');
}

// ------------------------------------------------------------------------------------------------ main
async function main() {
  const o = parseOptions(process.argv.slice(2));
  const layer = benchLayer(o.buildDir, o.ns);
  const t0 = Date.now();
  const env = environment();
  const peaks = measurePeaks(o, layer);
  const rows = measure(o, layer);
  if (!o.only) o.lm = measureLm(o);
  if (!o.only || o.only.includes('gpt2')) o.gpt2 = measureGpt2(o);
  const page = pageSize(o.buildDir);
  if (page && !o.only) {
    Object.assign(page, await measurePage(path.resolve(ROOT, o.buildDir, 'wasm/site'),
                                          { quick: o.quick, log: (l) => process.stderr.write(`${l}\n`) }));
  }
  const seconds = (Date.now() - t0) / 1000;

  const jsonPath = path.resolve(ROOT, o.json);
  fs.mkdirSync(path.dirname(jsonPath), { recursive: true });
  const jsonRows = rows.map(({ samples, not_built, ...r }) => ({ ...r, samples }));
  // The GPT-2-small workload's rows after the layer's, each with workload "gpt2-small".
  for (const r of o.gpt2?.rows ?? []) jsonRows.push({ workload: 'gpt2-small', ...r });
  fs.writeFileSync(jsonPath, `[\n${jsonRows.map((r) => JSON.stringify(r)).join(',\n')}\n]\n`);

  console.log(table(rows, peaks));
  console.log('');
  for (const l of gemmLines(peaks)) console.log(l);
  if (o.gpt2) console.log(['', 'GPT-2-small (prefill 128 tokens, 32 decode steps, one thread):', ...gpt2Table(o.gpt2)].join('\n'));
  console.log('\nTargets:');
  console.log(targets(rows, peaks, page, o));
  console.log(`\nbench: ${jsonRows.length} rows in ${path.relative(process.cwd(), jsonPath)} (${Math.round(seconds)} s)`);
  if (o.markdown) {
    const md = path.resolve(ROOT, o.markdown);
    fs.writeFileSync(md, report(rows, peaks, page, o, env, seconds, layer));
    console.log(`bench: report in ${path.relative(process.cwd(), md)}`);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e) => {
    console.error(`bench: ${e.message}`);
    process.exit(2);
  });
}
