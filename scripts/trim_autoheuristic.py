#!/usr/bin/env python3
"""Trim a PyTorch Inductor AutoHeuristic mm dataset to the rows tilevolve replays by default.

Keeps the file's format (line 1 JSON, then the CSV with its header) and, of its rows, those
with both operands of one of the chosen dtypes and one of the chosen operand layouts (default:
all four, NN, NT, TN and TT); writes the distinct (M, N, K, dtype, layout) keys as a tilevolve
shape CSV (name,M,N,K,dtype,layout) named like ReplayBackend::shapes(), e.g.
h100:bf16:NT:M128:N4096:K4096.

  python3 scripts/trim_autoheuristic.py /work/shared/data/autoheuristic/h100_mm.txt \
      data/replay/h100_mm.txt data/replay/h100_shapes.csv --gpu h100

Standard library only.
"""
import argparse
import csv
import io
import sys

LAYOUTS = ("NN", "NT", "TN", "TT")
DTYPES = {"torch.bfloat16": "bf16", "torch.float16": "f16", "torch.float32": "f32"}


def letter(s0, s1, contig):
    """Layout letter of one operand, as eval/autoheuristic_data.cpp computes it."""
    if s1 == 1 and s0 != 1:
        return "N"
    if s0 == 1 and s1 != 1:
        return "T"
    if s0 == 1 and s1 == 1:
        return "N" if contig else "T"
    return "S"


def layout(row):
    a = letter(int(row["mat1_stride_0"]), int(row["mat1_stride_1"]),
               row.get("mat1_iscontig") == "True")
    b = letter(int(row["mat2_stride_0"]), int(row["mat2_stride_1"]),
               row.get("mat2_iscontig") == "True")
    return a + b


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source")
    ap.add_argument("out_data")
    ap.add_argument("out_shapes")
    ap.add_argument("--gpu", default="h100", help="prefix of the shape names")
    ap.add_argument("--dtypes", default="bf16,f16")
    ap.add_argument("--layouts", default="all",
                    help="comma-separated operand layouts to keep (NN, NT, TN, TT) or all")
    args = ap.parse_args()
    keep = set(args.dtypes.split(","))
    layouts = set(LAYOUTS if args.layouts == "all" else args.layouts.split(","))
    if not layouts <= set(LAYOUTS):
        ap.error(f"--layouts: expected all or a list of {', '.join(LAYOUTS)}, got {args.layouts}")

    with open(args.source, newline="") as f:
        first = f.readline()
        header_line = f.readline()
        rest = f.read()
    header = next(csv.reader([header_line]))
    kept_lines, shapes = [], set()
    for line in rest.splitlines():
        if not line.strip():
            continue
        row = dict(zip(header, next(csv.reader([line]))))
        d1, d2 = DTYPES.get(row["mat1_dtype"]), DTYPES.get(row["mat2_dtype"])
        lay = layout(row)
        if d1 is None or d1 != d2 or d1 not in keep or lay not in layouts:
            continue
        kept_lines.append(line)
        shapes.add((d1, lay, int(row["m"]), int(row["n"]), int(row["k"])))

    with open(args.out_data, "w", newline="") as f:
        f.write(first)
        f.write(header_line)
        for line in kept_lines:
            f.write(line + "\n")
    out = io.StringIO()
    out.write("name,M,N,K,dtype,layout\n")
    for d, lay, m, n, k in sorted(shapes):
        out.write(f"{args.gpu}:{d}:{lay}:M{m}:N{n}:K{k},{m},{n},{k},{d},{lay}\n")
    with open(args.out_shapes, "w", newline="") as f:
        f.write(out.getvalue())
    print(f"{len(kept_lines)} rows, {len(shapes)} shapes", file=sys.stderr)


if __name__ == "__main__":
    main()
