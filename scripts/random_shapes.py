#!/usr/bin/env python3
"""Writes a shape set of random GEMMs (the CSV format of data/shapes/README.md) to stdout.

M (tokens) is drawn from 25 token counts: the powers of two 1..16384 and 1.5 x the powers of two
24..12288; N and K are multiples of 128, log-uniform between 256 and 65536. Every (M, N, K) is
distinct, all bf16, weight 1. Same --seed, same file.

  python3 scripts/random_shapes.py --count 5000 --seed 0 > data/shapes/random5000.csv

Standard library only.
"""
import argparse
import math
import random

TOKEN_COUNTS = sorted([2**k for k in range(15)] + [3 * 2**k for k in range(3, 13)])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    if not 1 <= a.count <= 1_000_000:
        ap.error("--count must be from 1 to 1000000")
    rng = random.Random(a.seed)
    lo, hi = math.log(256 // 128), math.log(65536 // 128)
    dim = lambda: 128 * round(math.exp(rng.uniform(lo, hi)))
    print(f"# {a.count} random GEMMs (scripts/random_shapes.py --count {a.count} --seed {a.seed}):")
    print("# M from 25 token counts (powers of two 1..16384 and 1.5 x powers of two 24..12288),")
    print("# N and K multiples of 128, log-uniform in [256, 65536]; bf16, weight 1.")
    print("name,M,N,K,dtype")
    seen = set()
    while len(seen) < a.count:
        shape = (rng.choice(TOKEN_COUNTS), dim(), dim())
        if shape in seen:
            continue
        seen.add(shape)
        m, n, k = shape
        print(f"random:{len(seen) - 1}:M{m},{m},{n},{k},bf16")


if __name__ == "__main__":
    main()
