#!/usr/bin/env python3
r"""The broad panel a default is chosen on: the evolved heuristic against the decision tree on
every recorded table (real H100 and A100 timings, this repository's H200 and H100
measurements), over several windows of 20 random splits x 5 seeds each, and across shape sets
at many seeds; for one binary, or for two side by side (A/B) with the paired difference over
rows. One split, one seed or one table decides nothing; a change that moves the mean over all
of these by less than its standard error is noise.

  python3 scripts/ab_panel.py                                 # build/tilevolve's figures
  python3 scripts/ab_panel.py --base OLD/tilevolve            # OLD against build/tilevolve
  python3 scripts/ab_panel.py --base-args=--no-analytic-seed  # a flag off against the default
  python3 scripts/ab_panel.py --json base.json                # once: the default's figures
  python3 scripts/ab_panel.py --change NEW/tilevolve --base-json base.json   # then each try
  python3 scripts/ab_panel.py --windows 0,20,40 --transfer-seeds 20
  python3 scripts/ab_panel.py --shared ../shared/data/autoheuristic   # and the untrimmed tables
  python3 scripts/ab_panel.py --range --windows 0             # and the range splits
  python3 scripts/ab_panel.py --list                          # the rows and their commands

A row's figure is in points of the per-shape oracle: for a split study, the mean over its splits
of (evolved median over seeds - tree), the tree being the 8-leaf decision tree fitted on every
(shape, config) pair of the training half; for a transfer (train on one shape set, test on
another), the evolved median over seeds minus the tree; `--range` adds for each table the mean over
its eight range splits (`splits --split range`: train on the shapes at one end of M*N*K, M, N or
K, test on the other end, the extrapolation a deployment asks of a heuristic) of the same gap to
the tree. `--shared DIR` adds rows of the untrimmed
public A100 tables kept outside the repository (DIR holds a100_hf_train_mm.txt,
a100_timm_train_mm.txt and a100_mm.txt of the AutoHeuristic dataset). The summary gives, per
kind of row, the mean figure of each side and, with two sides, how many rows went up and down
(by at least 0.005 points) and the mean paired difference with its standard error over rows,
then the difference per table, one figure per window. `--base-json FILE` takes the base side's
figures from an earlier `--json` of this script (its judged side, "change") instead of running
them: a default measured once, then each prototype against it, at half the time; FILE must hold
every chosen row (the same --windows, --transfer-seeds, --shared and --range).
Both sides with the defaults take about 70 s on a 2-core machine; --shared adds about a minute.
Exit status 0 when every command ran, 1 when one failed, 2 for bad options. Standard library
only.
"""

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPLAY = "data/replay"
SAME = 0.005  # points: a row that moved less than this did not move

# The public A100 tables (data/replay/README.md): each shape set's timings and shapes.
A100 = {"random": ("a100_mm.txt", "a100_shapes.csv"),
        "HF": ("a100_hf_mm.txt", "a100_hf_shapes.csv"),
        "timm": ("a100_timm_mm.txt", "a100_timm_shapes.csv")}
# The untrimmed public A100 tables, outside the repository (../shared/data/autoheuristic).
UNTRIMMED = {"HF": "a100_hf_train_mm.txt", "timm": "a100_timm_train_mm.txt",
             "random": "a100_mm.txt"}


