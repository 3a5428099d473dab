// What every JavaScript peer runner shares: the command line, the input, the timing loop, the one
// JSON line on stdout. The contract (the same for attnlab's own bench binaries and torch_mha.py):
//   <runner> --n N --warmup-ms 1500 --reps R [--variant V] [--threads T (onnxruntime-node only)]
//   -> {"impl":..., "variant":..., "n":N, "ms":<median>, "samples":[...], "peak_rss_mb":<VmHWM MB>}
//   on failure -> {"impl":..., "variant":..., "n":N, "error":"message"}, exit code 0.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const D_MODEL = 256;
export const HEADS = 4;
export const BENCH_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const CACHE_DIR = path.join(BENCH_DIR, '.cache');

// Libraries print banners and notices; stdout carries only the result line.
const writeStdout = process.stdout.write.bind(process.stdout);
console.log = console.info = console.warn = (...a) => process.stderr.write(a.join(' ') + '\n');

export function parseArgs(argv = process.argv.slice(2), defaults = {}) {
  const args = { n: 256, warmupMs: 1500, reps: 5, variant: undefined, threads: 1, ...defaults };
  for (let i = 0; i < argv.length; ++i) {
    const key = argv[i], value = argv[i + 1];
    if (key === '--n') args.n = Number(value), ++i;
    else if (key === '--warmup-ms') args.warmupMs = Number(value), ++i;
    else if (key === '--reps') args.reps = Number(value), ++i;
    else if (key === '--variant') args.variant = value, ++i;
    else if (key === '--threads') args.threads = Number(value), ++i;
    else throw new Error(`unknown argument ${key}`);
  }
  if (!(args.n > 0 && args.reps > 0 && args.warmupMs >= 0)) throw new Error('need --n > 0, --reps > 0');
  if (!(Number.isInteger(args.threads) && args.threads >= 1)) throw new Error('need --threads >= 1');
  return args;
}

// x: (n, 256), uniform in [-1, 1), from xorshift32 seeded 0x9E3779B9: the same numbers in every
// runner (torch_mha.py has the same generator).
export function makeInput(n, d = D_MODEL) {
  const x = new Float32Array(n * d);
  let s = 0x9e3779b9 >>> 0;
  for (let i = 0; i < x.length; ++i) {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    x[i] = (s >>> 8) / 8388608 - 1;  // 24 random bits -> [-1, 1)
  }
  return x;
}

// Seeded weights for runners that build the model themselves (tfjs): uniform(-1/16, 1/16) like
// nn.Linear's default init for d = 256, from the same generator with another seed.
export function makeWeights(count, seed) {
  const w = new Float32Array(count);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < count; ++i) {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    w[i] = ((s >>> 8) / 8388608 - 1) / 16;
  }
  return w;
}

export function peakRssMb() {
  const m = /VmHWM:\s+(\d+)\s+kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) / 1024 : null;
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b), h = s.length >> 1;
  return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2;
};

// Runs `once` (async, one full forward including reading the output back) for at least warmupMs
// and at least once, then `reps` timed runs.
export async function timeIt(once, { warmupMs, reps }) {
  const start = performance.now();
  do await once(); while (performance.now() - start < warmupMs);
  const samples = [];
  for (let r = 0; r < reps; ++r) {
    const t0 = performance.now();
    await once();
    samples.push(performance.now() - t0);
  }
  return samples;
}

const round = (x, digits) => Math.round(x * 10 ** digits) / 10 ** digits;

export function emit(row) {
  writeStdout(JSON.stringify(row) + '\n');
}

// main(args) returns { variant, samples, ...extra }; anything thrown becomes an error row.
export async function runCli(impl, main, defaults) {
  let args = { n: null, variant: defaults?.variant };
  try {
    args = parseArgs(undefined, defaults);
    const { samples, variant = args.variant, ...extra } = await main(args);
    emit({ impl, variant, n: args.n, ms: round(median(samples), 4), samples: samples.map((s) => round(s, 4)),
           peak_rss_mb: round(peakRssMb(), 1), ...extra });
  } catch (e) {
    const message = String(e?.message ?? e).split('\n')[0].slice(0, 300);
    emit({ impl, variant: args.variant, n: args.n, error: message, peak_rss_mb: round(peakRssMb(), 1) });
  }
  process.exit(0);
}
