#!/usr/bin/env python3
"""Writes the GEMMs of tilevolve's model presets as one shape CSV (data/shapes/README.md format)
to stdout, each with weight 1: the shapes `--preset NAME` gives, for several presets at once
(e.g. a test set of models the training shapes do not come from).

  python3 scripts/preset_shapes.py --tilevolve build/tilevolve \\
      --exclude data/shapes/lecture.csv \\
      llama3-405b qwen2.5-7b qwen2.5-72b mixtral-8x7b deepseek-v3 gemma2-27b \\
      > data/shapes/six_models.csv

With `--tp 2,4,8` the presets are sharded as `--preset NAME --tp N` shards them, once per
degree (names carry it, e.g. `qwen2.5-72b-tp4:qkv:M16`); a preset that cannot be sharded that
way (heads not divisible) is left out and named in the header:

  python3 scripts/preset_shapes.py --tilevolve build/tilevolve \\
      --exclude data/shapes/lecture.csv --tp 2,4,8 \\
      llama3-405b qwen2.5-7b qwen2.5-72b mixtral-8x7b deepseek-v3 gemma2-27b llama3-70b \\
      > data/shapes/seven_models_tp.csv

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
    ap.add_argument("--tp", default="1",
                    help="tensor-parallel degrees, comma-separated (default 1: unsharded)")
    ap.add_argument("presets", nargs="+")
    a = ap.parse_args()
    try:
        degrees = [int(t) for t in a.tp.split(",")]
    except ValueError:
        sys.exit(f"preset_shapes: --tp {a.tp}: expected integers separated by commas")
    excluded = set()
    if a.exclude:
        with open(a.exclude) as f:
            rows = [line for line in f if line.strip() and not line.startswith("#")]
        excluded = {(int(r["M"]), int(r["N"]), int(r["K"])) for r in csv.DictReader(rows)}
    lines, skipped, seen, sizes = [], [], set(), set()
    for preset in a.presets:
        for tp in degrees:
            cmd = [a.tilevolve, "baselines", "--gpu", "h100", "--preset", preset, "--split",
                   "none", "--json"] + (["--tokens", a.tokens] if a.tokens else [])
            if tp != 1:
                cmd += ["--tp", str(tp)]
            run = subprocess.run(cmd, capture_output=True, text=True)
            if run.returncode != 0:
                if tp != 1 and "not divisible" in run.stderr:
                    skipped.append(f"{preset} at tp {tp}")
                    continue
                sys.exit(f"preset_shapes: {' '.join(cmd)} failed: {run.stderr.strip()}")
            for s in json.loads(run.stdout)["per_shape"]:
                if s["shape"] in seen:
                    sys.exit(f"preset_shapes: shape {s['shape']} appears twice")
                seen.add(s["shape"])
                size = (s["M"], s["N"], s["K"])
                # Each (M, N, K) once: a size two presets share is one GEMM to tune.
                if size in excluded or (len(degrees) > 1 and size in sizes):
                    continue
                sizes.add(size)
                lines.append(f"{s['shape']},{s['M']},{s['N']},{s['K']},bf16")
    print(f"# The GEMMs of the model presets {', '.join(a.presets)} (scripts/preset_shapes.py),")
    print("# one forward pass per token count" + (f" ({a.tokens})" if a.tokens else "") +
          (f", tensor parallelism {a.tp}" if a.tp != "1" else "") + "; bf16, weight 1" +
          (f"; without the (M, N, K) of {os.path.basename(a.exclude)}" if a.exclude else "") +
          ("; each (M, N, K) once" if len(degrees) > 1 else "") + ".")
    if skipped:
        print(f"# Left out (heads not divisible by the degree): {', '.join(skipped)}.")
    print("name,M,N,K,dtype")
    for line in lines:
        print(line)

if __name__ == "__main__":
    main()
