#!/usr/bin/env python3
"""Writes the two ONNX models the onnxruntime peers run (web and node):

  mha_explicit.onnx  torch.onnx.export of an nn.Module: the four projections (nn.Linear, with biases),
                     then per head softmax(Q Kᵀ/√d_k) V as batched MatMul + Softmax, then Wo.
  mha_fused.onnx     the same projections as MatMul+Add around onnxruntime's fused contrib op
                     com.microsoft.MultiHeadAttention (num_heads=4), emitted by a symbolic function.

Both: fp32, input "x" of shape (1, n, 256) with n a dynamic axis, output "y" (1, n, 256); weights
seeded (torch.manual_seed(0)), the same in both files. Needs Debian's python3-torch (run with
/usr/bin/python3; the `onnx` Python package is not needed).

  /usr/bin/python3 bench/peers/export_onnx.py [OUT_DIR]     (default bench/.cache)
"""
import math
import os
import sys
import warnings

import torch
from torch import nn

D_MODEL = 256
HEADS = 4
OPSET = 17


class ExplicitMHA(nn.Module):
    def __init__(self):
        super().__init__()
        self.wq = nn.Linear(D_MODEL, D_MODEL)
        self.wk = nn.Linear(D_MODEL, D_MODEL)
        self.wv = nn.Linear(D_MODEL, D_MODEL)
        self.wo = nn.Linear(D_MODEL, D_MODEL)

    def forward(self, x):  # x: (1, n, d)
        d_k = D_MODEL // HEADS
        q = self.wq(x).reshape(-1, HEADS, d_k).transpose(0, 1)   # (h, n, d_k)
        k = self.wk(x).reshape(-1, HEADS, d_k).permute(1, 2, 0)  # (h, d_k, n)
        v = self.wv(x).reshape(-1, HEADS, d_k).transpose(0, 1)   # (h, n, d_k)
        weights = torch.softmax(torch.matmul(q, k) * (1.0 / math.sqrt(d_k)), dim=-1)
        heads = torch.matmul(weights, v).transpose(0, 1).reshape(1, -1, D_MODEL)
        return self.wo(heads)


class FusedAttention(torch.autograd.Function):
    """Only for export: onnxruntime's com.microsoft.MultiHeadAttention (scale 1/√d_k by default)."""

    @staticmethod
    def forward(ctx, q, k, v):  # the same math, so export can trace through it
        d_k = D_MODEL // HEADS
        split = lambda t: t.reshape(t.shape[0], -1, HEADS, d_k).transpose(1, 2)
        w = torch.softmax(split(q) @ split(k).transpose(-1, -2) / math.sqrt(d_k), dim=-1)
        return (w @ split(v)).transpose(1, 2).reshape(q.shape)

    @staticmethod
    def symbolic(g, q, k, v):
        out = g.op("com.microsoft::MultiHeadAttention", q, k, v, num_heads_i=HEADS)
        out.setType(q.type())
        return out


class FusedMHA(nn.Module):
    def __init__(self, explicit):
        super().__init__()
        self.m = explicit

    def forward(self, x):
        m = self.m
        return m.wo(FusedAttention.apply(m.wq(x), m.wk(x), m.wv(x)))


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, ".cache")
    os.makedirs(out_dir, exist_ok=True)
    # torch cannot infer the contrib op's output shape; setType above gives it, the warning is noise.
    warnings.filterwarnings("ignore", message="The shape inference of com.microsoft")
    warnings.filterwarnings("ignore", message=".*_graph_op' is deprecated", category=FutureWarning)
    torch.manual_seed(0)
    explicit = ExplicitMHA().eval()
    fused = FusedMHA(explicit).eval()
    x = torch.randn(1, 8, D_MODEL)
    with torch.no_grad():
        gap = (explicit(x) - fused(x)).abs().max().item()
        assert gap < 1e-5, f"the fused module's math differs from the explicit one by {gap}"
    common = dict(input_names=["x"], output_names=["y"], opset_version=OPSET,
                  dynamic_axes={"x": {1: "n"}, "y": {1: "n"}}, do_constant_folding=True)
    for name, module, extra in (("mha_explicit", explicit, {}),
                                ("mha_fused", fused, {"custom_opsets": {"com.microsoft": 1}})):
        path = os.path.join(out_dir, name + ".onnx")
        tmp = path + ".tmp"
        torch.onnx.export(module, (x,), tmp, **common, **extra)
        os.replace(tmp, path)
        print(f"export_onnx: wrote {os.path.relpath(path)}", file=sys.stderr)


if __name__ == "__main__":
    main()