def rows(windows, transfer_seeds, shared, ranges=False):
    """(name, kind, tilevolve splits arguments): kind "study", "transfer" or, with `ranges`,
    "range"."""
    h100 = f"replay:{REPLAY}/h100_mm.txt"
    h200 = ["--backend", f"table:{REPLAY}/h200_triton.csv",
            "--expert", "data/experts/h200_sample48.py", "--shapes", "data/shapes/lecture.csv"]
    studies = [("replay H100 random", ["--backend", h100]),
               ("replay H100 random-mnk", ["--backend", h100, "--split", "random-mnk"]),
               ("replay H100 vendor dispatch", ["--backend", h100, "--vendor-dispatch"])]
    studies += [(f"replay A100 {k}", ["--backend", f"replay:{REPLAY}/{t}"])
                for k, (t, _) in A100.items()]
    studies.append(("measured H200 lecture", h200))
    studies.append(("measured H100 lecture", ["--backend", f"table:{REPLAY}/h100_triton.csv"] + h200[2:]))
    if shared:
        studies += [(f"untrimmed A100 {k}", ["--backend", f"replay:{os.path.join(shared, f)}"])
                    for k, f in UNTRIMMED.items()]
    out = []
    for w in windows:
        for name, args in studies:
            out.append((f"{name}, splits {w}-{w + 19}", "study",
                        args + ["--splits", "20", "--seeds", "5", "--first-split", str(w)]))
    seeds = ["--splits", "1", "--seeds", str(transfer_seeds)]
    for a, b in (("random", "HF"), ("HF", "timm"), ("timm", "HF"), ("random", "timm"),
                 ("HF", "random"), ("timm", "random")):
        (ta, sa), (tb, sb) = A100[a], A100[b]
        out.append((f"replay A100 {a} -> {b}", "transfer",
                    ["--backend", f"replay:{REPLAY}/{ta},{REPLAY}/{tb}",
                     "--shapes", f"{REPLAY}/{sa}", "--test-shapes", f"{REPLAY}/{sb}"] + seeds))
    out.append(("measured H200 lecture -> six models", "transfer",
                h200 + ["--test-shapes", "data/shapes/six_models_m2048.csv"] + seeds))
    if ranges:
        # Each table's eight range splits (train on one end of M*N*K, M, N or K, test on the
        # other): the shapes past the training range a deployment meets. Not the variants of
        # one table (random-mnk, vendor dispatch).
        for name, args in studies:
            if "random-mnk" in args or "--vendor-dispatch" in args:
                continue
            out.append((f"{name}, range splits", "range",
                        args + ["--split", "range", "--splits", "8", "--seeds", "5"]))
    return out


def figure(result, kind):
    """The row's figure in points (see the module comment)."""
    if kind in ("study", "range"):
        return 100 * result["mean_test_gap_to_tree"]
    split = result["splits"][0]
    tree = split["decision_tree"]["test_fraction_of_oracle"]
    return 100 * (split["evolved"]["test_median"] - tree)


def run_row(tool, extra, row):
    name, kind, args = row
    cmd = [tool, "splits"] + args + extra + ["--json"]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{shlex.join(cmd)} exited {done.returncode}: "
                           f"{done.stderr.strip()[-500:]}")
    return figure(json.loads(done.stdout), kind)


def by_table(kind_rows, sides, figures):
    """With two sides: per table of the split studies, change - base in each window."""
    if len(sides) != 2:
        return []
    tables = {}
    for name, kind, _ in kind_rows:
        if kind == "study" and all(name in figures[s] for s in sides):
            tables.setdefault(name.split(", splits ")[0], []).append(
                figures[sides[1]][name] - figures[sides[0]][name])
    if not tables:
        return []
    width = max(len(t) for t in tables)
    return ["by table (change - base, one figure per window, then their mean):"] + [
        f"  {t.ljust(width)}  " + " ".join(f"{d:+.2f}" for d in diffs) +
        f"  mean {statistics.mean(diffs):+.2f}" for t, diffs in tables.items()]


