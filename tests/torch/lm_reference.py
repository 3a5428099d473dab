"""An independent PyTorch implementation of attnlab's language model (engine/train/include/attn/train/
lm_model.h), in float64, reading the weights from the asset (web/assets/lm-brown.bin, layout in
lm_asset.h). It writes the logits of held-out windows for tests/train/lm_torch_test.cpp to compare
with the engine's float32 ones.

Usage: /usr/bin/python3 tests/torch/lm_reference.py ASSET SAMPLE OUT [WINDOWS]
  ASSET   web/assets/lm-brown.bin
  SAMPLE  tests/data/lm-brown-held-out-sample.txt (one window of words a line; lines from "#" skipped)
  OUT     the golden file (tests/data/lm-brown-torch-logits.txt)
  WINDOWS how many windows of the sample (default 4)

Nothing here is shared with the C++: the asset is parsed with struct, the layers are torch's own
(nn.functional.layer_norm, gelu(approximate="tanh"), softmax) or written from the formulas.

The golden file: a header line "# ..." then one line per (window, position):
  window position target logsumexp logit[target] logit[w] for w in PROBES
in %.10e; PROBES (the ids scored at every position) are on the header.
"""
import math
import struct
import sys

import torch

PROBES = [0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987, 1597, 2584, 4095]


def read_asset(path):
    data = open(path, "rb").read()
    if data[:8] != b"ATTNLM01":
        raise ValueError("not an ATTNLM01 asset")
    at = 8
    vocab, seq_len, d, layers, heads, positions, mlp = struct.unpack_from("<7I", data, at)
    at += 28
    (words_len,) = struct.unpack_from("<I", data, at)
    at += 4
    words = data[at:at + words_len].decode("ascii").split("\n")
    at += words_len + (4 - words_len % 4) % 4
    (count,) = struct.unpack_from("<I", data, at)
    at += 4
    tensors = []
    for _ in range(count):
        rows, cols, encoding = struct.unpack_from("<3I", data, at)
        at += 12
        if encoding == 0:
            t = torch.frombuffer(bytearray(data[at:at + 4 * rows * cols]), dtype=torch.float32).reshape(rows, cols)
            at += 4 * rows * cols
        else:
            scales = torch.frombuffer(bytearray(data[at:at + 4 * rows]), dtype=torch.float32).reshape(rows, 1)
            at += 4 * rows
            q = torch.frombuffer(bytearray(data[at:at + rows * cols]), dtype=torch.int8).reshape(rows, cols)
            at += rows * cols + (4 - (rows * cols) % 4) % 4
            t = scales * q.to(torch.float32)  # the asset's value: the float32 product s·q, exactly
        tensors.append(t.to(torch.float64))
    if at != len(data):
        raise ValueError("trailing bytes")
    config = dict(vocab=vocab, seq_len=seq_len, d=d, layers=layers, heads=heads, rope=positions == 3)
    return config, words, tensors


def unpack(config, tensors):
    it = iter(tensors)
    p = {"wte": next(it)}
    if not config["rope"]:
        p["wpe"] = next(it)
    names = ["ln1_g", "ln1_b", "wq", "wk", "wv", "wo", "bq", "bk", "bv", "bo", "ln2_g", "ln2_b", "fc_w", "fc_b",
             "proj_w", "proj_b"]
    p["blocks"] = [{n: next(it) for n in names} for _ in range(config["layers"])]
    p["lnf_g"], p["lnf_b"], p["out_b"] = next(it), next(it), next(it)
    return p


def rope(x, base=10000.0):
    """Rotates pairs (2t, 2t+1) of each row r of x (n, d_k) by r / base^(2t/d_k)."""
    n, dk = x.shape
    pos = torch.arange(n, dtype=torch.float64).unsqueeze(1)
    inv = base ** (-torch.arange(0, dk, 2, dtype=torch.float64) / dk)
    angle = pos * inv  # (n, d_k/2)
    cos, sin = torch.cos(angle), torch.sin(angle)
    a, b = x[:, 0::2], x[:, 1::2]
    out = torch.empty_like(x)
    out[:, 0::2] = a * cos - b * sin
    out[:, 1::2] = a * sin + b * cos
    return out


def forward(config, p, ids):
    n, d, h = len(ids), config["d"], config["heads"]
    dk = d // h
    x = p["wte"][torch.tensor(ids)]
    if not config["rope"]:
        x = x + p["wpe"][:n]
    causal = torch.ones(n, n, dtype=torch.bool).tril()
    for b in p["blocks"]:
        a = torch.nn.functional.layer_norm(x, (d,), b["ln1_g"][0], b["ln1_b"][0], eps=1e-5)
        q, k, v = a @ b["wq"] + b["bq"], a @ b["wk"] + b["bk"], a @ b["wv"] + b["bv"]
        heads = []
        for j in range(h):
            qj, kj, vj = (m[:, j * dk:(j + 1) * dk] for m in (q, k, v))
            if config["rope"]:
                qj, kj = rope(qj), rope(kj)
            scores = (qj @ kj.T) / math.sqrt(dk)
            scores = scores.masked_fill(~causal, float("-inf"))
            heads.append(torch.softmax(scores, dim=-1) @ vj)
        x = x + torch.cat(heads, dim=1) @ b["wo"] + b["bo"]
        m = torch.nn.functional.layer_norm(x, (d,), b["ln2_g"][0], b["ln2_b"][0], eps=1e-5)
        x = x + torch.nn.functional.gelu(m @ b["fc_w"] + b["fc_b"], approximate="tanh") @ b["proj_w"] + b["proj_b"]
    x = torch.nn.functional.layer_norm(x, (d,), p["lnf_g"][0], p["lnf_b"][0], eps=1e-5)
    return x @ p["wte"].T + p["out_b"]


def main():
    asset, sample, out = sys.argv[1:4]
    windows = int(sys.argv[4]) if len(sys.argv) > 4 else 4
    config, words, tensors = read_asset(asset)
    p = unpack(config, tensors)
    index = {w: i for i, w in enumerate(words[:-1])}
    lines = [l.split() for l in open(sample) if l.strip() and not l.startswith("#")][:windows]
    rows = []
    for wi, line in enumerate(lines):
        ids = [index.get(w, config["vocab"] - 1) for w in line]
        logits = forward(config, p, ids[:-1])
        lse = torch.logsumexp(logits, dim=1)
        for t in range(len(ids) - 1):
            target = ids[t + 1]
            values = [lse[t].item(), logits[t, target].item()] + [logits[t, w].item() for w in PROBES]
            rows.append(f"{wi} {t} {target} " + " ".join(f"{v:.10e}" for v in values))
    with open(out, "w") as f:
        f.write(f"# torch {torch.__version__} float64; probes {' '.join(map(str, PROBES))}\n")
        f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
