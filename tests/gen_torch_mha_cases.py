#!/usr/bin/python3
"""Generates torch.nn.MultiheadAttention conformance cases for attnlab's tests.

Each case is one call of torch.nn.MultiheadAttention(E, H, bias, batch_first=True) in eval mode
with need_weights=True, average_attn_weights=False, written as one JSON file in the case format of
tests/data/onnx-attention/README.md plus "op": "MultiHeadAttention". Shapes, masks and weights
vary with the case index and are seeded, so the same torch version regenerates the same files.

Needs PyTorch (Debian: python3-torch, 1.13); the test suite itself only reads the JSON files.

    tests/gen_torch_mha_cases.py [--out tests/data/torch-mha] [--count 240] [--seed 1234]
"""
import argparse
import json
import math
import os
import random

import torch

# (embed_dim E, num_heads H): several head counts, head widths 1 to 4, all small.
EMBED_HEADS = [(4, 1), (4, 2), (4, 4), (6, 2), (6, 3), (8, 1), (8, 2), (8, 4), (12, 3), (12, 4)]
MASK_KINDS = ["none", "float2d", "bool2d", "float3d", "bool3d"]
PADDING_KINDS = ["none", "bool", "float"]


def float_text(x):
    """A float32 value as JSON: 9 significant digits round-trip exactly; non-finite as strings."""
    if math.isnan(x):
        return '"nan"'
    if math.isinf(x):
        return '"inf"' if x > 0 else '"-inf"'
    return "%.9g" % x


def tensor_json(t):
    """{"dims", "dtype", "data"} text for a float32 or bool tensor, data flat row-major."""
    flat = t.detach().reshape(-1).tolist()
    if t.dtype == torch.bool:
        dtype, data = "bool", ",".join("true" if v else "false" for v in flat)
    else:
        dtype, data = "float32", ",".join(float_text(v) for v in flat)
    return '{"dims":%s,"dtype":"%s","data":[%s]}' % (json.dumps(list(t.shape)), dtype, data)


def case_json(name, num_heads, inputs, outputs):
    def tensors(named):
        return ",".join('"%s":%s' % (k, tensor_json(v)) for k, v in named.items())

    return ('{"name":"%s","op":"MultiHeadAttention","attributes":{"num_heads":%d,"batch_first":1},'
            '"inputs":{%s},"outputs":{%s}}\n' % (name, num_heads, tensors(inputs), tensors(outputs)))


def padded_keys(rng, N, S):
    """Per batch item, how many trailing keys are padding: always at least one real key."""
    return [rng.randrange(0, S) if rng.random() < 0.7 else 0 for _ in range(N)]


def make_mask(rng, gen, kind, N, H, L, S, always_open):
    """An attn_mask of `kind`; every query row keeps key `always_open[row]` open, so no row is
    fully masked (torch 1.13 returns NaN there, the engine zeros: not comparable)."""
    if kind == "none":
        return None
    planes = N * H if kind.endswith("3d") else 1
    if kind.startswith("bool"):
        blocked = torch.rand(planes, L, S, generator=gen) < 0.35  # true = may NOT attend
        for row in range(L):
            blocked[:, row, always_open[row]] = False
        mask = blocked
    else:
        mask = torch.randn(planes, L, S, generator=gen) * 2.0
        # Some float masks also forbid entries with -inf, like a bool mask would.
        if rng.random() < 0.5:
            forbid = torch.rand(planes, L, S, generator=gen) < 0.25
            for row in range(L):
                forbid[:, row, always_open[row]] = False
            mask = mask.masked_fill(forbid, float("-inf"))
    return mask if kind.endswith("3d") else mask[0]