def base_figures(path, chosen, transfer_seeds):
    """The judged side's figures of an earlier --json of this script, for the rows `chosen`, and
    how that side ran; raises ValueError saying what is wrong with the file."""
    try:
        with open(path) as f:
            saved = json.load(f)
        figures = saved["figures"]["change"]
        if not isinstance(figures, dict):
            raise TypeError
    except OSError as e:
        raise ValueError(f"cannot read it: {e.strerror}")
    except json.JSONDecodeError as e:
        raise ValueError(f"not JSON (line {e.lineno}: {e.msg})")
    except (KeyError, TypeError):
        raise ValueError('no figures of a side "change" (write it with this script\'s --json)')
    def field(obj, key):  # obj[key] when both are JSON objects, else {}
        value = obj.get(key) if isinstance(obj, dict) else None
        return value if isinstance(value, dict) else {}
    ran = field(field(saved, "sides"), "change")
    seeds = field(saved, "options").get("transfer_seeds")
    if seeds is not None and seeds != transfer_seeds and any(k == "transfer" for _, k, _ in chosen):
        raise ValueError(f"its transfers ran at {seeds} seeds, these at {transfer_seeds} "
                         f"(--transfer-seeds {seeds}, or --only to leave the transfers out)")
    missing = [name for name, _, _ in chosen if name not in figures]
    if missing:
        raise ValueError(f"no figure for {len(missing)} of the {len(chosen)} rows chosen, e.g. "
                         f"{missing[0]!r} (run both with the same --windows, --transfer-seeds, "
                         f"--shared and --range)")
    out = {}
    for name, _, _ in chosen:
        if isinstance(figures[name], bool) or not isinstance(figures[name], (int, float)):
            raise ValueError(f"the figure of {name!r} is not a number")
        out[name] = float(figures[name])
    return out, ran


