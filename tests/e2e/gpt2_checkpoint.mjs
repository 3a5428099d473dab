// A GPT-2-shaped checkpoint with GPT-2's vocabulary and random weights (3.2 MB, seeded), for the
// tests of view 12 (lm_checkpoint.test.mjs) and of the npm package's openModel (lib_package.test.mjs):
// Hugging Face names, Conv1D (in, out) layout, float32.
export const gpt2Config = { n_embd: 16, n_head: 2, n_layer: 2, n_positions: 64, vocab_size: 50257, layer_norm_epsilon: 1e-5, activation_function: 'gelu_new' };

export function safetensors(tensors) {  // [{name, shape, data: Float32Array}]
  const header = {};
  let offset = 0;
  for (const t of tensors) {
    header[t.name] = { dtype: 'F32', shape: t.shape, data_offsets: [offset, offset + t.data.byteLength] };
    offset += t.data.byteLength;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const bytes = new Uint8Array(8 + json.length + offset);
  new DataView(bytes.buffer).setBigUint64(0, BigInt(json.length), true);
  bytes.set(new TextEncoder().encode(json), 8);
  let at = 8 + json.length;
  for (const t of tensors) {
    bytes.set(new Uint8Array(t.data.buffer), at);
    at += t.data.byteLength;
  }
  return bytes;
}

// positions: the context (n_positions; gpt2Config's 64 unless given: GPT-2's 1024 for a long text).
export function gpt2Checkpoint(seed = 7, positions = gpt2Config.n_positions) {
  let state = seed;
  const uniform = () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32) - 0.5;
  const d = gpt2Config.n_embd;
  const tensor = (name, shape, scale, mean = 0) => {
    const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
    for (let i = 0; i < data.length; ++i) data[i] = mean + scale * uniform();
    return { name, shape, data };
  };
  const tensors = [tensor('wte.weight', [gpt2Config.vocab_size, d], 0.5), tensor('wpe.weight', [positions, d], 0.2)];
  for (let l = 0; l < gpt2Config.n_layer; ++l) {
    tensors.push(tensor(`h.${l}.ln_1.weight`, [d], 0.2, 1), tensor(`h.${l}.ln_1.bias`, [d], 0.1),
      tensor(`h.${l}.attn.c_attn.weight`, [d, 3 * d], 1.2), tensor(`h.${l}.attn.c_attn.bias`, [3 * d], 0.1),
      tensor(`h.${l}.attn.c_proj.weight`, [d, d], 0.5), tensor(`h.${l}.attn.c_proj.bias`, [d], 0.1),
      tensor(`h.${l}.ln_2.weight`, [d], 0.2, 1), tensor(`h.${l}.ln_2.bias`, [d], 0.1),
      tensor(`h.${l}.mlp.c_fc.weight`, [d, 4 * d], 0.5), tensor(`h.${l}.mlp.c_fc.bias`, [4 * d], 0.1),
      tensor(`h.${l}.mlp.c_proj.weight`, [4 * d, d], 0.3), tensor(`h.${l}.mlp.c_proj.bias`, [d], 0.1));
  }
  tensors.push(tensor('ln_f.weight', [d], 0.2, 1), tensor('ln_f.bias', [d], 0.1));
  return safetensors(tensors);
}

