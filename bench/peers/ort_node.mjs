// onnxruntime-node 1.30, CPU provider, 1 intra-op (--threads T: T) + 1 inter-op thread. Contract: see common.mjs.
//   node bench/peers/ort_node.mjs --n 1024 --warmup-ms 1500 --reps 5 --variant explicit|fused [--threads T]
import { runOrt } from './ort.mjs';

await runOrt('onnxruntime-node', 'onnxruntime-node');
