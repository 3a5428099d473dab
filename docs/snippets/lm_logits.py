# The language model `attnlab lm --save` writes (GPT-2's names, weights (in, out): x @ W + b) on
# token ids:   python3 lm_logits.py model.safetensors model.config.json 12,7,310
import json
import sys

import torch
import torch.nn.functional as F

from attnlab_torch import attention, load_safetensors


def lm_logits(w, config, ids):
    """The next-token logits at every position.   ids: T ints -> (T, V)"""
    d, h, eps = config["n_embd"], config["n_head"], config["layer_norm_epsilon"]
    gelu = "tanh" if config["activation_function"] == "gelu_new" else "none"
    rope_base = 10000.0 if config.get("attnlab_positions") == "rope" else None
    ln = lambda x, name: F.layer_norm(x, (d,), w[name + ".weight"], w[name + ".bias"], eps)
    T = len(ids)
    x = w["wte.weight"][ids] + (0 if rope_base else w["wpe.weight"][:T])
    for l in range(config["n_layer"]):
        p = f"h.{l}."
        qkv = ln(x, p + "ln_1") @ w[p + "attn.c_attn.weight"] + w[p + "attn.c_attn.bias"]
        q, k, v = (t.reshape(T, h, d // h) for t in qkv.split(d, -1))
        x = x + attention(q, k, v, True, rope_base) @ w[p + "attn.c_proj.weight"] + w[p + "attn.c_proj.bias"]
        m = F.gelu(ln(x, p + "ln_2") @ w[p + "mlp.c_fc.weight"] + w[p + "mlp.c_fc.bias"], approximate=gelu)
        x = x + m @ w[p + "mlp.c_proj.weight"] + w[p + "mlp.c_proj.bias"]
    return ln(x, "ln_f") @ w["wte.weight"].T + w["lm_head.bias"]  # tied output, attnlab's bias


if __name__ == "__main__":
    w, metadata = load_safetensors(sys.argv[1])
    config = json.load(open(sys.argv[2]))
    words = metadata["attnlab.vocabulary"].split("\n")
    ids = [int(i) for i in sys.argv[3].split(",")]
    p = lm_logits(w, config, ids).softmax(-1)
    for t, i in enumerate(ids):
        top = p[t].topk(5)
        print(words[i], "->", "  ".join(f"{words[j]} {q:.4f}" for q, j in zip(top.values, top.indices)))
