// onnxruntime-web 1.30, wasm backend (SIMD, 1 thread), under node. Contract: see common.mjs.
//   node bench/peers/ort_web.mjs --n 1024 --warmup-ms 1500 --reps 5 --variant explicit|fused
import { runOrt } from './ort.mjs';

await runOrt('onnxruntime-web', 'onnxruntime-web');
