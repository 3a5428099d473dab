// One runner for both onnxruntime peers, parameterised by the package:
//   onnxruntime-web  (wasm backend, SIMD, numThreads 1, under node)   -> bench/peers/ort_web.mjs
//   onnxruntime-node (CPU provider, 1 intra-op (or --threads T) and 1 inter-op thread) -> bench/peers/ort_node.mjs
// --variant explicit (default) runs bench/.cache/mha_explicit.onnx, --variant fused mha_fused.onnx
// (com.microsoft.MultiHeadAttention); both written by bench/peers/export_onnx.py.
import fs from 'node:fs';
import path from 'node:path';
import { CACHE_DIR, D_MODEL, makeInput, runCli, timeIt } from './common.mjs';

const VARIANTS = ['explicit', 'fused'];

export function runOrt(impl, pkg) {
  return runCli(impl, async ({ n, warmupMs, reps, variant, threads }) => {
    if (!VARIANTS.includes(variant)) throw new Error(`--variant must be one of ${VARIANTS.join(', ')}`);
    const model = path.join(CACHE_DIR, `mha_${variant}.onnx`);
    if (!fs.existsSync(model)) throw new Error(`${model} missing: run /usr/bin/python3 bench/peers/export_onnx.py`);
    const ort = await import(pkg);
    let options;
    if (pkg === 'onnxruntime-web' && threads !== 1) throw new Error('onnxruntime-web runs one thread here (--threads 1)');
    if (pkg === 'onnxruntime-web') {
      ort.env.wasm.numThreads = 1;  // the single-threaded SIMD build path; no proxy worker
      ort.env.wasm.proxy = false;
      options = { executionProviders: ['wasm'] };
    } else {
      options = { executionProviders: ['cpu'], intraOpNumThreads: threads, interOpNumThreads: 1,
                  executionMode: 'sequential' };
    }
    options.graphOptimizationLevel = 'all';
    const session = await ort.InferenceSession.create(fs.readFileSync(model), options);
    const x = new ort.Tensor('float32', makeInput(n), [1, n, D_MODEL]);
    const once = async () => {
      const { y } = await session.run({ x });
      if (y.dims[1] !== n || !Number.isFinite(y.data[y.data.length - 1])) throw new Error('bad output');
      y.dispose?.();
    };
    const samples = await timeIt(once, { warmupMs, reps });
    return { samples, version: ort.env.versions?.web ?? ort.env.versions?.node, threads };
  }, { variant: 'explicit' });
}
