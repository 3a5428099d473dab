#!/usr/bin/env python3
"""One training step of attnlab's language model (engine/train/include/attn/train/lm_model.h) in
PyTorch 1.13, one thread, fp32: the same shapes (vocab 4096, 4 layers of 4 heads, d_model 128,
context 64, pre-LN, GELU tanh MLP of width 512, output tied to the embedding, learned positions), the
same batch (16 windows of 64 words), Adam. Prints one JSON line {"impl", "tokens_per_s", "ms_per_step",
"steps", "blas"}; attnlab's side is bench/attnlab_bench.cpp --lm-train.

  /usr/bin/python3 bench/peers/torch_lm_train.py [--steps 20]

BLAS: as bench/peers/torch_mha.py (whose helpers this imports), OpenBLAS serial is preloaded when
the process would otherwise call the reference BLAS.
"""
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_mha import mapped_blas, reexec_with_openblas  # noqa: E402

VOCAB, LAYERS, HEADS, D, T, BATCH = 4096, 4, 4, 128, 64, 16


def build(torch):
    nn, F = torch.nn, torch.nn.functional

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(D), nn.LayerNorm(D)
            self.qkv, self.out = nn.Linear(D, 3 * D), nn.Linear(D, D)
            self.fc, self.proj = nn.Linear(D, 4 * D), nn.Linear(4 * D, D)

        def forward(self, x, mask):
            b, t, _ = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(D, dim=2)
            q, k, v = (m.view(b, t, HEADS, D // HEADS).transpose(1, 2) for m in (q, k, v))
            w = torch.softmax((q @ k.transpose(-2, -1)) / math.sqrt(D // HEADS) + mask, dim=-1)
            x = x + self.out((w @ v).transpose(1, 2).reshape(b, t, D))
            return x + self.proj(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(VOCAB, D), nn.Embedding(T, D)
            self.blocks = nn.ModuleList(Block() for _ in range(LAYERS))
            self.lnf = nn.LayerNorm(D)
            self.out_b = nn.Parameter(torch.zeros(VOCAB))
            self.register_buffer("mask", torch.full((T, T), float("-inf")).triu(1))

        def forward(self, ids):
            x = self.wte(ids) + self.wpe.weight[: ids.shape[1]]
            for block in self.blocks:
                x = block(x, self.mask)
            return self.lnf(x) @ self.wte.weight.T + self.out_b

    return Model()


def main():
    steps = int(sys.argv[sys.argv.index("--steps") + 1]) if "--steps" in sys.argv else 20
    import torch
    reexec_with_openblas()
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    torch.manual_seed(1)
    model = build(torch)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, betas=(0.9, 0.99), weight_decay=0.1)
    ids = torch.randint(0, VOCAB, (BATCH, T + 1))

    def step():
        logits = model(ids[:, :-1])
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, VOCAB), ids[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()

    for _ in range(3):
        step()
    start = time.perf_counter()
    for _ in range(steps):
        step()
    seconds = time.perf_counter() - start
    print(json.dumps({"impl": "pytorch", "tokens_per_s": round(steps * BATCH * T / seconds),
                      "ms_per_step": round(1e3 * seconds / steps, 1), "steps": steps, "blas": mapped_blas()}))


if __name__ == "__main__":
    main()
