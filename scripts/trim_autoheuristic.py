#!/usr/bin/env python3
"""Trim a PyTorch Inductor AutoHeuristic mm dataset to the rows tilevolve replays by default.

Keeps the file's format (line 1 JSON, then the CSV with its header) and, of its rows, those
with both operands of one of the chosen dtypes and one of the chosen operand layouts (default:
all four, NN, NT, TN and TT); writes the distinct (M, N, K, dtype, layout) keys as a tilevolve
shape CSV (name,M,N,K,dtype,layout) named like ReplayBackend::shapes(), e.g.
h100:bf16:NT:M128:N4096:K4096.

  python3 scripts/trim_autoheuristic.py /work/shared/data/autoheuristic/h100_mm.txt \
      data/replay/h100_mm.txt data/replay/h100_shapes.csv --gpu h100

Options that make a large file small (the A100 tables; see data/replay/README.md):
  --one-layout NT,NN,TN,TT  one layout per (M, N, K, dtype): the first of the list the file has
  --exclude FILE            drop every (M, N, K) that another AutoHeuristic file has
  --max-keys N              keep N keys evenly spaced in (M, N, K, dtype, layout) order
  --medians                 one row per (key, config): the median of its repeated measurements
                            (of the finite ones; a config recorded only as inf keeps one inf
                            row), the value the replay backend takes from the full file

The output depends only on the input and the options. Standard library only.
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


def read(path):
    """(JSON line, header line, [(row dict, line)]) of an AutoHeuristic file."""
    with open(path, newline="") as f:
        first = f.readline()
        header_line = f.readline()
        rest = f.read()
    header = next(csv.reader([header_line]))
    lines = [line for line in rest.splitlines() if line.strip()]
    rows = [(dict(zip(header, fields)), line) for fields, line in zip(csv.reader(lines), lines)]
    return first, header_line, rows


def median(values):
    """The median as eval/replay_backend.cpp computes it (mean of the middle two if even)."""
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


def list_of(text, what, ap):
    items = LAYOUTS if text == "all" else tuple(text.split(","))
    if not set(items) <= set(LAYOUTS):
        ap.error(f"{what}: expected all or a list of {', '.join(LAYOUTS)}, got {text}")
    return items


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source")
    ap.add_argument("out_data")
    ap.add_argument("out_shapes")
    ap.add_argument("--gpu", default="h100", help="prefix of the shape names")
    ap.add_argument("--dtypes", default="bf16,f16")
    ap.add_argument("--layouts", default="all",
                    help="comma-separated operand layouts to keep (NN, NT, TN, TT) or all")
    ap.add_argument("--one-layout", default="",
                    help="keep one layout per (M, N, K, dtype): the first of this list present")
    ap.add_argument("--exclude", default="",
                    help="AutoHeuristic file whose (M, N, K) are dropped")
    ap.add_argument("--max-keys", type=int, default=0,
                    help="keep at most this many keys, evenly spaced in sorted order (0: all)")
    ap.add_argument("--medians", action="store_true",
                    help="write one row per (key, config) holding the median time")
    args = ap.parse_args()
    keep = set(args.dtypes.split(","))
    layouts = set(list_of(args.layouts, "--layouts", ap))
    prefer = list_of(args.one_layout, "--one-layout", ap) if args.one_layout else ()
    if args.max_keys < 0:
        ap.error("--max-keys must be 0 or positive")

    excluded = set()
    if args.exclude:
        _, _, other = read(args.exclude)
        excluded = {(int(r["m"]), int(r["n"]), int(r["k"])) for r, _ in other}

    first, header_line, rows = read(args.source)
    kept = []  # (key, row, line) with key = (dtype, layout, m, n, k)
    for row, line in rows:
        d1, d2 = DTYPES.get(row["mat1_dtype"]), DTYPES.get(row["mat2_dtype"])
        lay = layout(row)
        if d1 is None or d1 != d2 or d1 not in keep or lay not in layouts:
            continue
        m, n, k = int(row["m"]), int(row["n"]), int(row["k"])
        if (m, n, k) in excluded:
            continue
        kept.append(((d1, lay, m, n, k), row, line))

    keys = {key for key, _, _ in kept}
    if prefer:
        have = {}
        for d, lay, m, n, k in keys:
            have.setdefault((d, m, n, k), set()).add(lay)
        chosen = set()
        for (d, m, n, k), lays in have.items():
            first_pref = next((x for x in prefer if x in lays), None)
            if first_pref is not None:
                chosen.add((d, first_pref, m, n, k))
        keys = chosen
    if args.max_keys and len(keys) > args.max_keys:
        ordered = sorted(keys, key=lambda t: (t[0], t[2], t[3], t[4], t[1]))
        keys = {ordered[i * len(ordered) // args.max_keys] for i in range(args.max_keys)}
    kept = [x for x in kept if x[0] in keys]

    if args.medians:
        groups, order = {}, []
        for key, row, line in kept:
            g = (key, row["choice"])
            if g not in groups:
                groups[g] = []
                order.append(g)
            groups[g].append((row, line))
        lines = []
        for g in order:
            members = groups[g]
            finite = [(float(r["feedback"]), r["feedback"]) for r, _ in members
                      if r["feedback"] not in ("inf", "Infinity")]
            line = members[0][1]
            if finite:
                values = sorted(v for v, _ in finite)
                if len(values) % 2:  # the middle measurement, as written in the file
                    text = next(t for v, t in finite if v == values[len(values) // 2])
                else:
                    text = repr(median(values))
                head = line[:line.rindex(",") + 1]
                line = head + text
            lines.append(line)
    else:
        lines = [line for _, _, line in kept]

    with open(args.out_data, "w", newline="") as f:
        f.write(first)
        f.write(header_line)
        for line in lines:
            f.write(line + "\n")
    out = io.StringIO()
    out.write("name,M,N,K,dtype,layout\n")
    for d, lay, m, n, k in sorted(keys):
        out.write(f"{args.gpu}:{d}:{lay}:M{m}:N{n}:K{k},{m},{n},{k},{d},{lay}\n")
    with open(args.out_shapes, "w", newline="") as f:
        f.write(out.getvalue())
    print(f"{len(lines)} rows, {len(keys)} shapes", file=sys.stderr)


if __name__ == "__main__":
    main()
