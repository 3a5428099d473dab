// @tensorflow/tfjs-backend-wasm 4.22 (SIMD, one thread), under node. Contract: see common.mjs.
//   node --no-experimental-fetch bench/peers/tfjs_wasm.mjs --n 1024 --warmup-ms 1500 --reps 5
// Its best path: 2-D matMuls only (its batched and transposed matMuls fall back to a scalar loop).
// Projections are fused matMul + bias (tf.fused.matMul), 1/√d_k is folded into Q, K is transposed
// once, then per head one matMul Q_h K_hᵀ (n, n), softmax, one matMul with V_h; concat, Wo + bias.
import { D_MODEL, HEADS, makeInput, makeWeights, runCli, timeIt } from './common.mjs';

await runCli('tfjs-wasm', async ({ n, warmupMs, reps }) => {
  const tf = await import('@tensorflow/tfjs-core');
  const wasm = await import('@tensorflow/tfjs-backend-wasm');
  wasm.setThreadsCount(1);
  if (!(await tf.setBackend('wasm'))) throw new Error('the wasm backend did not initialise');
  await tf.ready();
  const simd = await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT');
  const threads = await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT');
  if (!simd) throw new Error('this node has no WebAssembly SIMD: tfjs would run its scalar build');
  if (threads || wasm.getThreadsCount() !== 1) throw new Error('tfjs-backend-wasm is not single-threaded');

  const d = D_MODEL, dk = D_MODEL / HEADS;
  const weight = (seed) => tf.tensor2d(makeWeights(d * d, seed), [d, d]);  // (in, out): x W
  const bias = (seed) => tf.tensor1d(makeWeights(d, seed));
  const [wq, wk, wv, wo] = [1, 2, 3, 4].map(weight);
  const [bq, bk, bv, bo] = [5, 6, 7, 8].map(bias);
  const x = tf.tensor2d(makeInput(n), [n, d]);

  const forward = () => tf.tidy(() => {
    const q = tf.mul(tf.fused.matMul({ a: x, b: wq, bias: bq }), tf.scalar(1 / Math.sqrt(dk)));
    const kt = tf.transpose(tf.fused.matMul({ a: x, b: wk, bias: bk }));  // (d, n)
    const v = tf.fused.matMul({ a: x, b: wv, bias: bv });
    const heads = [];
    for (let h = 0; h < HEADS; ++h) {
      const scores = tf.matMul(tf.slice(q, [0, h * dk], [n, dk]), tf.slice(kt, [h * dk, 0], [dk, n]));
      heads.push(tf.matMul(tf.softmax(scores), tf.slice(v, [0, h * dk], [n, dk])));
    }
    return tf.fused.matMul({ a: tf.concat(heads, 1), b: wo, bias: bo });
  });
  const once = async () => {
    const y = forward();
    const data = y.dataSync();
    y.dispose();
    if (data.length !== n * d || !Number.isFinite(data[data.length - 1])) throw new Error('bad output');
  };
  const tensorsBefore = tf.memory().numTensors;
  const samples = await timeIt(once, { warmupMs, reps });
  const leaked = tf.memory().numTensors - tensorsBefore;
  if (leaked !== 0) throw new Error(`${leaked} tensors leaked across reps`);
  return { samples, variant: 'simd', version: tf.version_core };
}, { variant: 'simd' });
