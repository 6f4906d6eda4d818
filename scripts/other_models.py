#!/usr/bin/env python3
"""Writes data/shapes/other_models.csv (data/shapes/README.md format) to stdout: the GEMMs of
six model families neither the lecture nor the presets come from, at token counts that are not
powers of two, with each model's output projection (lm_head: N = the vocabulary, the widest
GEMM a decoder runs) at the decode and small-batch counts. A test set for transfer from the
lecture that no default of tilevolve was chosen on.

  python3 scripts/other_models.py > data/shapes/other_models.csv

The sizes are the models' public configurations (hidden size, intermediate size, query and
key/value heads, head size, vocabulary), unsharded, bf16, weight 1. A size that an earlier row
or a lecture shape (data/shapes/lecture.csv) already has is left out (e.g. mixtral-8x22b's
lm_head, the size of its gate_up).
"""
import os
import sys

# name: (hidden, intermediate, query heads, key/value heads, head size, vocabulary)
MODELS = {
    "phi3-mini": (3072, 8192, 32, 32, 96, 32064),
    "qwen2-1.5b": (1536, 8960, 12, 2, 128, 151936),
    "gemma2-9b": (3584, 14336, 16, 8, 256, 256000),
    "mixtral-8x22b": (6144, 16384, 48, 8, 128, 32768),
    "llama3.2-1b": (2048, 8192, 32, 8, 64, 128256),
    "mistral-nemo-12b": (5120, 14336, 32, 8, 128, 131072),
}
TOKENS = [1, 3, 8, 24, 48, 100, 200, 384, 768, 1500, 3000, 6144, 12288]
LM_HEAD_MAX_TOKENS = 512  # the output projection runs on the last token of each sequence


def main():
    if len(sys.argv) > 1:
        sys.exit("usage: other_models.py (no arguments; writes the CSV to stdout)")
    print("# The GEMMs of six model families the lecture and the presets do not come from")
    print("# (scripts/other_models.py); qkv, o, gate_up, down and lm_head as N x K; bf16")
    print("name,M,N,K")
    lecture = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "shapes",
                           "lecture.csv")
    seen = set()
    with open(lecture) as f:
        for line in f:
            fields = line.strip().split(",")
            if line.startswith("#") or len(fields) < 4 or not fields[1].isdigit():
                continue
            seen.add(tuple(int(x) for x in fields[1:4]))
    for model, (hidden, inter, q_heads, kv_heads, head, vocab) in MODELS.items():
        gemms = {"qkv": ((q_heads + 2 * kv_heads) * head, hidden), "o": (hidden, q_heads * head),
                 "gate_up": (2 * inter, hidden), "down": (hidden, inter), "lm_head": (vocab, hidden)}
        for op, (n, k) in gemms.items():
            for m in TOKENS:
                if (op == "lm_head" and m > LM_HEAD_MAX_TOKENS) or (m, n, k) in seen:
                    continue
                seen.add((m, n, k))
                print(f"{model}:{op}:M{m},{m},{n},{k}")


if __name__ == "__main__":
    main()