def make_case(index, seed):
    rng = random.Random(seed * 100003 + index)
    gen = torch.Generator().manual_seed(seed * 100003 + index)
    E, H = EMBED_HEADS[index % len(EMBED_HEADS)]
    N = rng.randint(1, 3)
    # Single-token queries and single-key cross-attention every few cases, otherwise small random.
    L = 1 if index % 8 == 0 else rng.randint(1, 6)
    self_attention = index % 8 not in (0, 1) and rng.random() < 0.35
    S = L if self_attention else (1 if index % 8 == 1 else rng.randint(1, 7))
    bias = rng.random() >= 0.3
    mask_kind = MASK_KINDS[(index // 2) % len(MASK_KINDS)]
    padding_kind = PADDING_KINDS[(index // 3) % len(PADDING_KINDS)]
    # torch 1.13 accepts a float key_padding_mask only without an attn_mask (it masked_fills with it).
    if padding_kind == "float" and mask_kind != "none":
        padding_kind = "bool"

    module = torch.nn.MultiheadAttention(E, H, bias=bias, batch_first=True).eval()
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn(p.shape, generator=gen) * (1.0 / math.sqrt(E)) * 1.5)
    query = torch.randn(N, L, E, generator=gen)
    # Self-attention passes copies: with `query is key is value` torch 1.13 takes its native fast
    # path, whose masking differs (NaN rows with a float key_padding_mask).
    key = query.clone() if self_attention else torch.randn(N, S, E, generator=gen)
    value = query.clone() if self_attention else torch.randn(N, S, E, generator=gen)

    pads = padded_keys(rng, N, S) if padding_kind != "none" else [0] * N
    real_keys = S - max(pads)  # keys no batch item pads away
    always_open = [rng.randrange(real_keys) for _ in range(L)]
    attn_mask = make_mask(rng, gen, mask_kind, N, H, L, S, always_open)
    key_padding_mask = None
    if padding_kind != "none":
        is_pad = torch.zeros(N, S, dtype=torch.bool)
        for n, p in enumerate(pads):
            if p:
                is_pad[n, S - p:] = True
        if padding_kind == "bool":
            key_padding_mask = is_pad
        else:
            key_padding_mask = torch.randn(N, S, generator=gen).masked_fill(is_pad, float("-inf"))

    with torch.no_grad():
        out, weights = module(query, key, value, key_padding_mask=key_padding_mask,
                              attn_mask=attn_mask, need_weights=True, average_attn_weights=False)
    assert not torch.isnan(out).any() and not torch.isnan(weights).any(), "a fully masked row"

    inputs = {"query": query, "key": key, "value": value,
              "in_proj_weight": module.in_proj_weight, "out_proj_weight": module.out_proj.weight}
    if bias:
        inputs["in_proj_bias"] = module.in_proj_bias
        inputs["out_proj_bias"] = module.out_proj.bias
    if attn_mask is not None:
        inputs["attn_mask"] = attn_mask
    if key_padding_mask is not None:
        inputs["key_padding_mask"] = key_padding_mask
    parts = ["self" if self_attention else "cross", "E%dH%d" % (E, H), "L%dS%d" % (L, S)]
    parts += [] if mask_kind == "none" else ["mask_" + mask_kind]
    parts += [] if padding_kind == "none" else ["kpm_" + padding_kind]
    parts += [] if bias else ["nobias"]
    name = "torch_mha_%03d_%s" % (index, "_".join(parts))
    return name, case_json(name, H, inputs, {"attn_output": out, "attn_output_weights": weights})


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "data", "torch-mha"))
    parser.add_argument("--count", type=int, default=240)
    parser.add_argument("--seed", type=int, default=1234)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(args.seed)  # module construction draws from the global generator
    total = 0
    for index in range(args.count):
        name, text = make_case(index, args.seed)
        with open(os.path.join(args.out, name + ".json"), "w") as f:
            f.write(text)
        total += len(text)
    print("wrote %d cases, %.2f MB, to %s (torch %s)" % (args.count, total / 1e6, args.out,
                                                         torch.__version__))


if __name__ == "__main__":
    main()
