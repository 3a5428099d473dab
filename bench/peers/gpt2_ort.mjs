// The GPT-2-small workload (bench/peers/gpt2_common.mjs) in onnxruntime, on DIR/gpt2.onnx (written by
// bench/peers/gpt2.py export: one graph with past key/values, n and p dynamic):
//   node bench/peers/gpt2_ort.mjs --pkg onnxruntime-node|onnxruntime-web [--dir DIR] [--reps R] [--warmup W]
// onnxruntime-web: wasm backend (SIMD), numThreads 1, under node; onnxruntime-node: CPU provider,
// 1 intra-op and 1 inter-op thread. Graph optimisation level "all". The prefill feeds empty past
// tensors (1, h, 0, d_k); each decode step feeds the previous step's presents back.
import fs from 'node:fs';
import path from 'node:path';
import { runGpt2 } from './gpt2_common.mjs';

const i = process.argv.indexOf('--pkg');
const pkg = i > 0 ? process.argv.splice(i, 2)[1] : 'onnxruntime-node';

runGpt2(pkg, async ({ dir, config }) => {
  const model = path.join(dir, 'gpt2.onnx');
  if (!fs.existsSync(model)) throw new Error(`${model} missing: run /usr/bin/python3 bench/peers/gpt2.py export`);
  const ort = await import(pkg);
  let options;
  if (pkg === 'onnxruntime-web') {
    ort.env.wasm.numThreads = 1;
    ort.env.wasm.proxy = false;
    options = { executionProviders: ['wasm'] };
  } else {
    options = { executionProviders: ['cpu'], intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential' };
  }
  options.graphOptimizationLevel = 'all';
  const session = await ort.InferenceSession.create(pkg === 'onnxruntime-web' ? fs.readFileSync(model) : model, options);
  const L = config.n_layer, H = config.n_head, dk = config.n_embd / config.n_head, V = config.vocab_size;
  const names = [];
  for (let l = 0; l < L; ++l) names.push(`past_${l}_key`, `past_${l}_value`);
  let past = null;
  const step = async (ids) => {
    const feeds = { input_ids: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, ids.length]) };
    names.forEach((name, k) => {
      feeds[name] = past ? past[k] : new ort.Tensor('float32', new Float32Array(0), [1, H, 0, dk]);
    });
    const out = await session.run(feeds);
    past?.forEach((t) => t.dispose?.());
    past = names.map((name) => out[name.replace('past', 'present')]);
    const logits = out.logits.data;
    const row = logits.slice(logits.length - V);
    out.logits.dispose?.();
    return row;
  };
  return {
    variant: pkg === 'onnxruntime-web' ? 'wasm-simd' : 'cpu',
    prefill: (ids) => {
      past?.forEach((t) => t.dispose?.());
      past = null;
      return step(ids);
    },
    decode: (id) => step([id]),
    version: ort.env.versions?.web ?? ort.env.versions?.node,
    threads: 1,
  };
});