def summary(kind_rows, sides, figures):
    """Lines summing up one kind of row over every side."""
    out = []
    for kind, label in (("study", "split studies"), ("transfer", "transfers"),
                        ("range", "range splits")):
        names = [n for n, k, _ in kind_rows if k == kind and all(n in figures[s] for s in sides)]
        if not names:
            continue
        means = [statistics.mean(figures[s][n] for n in names) for s in sides]
        text = f"{label} ({len(names)} rows): mean " + " -> ".join(f"{m:+.3f}" for m in means)
        if len(sides) == 2:
            diffs = [figures[sides[1]][n] - figures[sides[0]][n] for n in names]
            up = sum(d >= SAME for d in diffs)
            down = sum(d <= -SAME for d in diffs)
            se = statistics.stdev(diffs) / len(diffs) ** 0.5 if len(diffs) > 1 else float("nan")
            text += (f" points; {up} up, {down} down, {len(diffs) - up - down} the same; paired "
                     f"difference {statistics.mean(diffs):+.3f} (standard error {se:.3f})")
        else:
            text += " points"
        out.append(text)
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--change", default=os.path.join(ROOT, "build", "tilevolve"),
                    help="the tilevolve binary judged (default build/tilevolve)")
    ap.add_argument("--base", help="the binary it is compared with (default: none, or --change "
                                   "when only --base-args is given)")
    ap.add_argument("--change-args", default="", metavar="ARGS",
                    help="extra `tilevolve splits` arguments of the judged side")
    ap.add_argument("--base-args", default="", metavar="ARGS",
                    help="extra `tilevolve splits` arguments of the base side")
    ap.add_argument("--windows", default="0,20", metavar="K,...",
                    help="first split seeds of the windows of 20 splits (default 0,20)")
    ap.add_argument("--transfer-seeds", type=int, default=10, metavar="N",
                    help="seeds of each transfer (default 10)")
    ap.add_argument("--shared", metavar="DIR",
                    help="also the untrimmed public A100 tables in DIR (" +
                         ", ".join(UNTRIMMED.values()) + ")")
    ap.add_argument("--range", action="store_true",
                    help="also each table's eight range splits x 5 seeds (`splits --split "
                         "range`: train on one end of M*N*K, M, N or K, test on the other)")
    ap.add_argument("--base-json", metavar="FILE",
                    help="the base side's figures from an earlier --json of this script (its "
                         "\"change\" side) instead of running them")
    ap.add_argument("--only", help="run the rows whose name contains this text")
    ap.add_argument("--jobs", type=int, default=2, help="commands at a time (default 2)")
    ap.add_argument("--list", action="store_true", help="list the rows and their commands")
    ap.add_argument("--json", metavar="FILE", help="also write every figure to FILE as JSON")
    a = ap.parse_args(argv)

    def fail(text):
        print(f"ab_panel: {text}", file=sys.stderr)
        return 2

    try:
        windows = [int(w) for w in a.windows.split(",")]
    except ValueError:
        return fail(f"--windows wants first split seeds like 0,20 (got {a.windows!r})")
    if not windows or min(windows) < 0:
        return fail("--windows wants first split seeds of 0 or more")
    if a.transfer_seeds < 1:
        return fail("--transfer-seeds must be at least 1")
    if a.jobs < 1:
        return fail("--jobs must be at least 1")
    if a.shared:
        missing = [f for f in UNTRIMMED.values() if not os.path.isfile(os.path.join(a.shared, f))]
        if missing:
            return fail(f"--shared {a.shared}: no {', '.join(missing)} there")
        a.shared = os.path.abspath(a.shared)
    chosen = [r for r in rows(windows, a.transfer_seeds, a.shared, a.range)
              if not a.only or a.only.lower() in r[0].lower()]
    if not chosen:
        return fail(f"no row name contains {a.only!r}")
    sides = {"change": (a.change, shlex.split(a.change_args))}
    if a.base_json and (a.base or a.base_args):
        return fail("--base-json takes the base side from a file: give no --base or --base-args")
    if a.base or a.base_args:
        sides = {"base": (a.base or a.change, shlex.split(a.base_args)), **sides}
    saved = None
    if a.base_json and not a.list:
        try:
            saved, ran = base_figures(a.base_json, chosen, a.transfer_seeds)
        except ValueError as e:
            return fail(f"--base-json {a.base_json}: {e}")
        args = ran.get("args")
        args = shlex.join(str(x) for x in args) if isinstance(args, list) else ""
        print(f"base: the figures of {a.base_json} (tool {ran.get('tool', '?')}, arguments "
              f"{args or 'none'})", file=sys.stderr)
    if a.list:
        for name, _, args in chosen:
            print(f"{name}\n  {shlex.join(['tilevolve', 'splits'] + args + ['--json'])}")
        return 0
    for side, (tool, _) in sides.items():
        if not os.access(tool, os.X_OK):
            return fail(f"no tilevolve binary at {tool} (--{side})")
    figures = {s: {} for s in sides}
    if saved is not None:
        figures = {"base": saved, **figures}
    failed, start = [], time.monotonic()
    with ThreadPoolExecutor(a.jobs) as pool:
        futures = {pool.submit(run_row, tool, extra, row): (side, row[0])
                   for row in chosen for side, (tool, extra) in sides.items()}
        for k, done in enumerate(as_completed(futures), 1):
            side, name = futures[done]
            try:
                figures[side][name] = done.result()
            except (RuntimeError, ValueError, KeyError) as e:
                failed.append(f"{side}: {name}")
                print(f"ab_panel: {side}: {name}: {e}", file=sys.stderr)
            print(f"[{k}/{len(futures)}, {time.monotonic() - start:.0f} s] {side}: {name}",
                  file=sys.stderr, flush=True)
    names = list(figures)
    head = ["row"] + names + (["change - base"] if len(names) == 2 else [])
    table = []
    for name, _, _ in chosen:
        vals = [figures[s].get(name) for s in names]
        cells = [f"{v:+.2f}" if v is not None else "failed" for v in vals]
        if len(names) == 2:
            cells.append(f"{vals[1] - vals[0]:+.2f}" if None not in vals else "")
        table.append([name] + cells)
    widths = [max(len(r[i]) for r in table + [head]) for i in range(len(head))]
    line = lambda r: "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                               for i, (c, w) in enumerate(zip(r, widths)))
    print(line(head))
    print("-" * len(line(head)))
    for r in table:
        print(line(r))
    print()
    for text in summary(chosen, names, figures) + by_table(chosen, names, figures):
        print(text)
    if a.json:
        described = {s: {"tool": t, "args": x} for s, (t, x) in sides.items()}
        if saved is not None:
            described = {"base": {"from": os.path.abspath(a.base_json)}, **described}
        with open(a.json, "w") as f:
            json.dump({"sides": described,
                       "options": {"windows": windows, "transfer_seeds": a.transfer_seeds,
                                   "shared": a.shared, "range": a.range},
                       "figures": figures,
                       "rows": [{"name": n, "kind": k, "args": x} for n, k, x in chosen]},
                      f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
