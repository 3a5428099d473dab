"""Random-weight GPT-2-shaped checkpoints in safetensors, and an independent PyTorch GPT-2's logits for
them: the fixtures of tests/train/lm_checkpoint_test.cpp (attnlab's reader, lm_checkpoint.h).

Usage: /usr/bin/python3 tests/torch/gpt2_checkpoints.py OUT_DIR [--config 124m [--dtypes F32,F16]]
writes, for each fixture NAME below, OUT_DIR/NAME.safetensors, OUT_DIR/NAME.config.json and
OUT_DIR/NAME.logits.txt (the golden logits). --config 124m: instead, GPT-2 small's shapes (vocab
50257, 1024 positions, 12 layers, d 768, 12 heads; 124 M parameters, ~500 MB a file in F32) with
GPT-2's initial scales (N(0, 0.02), c_proj's / √(2L)), one fixture per dtype (gpt2-124m-f32, …) and
one sequence of 64 ids: tests/checkpoint_124m_torch_test.cmake's (never committed). Deterministic: torch.manual_seed per fixture, and the
safetensors bytes are written here (json header + raw little-endian bytes), not by a library.

Nothing is shared with the C++: the model is GPT-2's formulas in float64 (Hugging Face's layout:
Conv1D weights (in, out) used as x @ W, q|k|v concatenated along out; pre-LN blocks; tied output),
F.layer_norm with the config's epsilon, the tanh GELU written out ("gelu_new") or F.gelu's exact erf
form ("gelu"). Each weight is first rounded to its fixture's dtype (F16 / BF16) and the reference
runs on those rounded values, so a reader that converts F16/BF16 exactly sees the same model.

The golden file: "# NAME vocab V" then, per id sequence, a line "ids a,b,c" and one line of V logits
(%.8e) per position.
"""
import json
import math
import os
import struct
import sys

import torch

VOCAB, POSITIONS, D, LAYERS, HEADS = 97, 16, 16, 2, 4
SEQUENCES = [[5, 17, 96, 0, 42, 42, 3, 88, 61, 7, 19, 23, 50, 2, 64, 11], [96, 1, 2, 3]]
# The scales of random_model's draws: (std, mean) per kind; the small fixtures' (None: 124m's, set by main).
SCALES = {"wte": 0.5, "wpe": 0.3, "ln": 0.2, "bias": 0.1, "c_attn": 0.3, "c_proj": 0.2, "c_fc": 0.3, "mlp_proj": 0.1}

# name, naming, dtype, prefix, biases, activation, epsilon, extras (GPT-2's attn.bias buffers / nanoGPT's lm_head.weight)
FIXTURES = [
    ("gpt2-f32", "gpt2", "F32", "", True, "gelu_new", 1e-5),
    ("gpt2-f16", "gpt2", "F16", "transformer.", True, "gelu", 1e-6),
    ("gpt2-bf16", "gpt2", "BF16", "", True, "gelu_pytorch_tanh", 1e-5),
    ("nanogpt-f32", "nanogpt", "F32", "transformer.", True, "gelu_new", 1e-5),
    ("nanogpt-f16", "nanogpt", "F16", "transformer.", False, "gelu_new", 1e-5),
    ("nanogpt-bf16", "nanogpt", "BF16", "transformer.", True, "gelu_new", 1e-5),
]
TORCH_DTYPE = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}


def random_model(seed, dtype, biases):
    """GPT-2 parameters in Hugging Face's layout, float64, rounded through `dtype`."""
    g = torch.Generator().manual_seed(seed)

    def r(*shape, scale=1.0, shift=0.0):
        t = shift + scale * torch.randn(*shape, generator=g, dtype=torch.float64)
        return t.to(TORCH_DTYPE[dtype]).to(torch.float64)

    def bias(n, scale):
        return r(n, scale=scale) if biases else torch.zeros(n, dtype=torch.float64)

    k = SCALES
    p = {"wte.weight": r(VOCAB, D, scale=k["wte"]), "wpe.weight": r(POSITIONS, D, scale=k["wpe"])}
    for l in range(LAYERS):
        h = f"h.{l}."
        p[h + "ln_1.weight"] = r(D, scale=k["ln"], shift=1.0)
        p[h + "ln_1.bias"] = bias(D, k["bias"])
        p[h + "attn.c_attn.weight"] = r(D, 3 * D, scale=k["c_attn"])
        p[h + "attn.c_attn.bias"] = bias(3 * D, k["bias"])
        p[h + "attn.c_proj.weight"] = r(D, D, scale=k["c_proj"])
        p[h + "attn.c_proj.bias"] = bias(D, k["bias"])
        p[h + "ln_2.weight"] = r(D, scale=k["ln"], shift=1.0)
        p[h + "ln_2.bias"] = bias(D, k["bias"])
        p[h + "mlp.c_fc.weight"] = r(D, 4 * D, scale=k["c_fc"])
        p[h + "mlp.c_fc.bias"] = bias(4 * D, k["bias"])
        p[h + "mlp.c_proj.weight"] = r(4 * D, D, scale=k["mlp_proj"])
        p[h + "mlp.c_proj.bias"] = bias(D, k["bias"])
    p["ln_f.weight"] = r(D, scale=k["ln"], shift=1.0)
    p["ln_f.bias"] = bias(D, k["bias"])
    return p


def gelu(x, activation):
    if activation == "gelu":
        return torch.nn.functional.gelu(x)  # exact: x Φ(x)
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x.pow(3))))


