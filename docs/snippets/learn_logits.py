# The Learn view's model `attnlab train --save` writes (weights (in, out): x @ W + b) on a sequence
# of the task's tokens:   python3 learn_logits.py model.safetensors model.config.json "a 3 c 5 a"
import json
import sys

import torch
import torch.nn.functional as F

from attnlab_torch import attention, load_safetensors


def learn_logits(w, config, ids):
    """The logits over the task's classes at every position.   ids: T ints -> (T, C)"""
    d, h, dk, eps = config["n_embd"], config["n_head"], config["head_dim"], config["layer_norm_epsilon"]
    positions, base = config["positions"], config["position_base"]
    norm = lambda x, name: F.layer_norm(x, (d,), w[name + ".weight"], w[name + ".bias"], eps) if config["layer_norm"] else x
    T = len(ids)
    x = w["wte.weight"][ids]
    if positions == "learned":
        x = x + w["wpe.weight"][:T]
    if positions == "sinusoidal":  # PE(p)_{2i} = sin(p / base^(2i/d)), PE(p)_{2i+1} = cos(the same)
        c = torch.arange(d)
        angle = torch.arange(T, dtype=x.dtype)[:, None] / base ** ((c - c % 2) / d).to(x.dtype)
        x = x + torch.where(c % 2 == 0, angle.sin(), angle.cos())
    for l in range(config["n_layer"]):
        p = f"h.{l}."
        a = norm(x, p + "ln_1")
        q, k, v = ((a @ w[p + f"attn.{n}.weight"] + w[p + f"attn.{n}.bias"]).reshape(T, h, dk) for n in "qkv")
        heads = attention(q, k, v, config["causal"], base if positions == "rope" else None)
        x = x + heads @ w[p + "attn.c_proj.weight"] + w[p + "attn.c_proj.bias"]
        if config["mlp"]:
            m = torch.relu(norm(x, p + "ln_2") @ w[p + "mlp.c_fc.weight"] + w[p + "mlp.c_fc.bias"])
            x = x + m @ w[p + "mlp.c_proj.weight"] + w[p + "mlp.c_proj.bias"]
    return norm(x, "ln_f") @ w["head.weight"] + w["head.bias"]


if __name__ == "__main__":
    w, _ = load_safetensors(sys.argv[1])
    config = json.load(open(sys.argv[2]))
    tokens = sys.argv[3].split()
    ids = [config["tokens"].index(t) for t in tokens]
    predicted = learn_logits(w, config, ids).argmax(-1)
    print(" ".join(f"{t}->{config['class_tokens'][c]}" for t, c in zip(tokens, predicted)))
