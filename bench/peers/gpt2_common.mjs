// The GPT-2-small workload's loop, shared by its JavaScript runners (onnxruntime-node, onnxruntime-web
// and attnlab-wasm; bench/peers/gpt2.py has the same in Python, bench/attnlab_bench.cpp's `gpt2` in
// C++). The contract of every runner:
//   <runner> [--dir DIR] [--reps R] [--warmup W]
//   -> one JSON line {"impl", "variant", "prefill_ms", "decode_ms_per_token", "prefill_samples",
//      "decode_samples", "tokens": [t_0 … t_32], "logits_file", "peak_rss_mb", …}
//   on failure -> {"impl", "variant", "error"}, exit code 0.
// The loop: prefill = the model on PROMPT (128 ids) with an empty cache; t_0 = argmax of its last row;
// then 32 decode steps, each the model on [t_k] with the cache -> t_{k+1} = argmax (the lowest id on
// ties). A decode sample is the 32 steps' time / 32. DIR/last-logits.<impl>-<variant>.f32 gets the last prefill
// row's logits (float32 LE) for the max |Δ logit| check.
import fs from 'node:fs';
import path from 'node:path';
import { BENCH_DIR, emit, median, peakRssMb } from './common.mjs';

export const GPT2_DIR = path.join(BENCH_DIR, '.cache', 'gpt2-small');
export const PROMPT_LEN = 128, DECODE_STEPS = 32;

// 128 ids in [0, vocab) from xorshift32 seeded 0x9E3779B9 (gpt2.py's prompt()).
export function gpt2Prompt(vocab, n = PROMPT_LEN) {
  const ids = [];
  let s = 0x9e3779b9 >>> 0;
  for (let i = 0; i < n; ++i) {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    ids.push(s % vocab);
  }
  return ids;
}

export function argmax(row) {
  let best = 0;
  for (let i = 1; i < row.length; ++i) if (row[i] > row[best]) best = i;
  return best;
}

export function parseGpt2Args(argv = process.argv.slice(2)) {
  const a = { dir: GPT2_DIR, reps: 3, warmup: 1 };
  for (let i = 0; i < argv.length; i += 2) {
    const [k, v] = [argv[i], argv[i + 1]];
    if (k === '--dir') a.dir = v;
    else if (k === '--reps') a.reps = Number(v);
    else if (k === '--warmup') a.warmup = Number(v);
    else throw new Error(`unknown argument ${k}`);
  }
  if (!(a.reps > 0 && a.warmup >= 0)) throw new Error('need --reps > 0, --warmup >= 0');
  return a;
}

// runner({dir, config}) -> { prefill(ids) -> Float32Array last row, decode(id) -> Float32Array row,
// reset(), variant, ...extra }: prefill starts a fresh cache, decode appends one token to it.
export async function runGpt2(impl, open) {
  let variant;
  try {
    const args = parseGpt2Args();
    const config = JSON.parse(fs.readFileSync(path.join(args.dir, 'config.json'), 'utf8'));
    const r = await open({ dir: args.dir, config });
    variant = r.variant;
    const ids = gpt2Prompt(config.vocab_size);
    const prefillSamples = [], decodeSamples = [];
    let tokens, last;
    for (let rep = 0; rep < args.warmup + args.reps; ++rep) {
      let t = performance.now();
      last = await r.prefill(ids);
      const prefill = performance.now() - t;
      tokens = [argmax(last)];
      t = performance.now();
      for (let k = 0; k < DECODE_STEPS; ++k) tokens.push(argmax(await r.decode(tokens[tokens.length - 1])));
      const decode = performance.now() - t;
      if (rep >= args.warmup) prefillSamples.push(prefill), decodeSamples.push(decode / DECODE_STEPS);
    }
    const logitsFile = path.join(args.dir, `last-logits.${impl}-${variant}.f32`);
    fs.writeFileSync(logitsFile, Buffer.from(new Float32Array(last).buffer));
    const { prefill, decode, reset, variant: _, ...extra } = r;
    const round = (x) => Math.round(x * 1000) / 1000;
    emit({ impl, variant, prefill_ms: round(median(prefillSamples)), decode_ms_per_token: round(median(decodeSamples)),
           prefill_samples: prefillSamples.map(round), decode_samples: decodeSamples.map(round), tokens,
           logits_file: logitsFile, peak_rss_mb: round(peakRssMb()), ...extra });
  } catch (e) {
    emit({ impl, variant, error: String(e?.message ?? e).split('\n')[0].slice(0, 300), peak_rss_mb: peakRssMb() });
  }
  process.exit(0);
}