def reference_logits(p, ids, activation, eps):
    """GPT-2's forward in float64: (n) ids -> (n, V) logits."""
    n = len(ids)
    ln = lambda x, name: torch.nn.functional.layer_norm(x, (D,), p[name + ".weight"], p[name + ".bias"], eps)
    x = p["wte.weight"][ids] + p["wpe.weight"][:n]
    dk = D // HEADS
    mask = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)
    for l in range(LAYERS):
        h = f"h.{l}."
        qkv = ln(x, h + "ln_1") @ p[h + "attn.c_attn.weight"] + p[h + "attn.c_attn.bias"]
        q, k, v = qkv.split(D, dim=1)
        heads = []
        for j in range(HEADS):
            s = slice(j * dk, (j + 1) * dk)
            scores = (q[:, s] @ k[:, s].T) / math.sqrt(dk)
            scores = scores.masked_fill(mask, float("-inf"))
            heads.append(torch.softmax(scores, dim=1) @ v[:, s])
        x = x + torch.cat(heads, dim=1) @ p[h + "attn.c_proj.weight"] + p[h + "attn.c_proj.bias"]
        hidden = gelu(ln(x, h + "ln_2") @ p[h + "mlp.c_fc.weight"] + p[h + "mlp.c_fc.bias"], activation)
        x = x + hidden @ p[h + "mlp.c_proj.weight"] + p[h + "mlp.c_proj.bias"]
    return ln(x, "ln_f") @ p["wte.weight"].T


def tensor_bytes(t, dtype):
    t = t.to(TORCH_DTYPE[dtype]).contiguous()
    if dtype == "BF16":  # numpy has no bfloat16: its bits through int16
        return t.view(torch.int16).numpy().astype("<i2").tobytes()
    return t.numpy().astype("<f4" if dtype == "F32" else "<f2").tobytes()


def write_safetensors(path, tensors, dtype, metadata):
    header, parts, offset = {"__metadata__": metadata}, [], 0
    for name, t in tensors.items():
        raw = tensor_bytes(t, dtype)
        header[name] = {"dtype": dtype, "shape": list(t.shape), "data_offsets": [offset, offset + len(raw)]}
        parts.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for raw in parts:  # one write each: a 124m file is ~500 MB
            f.write(raw)


def stored_tensors(p, naming, prefix, biases):
    """The parameters under the fixture's names and layout."""
    out = {}
    for name, t in p.items():
        if not biases and name.endswith(".bias"):
            continue
        if naming == "nanogpt" and t.dim() == 2 and name.startswith("h."):
            t = t.T  # nn.Linear: (out, in)
        out[prefix + name] = t
        if naming == "gpt2" and name.endswith("attn.c_proj.bias"):
            # GPT-2's non-parameter buffers (old exports carry them): the causal mask, a constant
            out[prefix + name.replace("c_proj.bias", "bias")] = torch.tril(torch.ones(1, 1, POSITIONS, POSITIONS, dtype=torch.float64))
    if naming == "nanogpt":
        out["lm_head.weight"] = p["wte.weight"]  # tied, saved twice as nanoGPT's state_dict does
    return out


def use_124m(dtypes):
    """GPT-2 small's shapes and initial scales, one fixture per dtype, one sequence of 64 ids."""
    global VOCAB, POSITIONS, D, LAYERS, HEADS, SEQUENCES, SCALES, FIXTURES
    VOCAB, POSITIONS, D, LAYERS, HEADS = 50257, 1024, 768, 12, 12
    g = torch.Generator().manual_seed(124)
    SEQUENCES = [torch.randint(0, VOCAB, (64,), generator=g).tolist()]
    residual = 0.02 / math.sqrt(2 * LAYERS)
    SCALES = {"wte": 0.02, "wpe": 0.01, "ln": 0.02, "bias": 0.02, "c_attn": 0.02, "c_proj": residual, "c_fc": 0.02,
              "mlp_proj": residual}
    FIXTURES = [(f"gpt2-124m-{d.lower()}", "gpt2", d, "", True, "gelu_new", 1e-5) for d in dtypes]


def main():
    args = sys.argv[1:]
    if "--config" in args:
        i = args.index("--config")
        if args[i + 1] != "124m":
            sys.exit("--config: expected 124m")
        dtypes = ["F32"]
        if "--dtypes" in args:
            dtypes = args[args.index("--dtypes") + 1].split(",")
        use_124m(dtypes)
    out_dir = args[0]
    os.makedirs(out_dir, exist_ok=True)
    for seed, (name, naming, dtype, prefix, biases, activation, eps) in enumerate(FIXTURES):
        p = random_model(1000 + seed, dtype, biases)
        write_safetensors(os.path.join(out_dir, name + ".safetensors"), stored_tensors(p, naming, prefix, biases), dtype,
                          {"format": "pt"})
        config = {"model_type": "gpt2", "vocab_size": VOCAB, "n_positions": POSITIONS, "n_ctx": POSITIONS, "n_embd": D,
                  "n_layer": LAYERS, "n_head": HEADS, "layer_norm_epsilon": eps, "activation_function": activation}
        with open(os.path.join(out_dir, name + ".config.json"), "w") as f:
            json.dump(config, f, indent=2)
            f.write("\n")
        with open(os.path.join(out_dir, name + ".logits.txt"), "w") as f:
            f.write(f"# {name} vocab {VOCAB}: logits of tests/torch/gpt2_checkpoints.py's float64 GPT-2\n")
            for ids in SEQUENCES:
                f.write("ids " + ",".join(map(str, ids)) + "\n")
                for row in reference_logits(p, ids, activation, eps):
                    f.write(" ".join("%.8e" % v for v in row.tolist()) + "\n")
    print("wrote", len(FIXTURES), "fixtures to", out_dir)


if __name__ == "__main__":
    main()
