#!/usr/bin/env python3
"""The GPT-2-small workload of `npm run bench` (issue 28): a GPT-2-shaped model with random weights
(vocab 50257, 1024 positions, 12 layers, d_model 768, 12 heads: 124 M parameters), a prefill of 128
tokens, then 32 greedy decode steps through the KV cache, one thread, in every runner.

  /usr/bin/python3 bench/peers/gpt2.py export [OUT_DIR] [--config small|tiny]
      writes OUT_DIR (default bench/.cache/gpt2-small) /model.safetensors (F32, Hugging Face GPT-2
      names, Conv1D (in, out) layout: what attnlab's ReadLmCheckpoint reads), config.json, and
      gpt2.onnx: torch.onnx.export of the same model with past key/values: inputs input_ids (1, n)
      and past_{l}_{key,value} (1, 12, p, 64), outputs logits (1, n, V) and present_{l}_{key,value}
      (1, 12, p + n, 64); n and p dynamic (the prefill runs it with p = 0, a decode step with n = 1).
      Weights seeded (torch.Generator().manual_seed(SEED)); ~500 MB per file for small, so nothing
      of it is committed. `tiny` (2 layers, d_model 64, vocab 1000) is for trying the runners.
  /usr/bin/python3 bench/peers/gpt2.py run [--dir DIR] [--reps R] [--warmup W]
      the PyTorch peer: the model of DIR/model.safetensors in eager PyTorch, torch.set_num_threads(1),
      inference mode, the same loop; prints one JSON line (bench/peers/gpt2_common.mjs's contract).

The loop (the same in every runner): prompt = PROMPT(V) (128 ids from xorshift32); prefill =
the model on the prompt with an empty cache -> logits (128, V); t0 = argmax of the last row; then
for k = 0..31: the model on [t_k] with the cache -> t_{k+1} = argmax. A prefill sample is one
prefill; a decode sample is the 32 steps' time / 32 (ms per token). tokens = t_0 … t_32. The last
prefill row's logits go to DIR/last-logits.pytorch-eager.f32 (float32 LE) for the max |Δ logit| check.
"""
import json
import math
import os
import struct
import sys
import time

SMALL = {"vocab_size": 50257, "n_positions": 1024, "n_embd": 768, "n_layer": 12, "n_head": 12}
TINY = {"vocab_size": 1000, "n_positions": 256, "n_embd": 64, "n_layer": 2, "n_head": 4}
SEED = 28
PROMPT_LEN, DECODE_STEPS = 128, 32
BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_DIR = os.path.join(BENCH, ".cache", "gpt2-small")


def prompt(vocab, n=PROMPT_LEN):
    """n ids in [0, vocab) from xorshift32 seeded 0x9E3779B9 (gpt2_common.mjs and attnlab_bench have it too)."""
    s, ids = 0x9E3779B9, []
    for _ in range(n):
        s ^= (s << 13) & 0xFFFFFFFF
        s ^= s >> 17
        s ^= (s << 5) & 0xFFFFFFFF
        ids.append(s % vocab)
    return ids


def random_parameters(torch, cfg):
    """GPT-2's initialisation (N(0, 0.02), c_proj's scaled by 1/√(2L)), with small random biases and
    LayerNorm γ = 1 + N(0, 0.02) so that no term is trivially zero. Hugging Face names and layout."""
    g = torch.Generator().manual_seed(SEED)
    d, L = cfg["n_embd"], cfg["n_layer"]
    r = lambda *shape, std=0.02, mean=0.0: mean + std * torch.randn(*shape, generator=g)
    p = {"wte.weight": r(cfg["vocab_size"], d), "wpe.weight": r(cfg["n_positions"], d, std=0.01)}
    for l in range(L):
        h = f"h.{l}."
        p[h + "ln_1.weight"], p[h + "ln_1.bias"] = r(d, mean=1.0), r(d)
        p[h + "attn.c_attn.weight"], p[h + "attn.c_attn.bias"] = r(d, 3 * d), r(3 * d)
        p[h + "attn.c_proj.weight"], p[h + "attn.c_proj.bias"] = r(d, d, std=0.02 / math.sqrt(2 * L)), r(d)
        p[h + "ln_2.weight"], p[h + "ln_2.bias"] = r(d, mean=1.0), r(d)
        p[h + "mlp.c_fc.weight"], p[h + "mlp.c_fc.bias"] = r(d, 4 * d), r(4 * d)
        p[h + "mlp.c_proj.weight"], p[h + "mlp.c_proj.bias"] = r(4 * d, d, std=0.02 / math.sqrt(2 * L)), r(d)
    p["ln_f.weight"], p["ln_f.bias"] = r(d, mean=1.0), r(d)
    return p


