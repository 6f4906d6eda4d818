#!/usr/bin/env python3
"""How much a rule over M, N, K can gain on recorded data: the headroom study behind README's
replay section.

Reads an AutoHeuristic mm table (default data/replay/h100_mm.txt), takes each key's median time
per Triton config (shrunk per shape the way Inductor launches it, as tilevolve's replay backend
does), and over random half/half splits by (M, N, K) (no size on both sides), or of the keys with
--split random (this script's own split seeds, not tilevolve's), prints, as fractions of the per-key oracle (geometric means over
the test keys):

  single      the best single config of the training half, on test
  rule:train  the best one-threshold rule (two configs) fitted on the training half, on test
  rule:test   the best one-threshold rule whose threshold is chosen on the *test* keys (leaf
              configs still from training): an upper bound for any such rule, not a method
  mnk:train   the best config per (M, N, K) of the training half where the test key's size is
              there (with --split random), the best single config elsewhere: a lookup table of
              sizes, what the best-fitting program could do on test keys whose size it saw
  mnk:test    the best config per (M, N, K) chosen on the test keys themselves: the ceiling of
              any program that sees only M, N and K (it cannot see dtype or operand layout)
  seen:train  with --visible layout|dtype|both: the best config of the training half per
              operand layout, dtype or both, on test: what a program could gain if it also saw
              them (tilevolve's programs do not)

The thresholds range over M, N, K, M*N, M*N*K and waves of 64x64 and 128x128 tiles on the
GPU's units (--units, 132 for H100). With --vendor the vendor library (extern_mm rows) is one
more config and the oracle is min(Triton oracle, vendor).

  python3 scripts/replay_headroom.py --splits 40

Standard library only.
"""
import argparse
import collections
import csv
import math
import random
import re
import statistics

FIELDS = ("BLOCK-M", "BLOCK-N", "BLOCK-K", "numwarps", "numstages")


def parse_choice(choice):
    """(BM, BN, BK, warps, stages) of an Inductor choice string."""
    d = dict(re.findall(r"(BLOCK-M|BLOCK-K|BLOCK-N|numstages|numwarps)=(\d+)", choice))
    return tuple(int(d[f]) for f in FIELDS)


