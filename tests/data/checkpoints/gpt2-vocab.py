"""A GPT-2-vocabulary checkpoint for `attnlab lm --prompt` (tests/cli_lm_test.cmake): vocab_size
50,257 and no attnlab vocabulary, so the CLI tokenizes with GPT-2's BPE. Tiny otherwise (n_embd 4,
1 layer, 1 head, 32 positions, BF16), and wte is zero but for a few rows, so the committed archive
(gpt2-vocab-bf16.tar.gz, the test extracts it) is a few KB for a 400 KB file. Plain Python, no torch
or numpy; deterministic. Its predictions mean nothing: the test checks the plumbing (text -> GPT-2
ids -> the model -> decoded tokens).

Usage: python3 tests/data/checkpoints/gpt2-vocab.py tests/data/checkpoints
"""
import gzip
import io
import json
import math
import os
import struct
import sys
import tarfile

V, T, D = 50257, 32, 4
# Rows of wte that are not zero: " the", "\xE2" (a byte of a cut character), "\n\n", ".", " world",
# "Hello", '"' (JSON escapes it).
ROWS = [262, 158, 628, 13, 995, 15496, 1]


def bf16(x):
    return struct.unpack("<I", struct.pack("<f", x))[0] >> 16  # truncation: exact for the values below


def value(seed, i):
    return round(math.sin(seed * 12.9898 + i * 78.233) * 4) / 8  # multiples of 1/8: exact in BF16


def main():
    tensors = {}
    wte = [0.0] * (V * D)
    for k, row in enumerate(ROWS):
        for j in range(D):
            wte[row * D + j] = value(k + 1, j) + (1.0 if j == k % D else 0.0)
    tensors["wte.weight"] = ([V, D], wte)
    tensors["wpe.weight"] = ([T, D], [value(100, i) for i in range(T * D)])
    shapes = {"ln_1.weight": [D], "ln_1.bias": [D], "attn.c_attn.weight": [D, 3 * D], "attn.c_attn.bias": [3 * D],
              "attn.c_proj.weight": [D, D], "attn.c_proj.bias": [D], "ln_2.weight": [D], "ln_2.bias": [D],
              "mlp.c_fc.weight": [D, 4 * D], "mlp.c_fc.bias": [4 * D], "mlp.c_proj.weight": [4 * D, D],
              "mlp.c_proj.bias": [D]}
    for s, (name, shape) in enumerate(shapes.items()):
        n = math.prod(shape)
        values = [1.0] * n if name.endswith("ln_1.weight") or name.endswith("ln_2.weight") else \
            [value(200 + s, i) for i in range(n)]
        tensors["h.0." + name] = (shape, values)
    tensors["ln_f.weight"] = ([D], [1.0] * D)
    tensors["ln_f.bias"] = ([D], [0.0] * D)
    header, data = {"__metadata__": {"format": "pt"}}, b""
    for name, (shape, values) in tensors.items():
        raw = struct.pack(f"<{len(values)}H", *[bf16(v) for v in values])
        header[name] = {"dtype": "BF16", "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    blob = struct.pack("<Q", len(text)) + text + data
    out = sys.argv[1]
    # gzip's own mtime 0 too: the same bytes on every run.
    with gzip.GzipFile(os.path.join(out, "gpt2-vocab-bf16.tar.gz"), "wb", mtime=0) as gz, \
            tarfile.open(fileobj=gz, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        info = tarfile.TarInfo("gpt2-vocab-bf16.safetensors")
        info.size, info.mtime, info.mode = len(blob), 0, 0o644
        tar.addfile(info, io.BytesIO(blob))
    config = {"model_type": "gpt2", "vocab_size": V, "n_positions": T, "n_ctx": T, "n_embd": D, "n_layer": 1,
              "n_head": 1, "layer_norm_epsilon": 1e-05, "activation_function": "gelu_new"}
    with open(os.path.join(out, "gpt2-vocab-bf16.config.json"), "w") as f:
        f.write(json.dumps(config, indent=2) + "\n")


if __name__ == "__main__":
    main()