def write_safetensors(path, tensors):
    """F32 safetensors, streamed (json header + raw little-endian floats in the header's order)."""
    header, offset = {"__metadata__": {"format": "pt"}}, 0
    for name, t in tensors.items():
        size = 4 * t.numel()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path + ".tmp", "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for t in tensors.values():
            f.write(t.contiguous().numpy().astype("<f4").tobytes())
    os.replace(path + ".tmp", path)


def read_safetensors(torch, path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        assert e["dtype"] == "F32", name
        b, end = e["data_offsets"]
        out[name] = torch.frombuffer(bytearray(data[b:end]), dtype=torch.float32).reshape(e["shape"])
    return out


def build(torch, cfg, params):
    """GPT-2 with past key/values as an nn.Module (weights as buffers: they export as initializers)."""
    nn, F = torch.nn, torch.nn.functional
    d, L, H = cfg["n_embd"], cfg["n_layer"], cfg["n_head"]
    dk, eps = d // H, 1e-5

    class Gpt2(nn.Module):
        def __init__(self):
            super().__init__()
            for name, t in params.items():
                self.register_buffer(name.replace(".", "_"), t)

        def w(self, name):
            return getattr(self, name.replace(".", "_"))

        def ln(self, x, name):
            return F.layer_norm(x, (d,), self.w(name + ".weight"), self.w(name + ".bias"), eps)

        def forward(self, ids, *past):  # ids (1, n); past: L × (key, value), each (1, H, p, dk)
            n, p = ids.shape[1], past[0].shape[2]
            pos = torch.arange(n) + p
            x = F.embedding(ids[0], self.w("wte.weight")) + F.embedding(pos, self.w("wpe.weight"))  # (n, d)
            masked = torch.arange(n + p).unsqueeze(0) > pos.unsqueeze(1)  # (n, p + n): a later position
            presents = []
            for l in range(L):
                h = f"h.{l}."
                qkv = self.ln(x, h + "ln_1") @ self.w(h + "attn.c_attn.weight") + self.w(h + "attn.c_attn.bias")
                q, k, v = (t.reshape(n, H, dk).transpose(0, 1) for t in qkv.split(d, dim=1))  # (H, n, dk)
                k = torch.cat([past[2 * l][0], k], dim=1)
                v = torch.cat([past[2 * l + 1][0], v], dim=1)
                presents += [k.unsqueeze(0), v.unsqueeze(0)]
                scores = (q @ k.transpose(1, 2)) * (1.0 / math.sqrt(dk))
                weights = torch.softmax(scores.masked_fill(masked, float("-inf")), dim=-1)
                heads = (weights @ v).transpose(0, 1).reshape(n, d)
                x = x + heads @ self.w(h + "attn.c_proj.weight") + self.w(h + "attn.c_proj.bias")
                fc = self.ln(x, h + "ln_2") @ self.w(h + "mlp.c_fc.weight") + self.w(h + "mlp.c_fc.bias")
                x = x + F.gelu(fc, approximate="tanh") @ self.w(h + "mlp.c_proj.weight") + self.w(h + "mlp.c_proj.bias")
            logits = self.ln(x, "ln_f") @ self.w("wte.weight").T
            return (logits.unsqueeze(0), *presents)

    return Gpt2().eval()


def empty_past(torch, cfg):
    H, dk = cfg["n_head"], cfg["n_embd"] // cfg["n_head"]
    return [torch.zeros(1, H, 0, dk) for _ in range(2 * cfg["n_layer"])]


def export(out_dir, cfg):
    import torch
    os.makedirs(out_dir, exist_ok=True)
    params = random_parameters(torch, cfg)
    write_safetensors(os.path.join(out_dir, "model.safetensors"), params)
    config = {"model_type": "gpt2", **cfg, "n_ctx": cfg["n_positions"], "layer_norm_epsilon": 1e-5,
              "activation_function": "gelu_new", "attnlab_bench_seed": SEED}
    with open(os.path.join(out_dir, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")
    model = build(torch, cfg, params)
    L, H, dk = cfg["n_layer"], cfg["n_head"], cfg["n_embd"] // cfg["n_head"]
    names = [f"past_{l}_{kv}" for l in range(L) for kv in ("key", "value")]
    outs = ["logits"] + [n.replace("past", "present") for n in names]
    # Traced at n = 3, p = 2 (neither 0 nor 1, so no size is specialised), both axes dynamic.
    dummy = (torch.zeros(1, 3, dtype=torch.int64), *[torch.zeros(1, H, 2, dk) for _ in names])
    axes = {"input_ids": {1: "n"}, "logits": {1: "n"}}
    axes.update({n: {2: "past"} for n in names})
    axes.update({n: {2: "total"} for n in outs[1:]})
    path = os.path.join(out_dir, "gpt2.onnx")
    with torch.inference_mode(False), torch.no_grad():
        torch.onnx.export(model, dummy, path + ".tmp", input_names=["input_ids"] + names, output_names=outs,
                          dynamic_axes=axes, opset_version=17, do_constant_folding=True)
    os.replace(path + ".tmp", path)
    print(f"gpt2: wrote model.safetensors, config.json and gpt2.onnx to {out_dir}", file=sys.stderr)


def run(args):
    import torch
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from torch_mha import mapped_blas, peak_rss_mb, reexec_with_openblas
    reexec_with_openblas()
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    d = args.get("--dir", DEFAULT_DIR)
    reps, warmup = int(args.get("--reps", 3)), int(args.get("--warmup", 1))
    with open(os.path.join(d, "config.json")) as f:
        cfg = {k: v for k, v in json.load(f).items() if k in SMALL}
    model = build(torch, cfg, read_safetensors(torch, os.path.join(d, "model.safetensors")))
    ids = torch.tensor([prompt(cfg["vocab_size"])])
    prefill_samples, decode_samples = [], []
    with torch.inference_mode():
        for rep in range(warmup + reps):
            t = time.perf_counter()
            out = model(ids, *empty_past(torch, cfg))
            prefill = time.perf_counter() - t
            last = out[0][0, -1].clone()
            tokens = [int(torch.argmax(last))]
            past = out[1:]
            t = time.perf_counter()
            for _ in range(DECODE_STEPS):
                out = model(torch.tensor([[tokens[-1]]]), *past)
                past = out[1:]
                tokens.append(int(torch.argmax(out[0][0, -1])))
            decode = time.perf_counter() - t
            if rep >= warmup:
                prefill_samples.append(1e3 * prefill)
                decode_samples.append(1e3 * decode / DECODE_STEPS)
    logits_file = os.path.join(d, "last-logits.pytorch-eager.f32")
    with open(logits_file, "wb") as f:
        f.write(last.numpy().astype("<f4").tobytes())
    med = lambda xs: sorted(xs)[len(xs) // 2] if len(xs) % 2 else sum(sorted(xs)[len(xs) // 2 - 1:len(xs) // 2 + 1]) / 2
    print(json.dumps({"impl": "pytorch", "variant": "eager", "prefill_ms": round(med(prefill_samples), 3),
                      "decode_ms_per_token": round(med(decode_samples), 3),
                      "prefill_samples": [round(s, 3) for s in prefill_samples],
                      "decode_samples": [round(s, 3) for s in decode_samples], "tokens": tokens,
                      "logits_file": logits_file, "version": torch.__version__, "threads": torch.get_num_threads(),
                      "blas": mapped_blas(), "peak_rss_mb": peak_rss_mb()}))


def main():
    argv = sys.argv[1:]
    if not argv or argv[0] not in ("export", "run"):
        sys.exit(__doc__)
    if argv[0] == "export":
        rest = argv[1:]
        cfg = SMALL
        if "--config" in rest:
            i = rest.index("--config")
            cfg = {"small": SMALL, "tiny": TINY}[rest[i + 1]]
            rest = rest[:i] + rest[i + 2:]
        export(rest[0] if rest else DEFAULT_DIR, cfg)
    else:
        try:
            run(dict(zip(argv[1::2], argv[2::2])))
        except Exception as e:  # noqa: BLE001  one error line, as the other peers
            print(json.dumps({"impl": "pytorch", "variant": "eager", "error": f"{type(e).__name__}: {e}"[:300]}))


if __name__ == "__main__":
    main()