def shrink(cfg, m, n, k):
    """The config Inductor launches for (m, n, k): blocks capped by next_pow2(dim), >= 16."""
    bm, bn, bk, warps, stages = cfg

    def one(block, dim):
        if dim >= block:
            return max(block, 16)
        p = 1
        while p < dim:
            p *= 2
        return max(min(block, p), 16)

    sm, sn, sk = one(bm, m), one(bn, n), one(bk, k)
    return (sm, sn, sk, max(1, min(warps, sm * sn // 256)), stages)


def load(path, vendor):
    """{key: [time per config]} with key (M, N, K, dtype, layout); configs in a fixed order."""
    raw = collections.defaultdict(lambda: collections.defaultdict(list))
    with open(path) as f:
        f.readline()  # the JSON header line
        for row in csv.DictReader(f):
            layout = ("N" if row["mat1_stride_1"] == "1" else "T") + (
                "N" if row["mat2_stride_1"] == "1" else "T")
            key = (int(row["m"]), int(row["n"]), int(row["k"]), row["mat1_dtype"], layout)
            raw[key][row["choice"]].append(float(row["feedback"]))
    med = {k: {c: statistics.median(v) for c, v in d.items()} for k, d in raw.items()}
    largest = max(med, key=lambda k: min(k[:3]))
    canon = sorted(parse_choice(c) for c in med[largest] if c != "extern_mm")
    table = {}
    for key, d in med.items():
        by_cfg = {parse_choice(c): t for c, t in d.items() if c != "extern_mm"}
        times = [by_cfg.get(shrink(c, *key[:3])) for c in canon]
        if vendor:
            times.append(d.get("extern_mm"))
        if all(t is not None for t in times):
            table[key] = times
    return table, len(canon) + (1 if vendor else 0)


def features(m, n, k, units):
    waves = lambda b: math.ceil(m / b) * math.ceil(n / b) / units
    return {"M": m, "N": n, "K": k, "M*N": m * n, "M*N*K": m * n * k, "waves64": waves(64),
            "waves128": waves(128)}


class Study:
    def __init__(self, table, ncfg, units):
        self.t, self.n = table, ncfg
        self.best = {k: min(v) for k, v in table.items()}
        self.f = {k: features(*k[:3], units) for k in table}

    def logscore(self, keys, pick):
        return sum(math.log(self.best[k] / self.t[k][pick(k)]) for k in keys)

    def best_config(self, keys):
        return max(range(self.n), key=lambda c: self.logscore(keys, lambda k: c)) if keys else 0

    def rules(self, keys):
        """Every one-threshold rule on `keys`: (feature, threshold, left config, right config)."""
        for name in self.f[keys[0]]:
            values = sorted({self.f[k][name] for k in keys})
            for a, b in zip(values, values[1:]):
                thr = (a + b) / 2
                left = [k for k in keys if self.f[k][name] < thr]
                right = [k for k in keys if self.f[k][name] >= thr]
                yield name, thr, self.best_config(left), self.best_config(right)

    def apply(self, rule):
        name, thr, cl, cr = rule
        return lambda k: cl if self.f[k][name] < thr else cr


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("table", nargs="?", default="data/replay/h100_mm.txt")
    ap.add_argument("--splits", type=int, default=20)
    ap.add_argument("--units", type=int, default=132)
    ap.add_argument("--vendor", action="store_true")
    ap.add_argument("--split", choices=("mnk", "random"), default="mnk")
    ap.add_argument("--visible", choices=("layout", "dtype", "both"))
    a = ap.parse_args()
    table, ncfg = load(a.table, a.vendor)
    s = Study(table, ncfg, a.units)
    sizes = sorted({k[:3] for k in table})
    gm = lambda v, keys: 100 * math.exp(v / len(keys))
    by = "(M, N, K)" if a.split == "mnk" else "key"
    print(f"{len(table)} keys, {len(sizes)} sizes, {ncfg} configs; split by {by}")
    group_of = {"layout": lambda k: k[4], "dtype": lambda k: k[3], "both": lambda k: k[3:],
                None: None}[a.visible]
    print("split  single  rule:train  rule:test  mnk:train  mnk:test" +
          ("  seen:train" if group_of else ""))
    gains_train, gains_test, lookups, seen_gains = [], [], [], []
    for seed in range(a.splits):
        if a.split == "mnk":
            order = sizes[:]
            random.Random(seed).shuffle(order)
            train_sizes = set(order[: len(order) // 2])
            train = [k for k in table if k[:3] in train_sizes]
            test = [k for k in table if k[:3] not in train_sizes]
        else:
            order = sorted(table)
            random.Random(seed).shuffle(order)
            train, test = order[: (len(order) + 1) // 2], order[(len(order) + 1) // 2:]
        single = s.best_config(train)
        base = s.logscore(test, lambda k: single)
        fitted = max(s.rules(train), key=lambda r: s.logscore(train, s.apply(r)))
        on_train = s.logscore(test, s.apply(fitted))
        on_test = max([base] + [s.logscore(test, s.apply(r)) for r in s.rules(train)])
        seen = collections.defaultdict(list)
        for k in train:
            seen[k[:3]].append(k)
        lookup = {g: s.best_config(ks) for g, ks in seen.items()}
        table_of_sizes = s.logscore(test, lambda k: lookup.get(k[:3], single))
        groups = collections.defaultdict(list)
        for k in test:
            groups[k[:3]].append(k)
        per_size = {g: s.best_config(ks) for g, ks in groups.items()}
        ceiling = s.logscore(test, lambda k: per_size[k[:3]])
        lookups.append(gm(table_of_sizes, test))
        gains_train.append(gm(on_train, test) - gm(base, test))
        gains_test.append(gm(on_test, test) - gm(base, test))
        line = (f"{seed:5d}  {gm(base, test):6.2f}  {gm(on_train, test):10.2f}  "
                f"{gm(on_test, test):9.2f}  {gm(table_of_sizes, test):9.2f}  "
                f"{gm(ceiling, test):8.2f}")
        if group_of:
            by_group = collections.defaultdict(list)
            for k in train:
                by_group[group_of(k)].append(k)
            pick = {g: s.best_config(ks) for g, ks in by_group.items()}
            seen = s.logscore(test, lambda k: pick.get(group_of(k), single))
            seen_gains.append(gm(seen, test) - gm(base, test))
            line += f"  {gm(seen, test):10.2f}"
        print(line)
    print(f"rule fitted on train minus single: mean {statistics.mean(gains_train):+.2f} pts, "
          f"above single on {sum(g > 0 for g in gains_train)} of {a.splits} splits")
    print(f"best rule chosen on test minus single: mean {statistics.mean(gains_test):+.2f} pts, "
          f"largest {max(gains_test):+.2f} pts")
    print(f"lookup of training sizes: mean {statistics.mean(lookups):.2f}%, at least 99% on "
          f"{sum(x >= 99 for x in lookups)} of {a.splits} splits")
    if group_of:
        print(f"best config per {a.visible} minus single: mean {statistics.mean(seen_gains):+.2f} "
              f"pts, above single on {sum(g > 1e-9 for g in seen_gains)} of {a.splits} splits")


if __name__ == "__main__":
    main()
