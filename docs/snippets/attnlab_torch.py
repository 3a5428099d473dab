# What both snippets share: the safetensors reader and the attention of attnlab's models.
import json
import math

import torch


def load_safetensors(path):
    """({name: float32 tensor}, metadata) of an F32 safetensors file: a little-endian u64 N,
    N bytes of JSON, then the raw little-endian tensors at the offsets the JSON gives."""
    data = open(path, "rb").read()
    n = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + n])
    metadata = header.pop("__metadata__", {})
    tensors = {}
    for name, t in header.items():
        assert t["dtype"] == "F32", f"{name}: {t['dtype']}"
        begin, end = t["data_offsets"]
        raw = bytearray(data[8 + n + begin:8 + n + end])
        tensors[name] = torch.frombuffer(raw, dtype=torch.float32).reshape(t["shape"])
    return tensors, metadata


def rope(x, base):
    """Rotates pairs (2i, 2i+1) of each head's row p by the angle p / base^(2i / d_k).   x: (h, T, d_k)"""
    T, dk = x.shape[-2:]
    angle = torch.arange(T, dtype=x.dtype)[:, None] / base ** (torch.arange(0, dk, 2, dtype=x.dtype) / dk)
    a, b = x[..., 0::2], x[..., 1::2]
    return torch.stack((a * angle.cos() - b * angle.sin(), a * angle.sin() + b * angle.cos()), -1).flatten(-2)


def attention(q, k, v, causal=True, rope_base=None):
    """softmax(q kᵀ / √d_k) v per head, each query seeing keys ≤ itself when causal.
    q, k, v: (T, h, d_k) -> (T, h·d_k), the heads side by side"""
    q, k, v = (t.transpose(0, 1) for t in (q, k, v))  # (h, T, d_k)
    if rope_base:
        q, k = rope(q, rope_base), rope(k, rope_base)
    T, dk = q.shape[-2:]
    scores = q @ k.transpose(-1, -2) / math.sqrt(dk)
    if causal:
        scores = scores.masked_fill(~torch.ones(T, T, dtype=torch.bool).tril(), float("-inf"))
    return (scores.softmax(-1) @ v).transpose(0, 1).reshape(T, -1)
