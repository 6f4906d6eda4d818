#!/usr/bin/env python3
"""Writes the GEMMs of tilevolve's model presets as one shape CSV (data/shapes/README.md format)
to stdout, each with weight 1: the shapes `--preset NAME` gives, for several presets at once
(e.g. a test set of models the training shapes do not come from).

  python3 scripts/preset_shapes.py --tilevolve build/tilevolve \\
      --exclude data/shapes/lecture.csv \\
      llama3-405b qwen2.5-7b qwen2.5-72b mixtral-8x7b deepseek-v3 gemma2-27b \\
      > data/shapes/six_models.csv

The shapes come from `tilevolve baselines --preset NAME --split none --json` (its per-shape
list), so they are exactly what the presets define. --exclude FILE drops every GEMM whose
(M, N, K) is in that shape CSV (e.g. the training set: Mixtral's attention and expert GEMMs
are Llama-3 8B's). Standard library only.
"""
import argparse
import csv
import json
import os
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tilevolve", default="build/tilevolve", help="the tilevolve binary")
    ap.add_argument("--tokens", help="token counts M (the presets' default when not given)")
    ap.add_argument("--exclude", help="shape CSV whose (M, N, K) are left out")
    ap.add_argument("presets", nargs="+")
    a = ap.parse_args()
    excluded = set()
    if a.exclude:
        with open(a.exclude) as f:
            rows = [line for line in f if line.strip() and not line.startswith("#")]
        excluded = {(int(r["M"]), int(r["N"]), int(r["K"])) for r in csv.DictReader(rows)}
    print(f"# The GEMMs of the model presets {', '.join(a.presets)} (scripts/preset_shapes.py),")
    print("# one forward pass per token count" + (f" ({a.tokens})" if a.tokens else "") +
          "; bf16, weight 1" +
          (f"; without the (M, N, K) of {os.path.basename(a.exclude)}." if a.exclude else "."))
    print("name,M,N,K,dtype")
    seen = set()
    for preset in a.presets:
        cmd = [a.tilevolve, "baselines", "--gpu", "h100", "--preset", preset, "--split", "none",
               "--json"] + (["--tokens", a.tokens] if a.tokens else [])
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"preset_shapes: {' '.join(cmd)} failed: {run.stderr.strip()}")
        for s in json.loads(run.stdout)["per_shape"]:
            if s["shape"] in seen:
                sys.exit(f"preset_shapes: shape {s['shape']} appears twice")
            seen.add(s["shape"])
            if (s["M"], s["N"], s["K"]) in excluded:
                continue
            print(f"{s['shape']},{s['M']},{s['N']},{s['K']},bf16")


if __name__ == "__main__":
    main()
