#!/usr/bin/python3
"""Pairs the two runs of DIR/config.yaml (DIR/old and DIR/new: the builds
before and after a change of the float32 trainer's arithmetic) by
experiment and writes DIR/report.md: the final test log-likelihood of each
pair, the mean difference new − old per group with its standard error over
the seeds, and the MNIST training IS bound per epoch.

    /usr/bin/python3 docs/runs/paired-sbn-precision/pair.py gemm
    /usr/bin/python3 docs/runs/paired-sbn-precision/pair.py binary
"""
import json, math, os, sys

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), sys.argv[1])
# What old and new are, per directory: the report's title and first lines.
changes = {
    "gemm": ("Row sums vs float32 GEMMs", "sums of\nselected rows", "float32 GEMMs for the products with the latent\nstates"),
    "binary": ("Float32 GEMMs vs binary products", "float32\nGEMMs", "binary products (four Russians' tables) for the products\nwith the latent states"),
}
title, old, new = changes[sys.argv[1]]


def load(v):
    d = json.load(open(os.path.join(here, v, "results.json")))["estimates"]
    fin = {e["experiment"]: e for e in d if e["stage"] == "final"}
    ep = {}
    for e in d:
        if e["stage"] == "epoch" and e["estimator"] == "train":
            ep.setdefault(e["experiment"], {})[e["epoch"]] = e["value"]
    return fin, ep


(fo, eo), (fn, en) = load("old"), load("new")
out = [f"# {title} in the float32 adaptive-IS trainer, paired by seed", "",
       *f"Both runs of `config.yaml` (same seeds, data and draws), before (old: {old}) and after (new: {new}). Final test log-likelihood in nats: exact for the planted 20-6 nets, IS".split("\n"),
       "with 200 proposals on 500 test images for MNIST 784-200 after 2 epochs.", "",
       "| experiment | old | new | new − old |", "| --- | ---: | ---: | ---: |"]
groups = {}
for name in fo:
    a, b = fo[name]["mean_loglik"], fn[name]["mean_loglik"]
    se = fo[name]["loglik_se"]
    out.append(f"| {name} | {a:.4f} ± {se:.3f} | {b:.4f} | {b - a:+.6f} |")
    groups.setdefault(name.rsplit("-s", 1)[0], []).append(b - a)
out += ["", "| group | seeds | mean new − old | SE over seeds |", "| --- | ---: | ---: | ---: |"]
for g, ds in groups.items():
    n = len(ds)
    m = sum(ds) / n
    sd = math.sqrt(sum((x - m) ** 2 for x in ds) / (n - 1)) if n > 1 else float("nan")
    out.append(f"| {g} | {n} | {m:+.6f} | {sd / math.sqrt(n):.6f} |")
out += ["", "MNIST training IS bound per epoch (the `value` of each epoch in results.json):", "",
        "| experiment | epoch | old | new | new − old |", "| --- | ---: | ---: | ---: | ---: |"]
for name in sorted(eo):
    if not name.startswith("mnist"):
        continue
    for k in sorted(eo[name]):
        a, b = eo[name][k], en[name][k]
        out.append(f"| {name} | {k} | {a:.3f} | {b:.3f} | {b - a:+.3f} |")
open(os.path.join(here, "report.md"), "w").write("\n".join(out) + "\n")
print("\n".join(out))
