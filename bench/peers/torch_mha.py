#!/usr/bin/env python3
"""PyTorch 1.13 CPU peer (Debian's python3-torch), one thread. Contract: see bench/peers/common.mjs.

  /usr/bin/python3 bench/peers/torch_mha.py --n 1024 --warmup-ms 1500 --reps 5 --variant mha

Variants (the bench reports the best per n), all in torch.inference_mode, fp32, batch 1, d_model 256,
4 heads, the four projections with biases:
  mha         nn.MultiheadAttention(batch_first=True)(x, x, x, need_weights=False): 1.13's fast path
              (torch._native_multi_head_attention, one packed QKV GEMM)
  functional  torch.nn.functional.multi_head_attention_forward (sequence-first, need_weights=False)
  explicit    F.linear projections, 1/√d_k folded into Q, then per head and per block of 512 query
              rows mm, softmax, mm (the scores stay (512, n)), F.linear

BLAS: Debian's torch calls libblas.so.3, which update-alternatives (or an LD_PRELOAD) may resolve to
the reference BLAS, about 20x slower. If the libblas.so.3 mapped after `import torch` is not OpenBLAS,
this script re-executes itself once with OpenBLAS serial (libopenblas0-serial) preloaded; the BLAS
libraries actually mapped are reported in the "blas" field.
"""
import glob
import json
import os
import statistics
import sys
import time

IMPL = "pytorch"
D_MODEL = 256
HEADS = 4
VARIANTS = ("mha", "functional", "explicit")


def openblas_preload():
    """The OpenBLAS serial libblas.so.3 to preload when the libblas.so.3 this process mapped (torch is
    imported by then) is not OpenBLAS; None when it is, when there is none, or after one re-exec."""
    if os.environ.get("ATTNLAB_BENCH_BLAS_REEXEC"):
        return None
    blas = [p for p in mapped_blas() if os.path.basename(p).startswith("libblas.so")]
    if blas and all("openblas" in p for p in blas):
        return None
    candidates = sorted(glob.glob("/usr/lib/*-linux-gnu/openblas-serial/libblas.so.3"))
    return candidates[0] if candidates else None


def reexec_with_openblas():
    """Runs this script again with OpenBLAS serial preloaded when openblas_preload() names it (call
    after `import torch`); returns when no re-exec is needed."""
    preload = openblas_preload()
    if preload:
        env = dict(os.environ, ATTNLAB_BENCH_BLAS_REEXEC="1",
                   LD_PRELOAD=(preload + " " + os.environ.get("LD_PRELOAD", "")).strip())
        sys.stdout.flush()
        os.execve(sys.executable, [sys.executable] + sys.argv, env)


def mapped_blas():
    """File names of the BLAS libraries mapped into this process."""
    names = set()
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            if "blas" in os.path.basename(path) or "blas" in os.path.dirname(path).rsplit("/", 1)[-1]:
                names.add(os.path.realpath(path))
    return sorted(names)


def peak_rss_mb():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    return None


def make_input(n, d=D_MODEL):
    """(n, d) uniform in [-1, 1): xorshift32 seeded 0x9E3779B9, the same numbers as common.mjs."""
    from array import array
    out = array("f", bytes(4 * n * d))
    s = 0x9E3779B9
    mask = 0xFFFFFFFF
    for i in range(n * d):
        s ^= (s << 13) & mask
        s ^= s >> 17
        s ^= (s << 5) & mask
        out[i] = (s >> 8) / 8388608.0 - 1.0
    return out


def parse_args(argv):
    args = {"n": 256, "warmup_ms": 1500.0, "reps": 5, "variant": "mha"}
    it = iter(argv)
    for key in it:
        value = next(it, None)
        if key == "--n":
            args["n"] = int(value)
        elif key == "--warmup-ms":
            args["warmup_ms"] = float(value)
        elif key == "--reps":
            args["reps"] = int(value)
        elif key == "--variant":
            args["variant"] = value
        else:
            raise ValueError(f"unknown argument {key}")
    if args["variant"] not in VARIANTS:
        raise ValueError(f"--variant must be one of {', '.join(VARIANTS)}")
    if args["n"] <= 0 or args["reps"] <= 0:
        raise ValueError("need --n > 0, --reps > 0")
    return args


