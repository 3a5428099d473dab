"""attnlab's exports against the PyTorch snippets of docs/pytorch.md (ctest learn.export_torch).

  export_check.py SOURCE DIR --learn NAME... --lm NAME

SOURCE is the repository: every docs/snippets/*.py must appear verbatim in docs/pytorch.md (in a
```python block), so the doc shows exactly the code run here. DIR holds what
tests/export_torch_test.cmake wrote:
  NAME.safetensors, NAME.config.json   `attnlab train --save` (--learn) or `attnlab lm --save` (--lm)
  NAME.train.json   `attnlab train --json`'s final line (the held-out accuracy it printed)
  NAME.probe.safetensors   attn_learn_probe: the held-out sequences and attnlab's logits on them
  NAME.lm.json   `attnlab lm --ids … --top 100 --json`: attnlab's probabilities

The bound (float32 against a float64 reference on the same weights, the derivation of
tests/train/lm_checkpoint_test.cpp): with u = 2⁻²⁴, a dot product of length K is off by about
√K·u·Σ|terms| (Higham & Mary's probabilistic bound), a logit passes through S such stages (per
block: LN, q|k|v, q·k, weights·v, c_proj, and with an MLP LN, c_fc, c_proj; then LN_f and the
read-out), LayerNorm's 1/σ and the softmax amplify by at most ~10: 10·S·√K·u·max(1, max|logit|),
K the longest product (4d with an MLP, else d). The snippets as the doc runs them (float32 weights,
float32 arithmetic) round on both sides: twice that.
"""
import json
import math
import pathlib
import sys

import torch

U = 2.0 ** -24


def relative_bound(stages, k):
    return 10 * stages * math.sqrt(k) * U


def check_doc(source):
    doc = (source / "docs" / "pytorch.md").read_text()
    files = sorted((source / "docs" / "snippets").glob("*.py"))
    assert files, "no docs/snippets/*.py"
    for f in files:
        assert "```python\n" + f.read_text() + "```" in doc, f"docs/pytorch.md does not hold {f.name} verbatim"
    print(f"docs/pytorch.md holds {len(files)} snippets verbatim")


def as_double(w):
    return {name: t.double() for name, t in w.items()}


def check_learn(directory, name, load_safetensors, learn_logits):
    w, _ = load_safetensors(directory / f"{name}.safetensors")
    config = json.load(open(directory / f"{name}.config.json"))
    probe, counts = load_safetensors(directory / f"{name}.probe.safetensors")
    printed = json.load(open(directory / f"{name}.train.json"))["held_out"]
    ids, targets, weights = (probe[k].long() for k in ("ids", "targets", "weights"))
    theirs = probe["logits"].double()
    ours64 = torch.cat([learn_logits(as_double(w), config, row.tolist()) for row in ids])
    ours32 = torch.cat([learn_logits(w, config, row.tolist()) for row in ids]).double()
    d, mlp = config["n_embd"], config["mlp"]
    stages = config["n_layer"] * (8 if mlp else 5) + 2
    bound = relative_bound(stages, 4 * d if mlp else max(d, config["n_positions"])) * max(1.0, theirs.abs().max().item())
    worst64, worst32 = (theirs - ours64).abs().max().item(), (theirs - ours32).abs().max().item()
    # The held-out accuracy: the snippet's predictions against the targets, where scored. A prediction
    # may differ from attnlab's only where its two best logits are closer than the difference allows.
    scored = weights.flatten() > 0
    correct = int(((ours64.argmax(-1) == targets.flatten()) & scored).sum())
    top2 = theirs.topk(2, -1).values
    near_ties = int(((top2[:, 0] - top2[:, 1] < 2 * bound) & scored).sum())
    attnlab_correct = round(printed["accuracy"] * printed["positions"])
    print(f"[ export ] {name:22s} {config['task']:9s} {config['positions']:10s} mlp={mlp!s:5s} "
          f"ln={config['layer_norm']!s:5s} max |Δ logit| {worst64:.2e} (f64 ref; bound {bound:.2e}), "
          f"{worst32:.2e} (the f32 snippet; bound {2 * bound:.2e}); held-out accuracy {correct}/{int(scored.sum())} "
          f"= {correct / int(scored.sum()):.6g}, attnlab train printed {printed['accuracy']:.6g} over {printed['positions']}")
    assert worst64 <= bound and worst32 <= 2 * bound, name
    assert printed["positions"] == int(scored.sum()) == int(counts["scored"]), name
    assert int(counts["correct"]) == attnlab_correct, f"{name}: the probe's count differs from attnlab train's accuracy"
    assert abs(correct - attnlab_correct) <= near_ties, f"{name}: {correct} right, attnlab {attnlab_correct}"


def check_lm(directory, name, load_safetensors, lm_logits):
    w, _ = load_safetensors(directory / f"{name}.safetensors")
    config = json.load(open(directory / f"{name}.config.json"))
    printed = json.load(open(directory / f"{name}.lm.json"))
    logits64 = lm_logits(as_double(w), config, printed["ids"])
    logits32 = lm_logits(w, config, printed["ids"]).double()
    stages = config["n_layer"] * 8 + 2
    bound = relative_bound(stages, 4 * config["n_embd"]) * max(1.0, logits64.abs().max().item())
    worst = {}
    for label, logits in (("f64", logits64), ("f32", logits32)):
        log_p = logits.log_softmax(-1)
        dlog = dp = 0.0
        for t, top in enumerate(printed["top"]):
            for entry in top:
                ours = log_p[t, entry["id"]].item()
                dlog = max(dlog, abs(ours - math.log(entry["p"])))
                dp = max(dp, abs(math.exp(ours) - entry["p"]))
        worst[label] = (dlog, dp)
    # log p = z − logsumexp(z) moves by at most twice the largest logit's error (+ p's float rounding).
    allowed = 2 * bound + 2 * U
    print(f"[ export ] {name:22s} lm: {len(printed['ids'])} positions × top {len(printed['top'][0])}: "
          f"max |Δ log p| {worst['f64'][0]:.2e} (f64 ref; bound {allowed:.2e}), {worst['f32'][0]:.2e} "
          f"(the f32 snippet; bound {2 * allowed:.2e}); max |Δ p| {worst['f64'][1]:.2e} / {worst['f32'][1]:.2e}")
    assert worst["f64"][0] <= allowed and worst["f32"][0] <= 2 * allowed, name


def main(argv):
    source, directory = pathlib.Path(argv[1]), pathlib.Path(argv[2])
    check_doc(source)
    sys.path.insert(0, str(source / "docs" / "snippets"))
    from attnlab_torch import load_safetensors
    from learn_logits import learn_logits
    from lm_logits import lm_logits
    learn = argv[argv.index("--learn") + 1:argv.index("--lm")]
    for name in learn:
        check_learn(directory, name, load_safetensors, learn_logits)
    check_lm(directory, argv[argv.index("--lm") + 1], load_safetensors, lm_logits)


if __name__ == "__main__":
    torch.set_grad_enabled(False)
    main(sys.argv)