def build(variant, n):
    import math
    import torch
    import torch.nn.functional as F

    torch.manual_seed(0)
    mha = torch.nn.MultiheadAttention(D_MODEL, HEADS, batch_first=True).eval()
    x = torch.frombuffer(make_input(n), dtype=torch.float32).reshape(1, n, D_MODEL)
    w_in, b_in = mha.in_proj_weight.detach(), mha.in_proj_bias.detach()
    w_out, b_out = mha.out_proj.weight.detach(), mha.out_proj.bias.detach()
    d_k = D_MODEL // HEADS

    if variant == "mha":
        return lambda: mha(x, x, x, need_weights=False)[0]
    if variant == "functional":
        xs = x.transpose(0, 1)  # (n, 1, d): sequence first
        return lambda: F.multi_head_attention_forward(
            xs, xs, xs, D_MODEL, HEADS, w_in, b_in, None, None, False, 0.0, w_out, b_out,
            training=False, need_weights=False)[0]
    # explicit: per head and per block of query rows, 2-D GEMMs, so the (rows, n) scores stay small
    scale = 1.0 / math.sqrt(d_k)
    wq, wk, wv = (w * s for w, s in zip(w_in.chunk(3), (scale, 1.0, 1.0)))
    bq, bk, bv = (b * s for b, s in zip(b_in.chunk(3), (scale, 1.0, 1.0)))
    x2 = x[0]
    rows = 512

    def explicit():
        q = F.linear(x2, wq, bq)                 # (n, d), pre-scaled by 1/√d_k
        kt = F.linear(x2, wk, bk).t().contiguous()  # (d, n)
        v = F.linear(x2, wv, bv)
        heads = torch.empty(n, D_MODEL)
        for h in range(HEADS):
            cols = slice(h * d_k, (h + 1) * d_k)
            for r in range(0, n, rows):
                weights = torch.softmax(torch.mm(q[r:r + rows, cols], kt[cols]), dim=-1)
                torch.mm(weights, v[:, cols], out=heads[r:r + rows, cols])
        return F.linear(heads, w_out, b_out)

    return explicit


def main():
    variant, n = None, None
    try:
        args = parse_args(sys.argv[1:])
        variant, n = args["variant"], args["n"]
        import torch  # noqa: F401 (maps the BLAS reexec_with_openblas looks at)
        reexec_with_openblas()
        torch.set_num_threads(1)
        torch.set_num_interop_threads(1)
        with torch.inference_mode():
            forward = build(variant, n)
            start = time.perf_counter()
            while True:
                y = forward()
                if (time.perf_counter() - start) * 1e3 >= args["warmup_ms"]:
                    break
            if y.numel() != n * D_MODEL or not torch.isfinite(y).all():
                raise RuntimeError("bad output")
            samples = []
            for _ in range(args["reps"]):
                t0 = time.perf_counter()
                forward()
                samples.append((time.perf_counter() - t0) * 1e3)
        blas = [os.path.basename(os.path.dirname(p)) + "/" + os.path.basename(p) for p in mapped_blas()]
        row = {"impl": IMPL, "variant": variant, "n": n, "ms": round(statistics.median(samples), 4),
               "samples": [round(s, 4) for s in samples], "peak_rss_mb": peak_rss_mb(),
               "version": torch.__version__, "blas": blas, "threads": torch.get_num_threads()}
    except Exception as e:  # noqa: BLE001 - every failure becomes a row the table can show
        row = {"impl": IMPL, "variant": variant, "n": n, "error": str(e).split("\n")[0][:300],
               "peak_rss_mb": peak_rss_mb()}
    print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
