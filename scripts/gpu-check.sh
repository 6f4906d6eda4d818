#!/usr/bin/env bash
# Checks a GPU machine end to end with the real Triton worker, in under 8 minutes, and prints
# one table:
#   1. the worker's self-test (a few checked measurements, every layout and dtype, the vendor
#      library, and the correctness check catching a corrupted output);
#   2. a few dozen measured (shape, config) pairs against the analytic model's prediction;
#   3. a short measured evolution on a handful of shapes;
#   4. a replay of the cache it wrote, which must give the same program and the same numbers.
#
#   scripts/gpu-check.sh [--gpu h200] [--device 0] [--out DIR] [--budget 60] [--fake]
#
# Needs python3 with torch and Triton (CUDA or ROCm) and a built tilevolve (./scripts/build.sh).
# On AMD use --gpu mi300x (or mi325x, mi355x). Exit status 0 when every check passes.
# --fake runs steps 2-4 with the fake worker instead (no GPU; checks the script itself).
set -uo pipefail
cd "$(dirname "$0")/.."

gpu=h200
device=0
out=""
budget=60
fake=0
while [ $# -gt 0 ]; do
  case "$1" in
    --gpu) gpu="$2"; shift 2 ;;
    --device) device="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --budget) budget="$2"; shift 2 ;;
    --fake) fake=1; shift ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "gpu-check: unknown argument $1" >&2; exit 2 ;;
  esac
done
tv=./build/tilevolve
[ -x "$tv" ] || { echo "gpu-check: build first (./scripts/build.sh)" >&2; exit 2; }
[ -n "$out" ] || out=$(mktemp -d /tmp/tilevolve-gpu-check.XXXXXX)
mkdir -p "$out"
cache="$out/measurements.csv"
rm -f "$cache"
worker="python3 $PWD/eval/workers/triton_worker.py --device {device}"
[ "$fake" = 1 ] && worker="$PWD/build/tilevolve-fake-worker --gpu $gpu --device {device}"
limit() { timeout "$1" "${@:2}"; }
start=$(date +%s)

# A handful of shapes from decode to prefill (Llama-3 8B projections).
shapes="$out/shapes.csv"
cat > "$shapes" <<'EOF'
name,M,N,K
qkv:M1,1,6144,4096
o:M16,16,4096,4096
gate_up:M128,128,28672,4096
down:M512,512,4096,14336
qkv:M2048,2048,6144,4096
o:M8192,8192,4096,4096
EOF

# 1. Self-test.
if [ "$fake" = 1 ]; then
  echo '{"ok": true, "device": "fake worker: self-test skipped", "worker": "--fake", "checks": []}' > "$out/self_test.json"
  self_rc=0
else
  limit 120 python3 eval/workers/triton_worker.py --device "$device" --self-test > "$out/self_test.json" 2> "$out/self_test.err"
  self_rc=$?
fi
# 2. Measured pairs vs the model: 8 sampled configs on each shape, and the vendor library.
limit 180 "$tv" measure --gpu "$gpu" --shapes "$shapes" --configs sample:8 --seed 1 --vendor \
  --cache "$cache" --devices "$device" --worker-cmd "$worker" --reps 10 --warmup 3 --json \
  > "$out/measure.json" 2> "$out/measure.err"
measure_rc=$?
# 3. A short measured evolution (train and test: all six shapes).
limit 240 "$tv" evolve --gpu "$gpu" --shapes "$shapes" --split none --budget "$budget" --seed 0 \
  --backend measured --cache "$cache" --devices "$device" --worker-cmd "$worker" --reps 10 \
  --warmup 3 --quiet --json > "$out/evolve.json" 2> "$out/evolve.err"
evolve_rc=$?
# 4. Its replay.
limit 60 "$tv" evolve --gpu "$gpu" --shapes "$shapes" --split none --budget "$budget" --seed 0 \
  --backend "replay:$cache" --quiet --json > "$out/replay.json" 2> "$out/replay.err"
replay_rc=$?
seconds=$(( $(date +%s) - start ))

python3 - "$out" "$self_rc" "$measure_rc" "$evolve_rc" "$replay_rc" "$seconds" <<'EOF'
import json, sys
out, rcs, seconds = sys.argv[1], [int(x) for x in sys.argv[2:6]], int(sys.argv[6])

def load(name):
    try:
        with open("%s/%s" % (out, name)) as f:
            return json.loads(f.read())
    except Exception as e:  # noqa: BLE001
        return {"_error": str(e)}

def tail(name):
    try:
        return open("%s/%s" % (out, name)).read().strip().splitlines()[-1][:100]
    except Exception:  # noqa: BLE001
        return "no output"

rows, ok_all = [], True
def row(check, ok, detail):
    global ok_all
    ok_all = ok_all and ok
    rows.append((check, "PASS" if ok else "FAIL", detail))

st = load("self_test.json")
checks = st.get("checks", [])
row("worker self-test", rcs[0] == 0 and st.get("ok", False),
    "%s (%s); %d/%d checks ok" % (st.get("device", "?"), st.get("worker", st.get("error", tail("self_test.err"))),
                                  sum(1 for c in checks if c.get("status", "ok" if c.get("ok") else "") == "ok"), len(checks)))
for c in checks:
    if "config" in c:
        rows.append(("  %s %s %s" % (c["dtype"], c["layout"], c["config"]), c["status"],
                     "%.2f us, max rel error %.2g" % (1e6 * (c["seconds"] or 0), c["max_rel_error"] or 0)
                     if c["status"] == "ok" else ""))
m = load("measure.json")
if "results" in m:
    res = m["results"]
    ok = [r for r in res if r["status"] == "ok"]
    model = m["model"]
    row("measured pairs vs analytic %s" % m["gpu"], rcs[1] == 0 and len(ok) > 0,
        "%d pairs: %s; measured/model median %.2f, rank correlation per shape %.2f"
        % (len(res), ", ".join("%s %d" % kv for kv in sorted(m["statuses"].items())),
           model["median_measured_over_model"], model["mean_spearman_per_shape"]))
    for r in ok[:: max(1, len(ok) // 8)][:8]:
        rows.append(("  %s %s" % (r["shape"], r["config"]), "ok",
                     "measured %.2f us, model %.2f us" % (1e6 * r["seconds"], 1e6 * r.get("model_s", 0))))
    if "vendor" in m:
        rows.append(("  vendor library", "ok" if m["vendor"]["ok"] == m["vendor"]["shapes"] else "FAIL",
                     "%d of %d shapes timed" % (m["vendor"]["ok"], m["vendor"]["shapes"])))
else:
    row("measured pairs vs analytic", False, tail("measure.err"))
e, r = load("evolve.json"), load("replay.json")
if "best" in e:
    meas = e["measurement"]
    row("measured evolution", rcs[2] == 0 and e["train"]["valid"],
        "%d programs, train %.3fx the expert, %.1f%% of the oracle over measured configs; %d pairs measured, %d from the cache; noise %.2f%%; workers: %s"
        % (e["programs"], e["train"]["speedup_vs_expert"], 100 * e["train"]["fraction_of_oracle"],
           meas["measured"], meas["from_cache"], 100 * e.get("noise", {}).get("spread", 0),
           ", ".join("%s %d" % (k, v) for k, v in meas["pool"].items() if v and k not in ("sent", "measured")) or "no faults"))
else:
    row("measured evolution", False, tail("evolve.err"))
if "best" in e and "best" in r:
    same = (e["best"]["program"] == r["best"]["program"] and e["train"] == r["train"] and
            e["test"] == r["test"] and e["counters"] == r["counters"] and
            all(e["baselines"][k]["train"] == r["baselines"][k]["train"] for k in e["baselines"]))
    row("replay of the cache", rcs[3] == 0 and same,
        "same best program, scores, baselines and counters" if same else "DIFFERS from the measured run")
else:
    row("replay of the cache", False, tail("replay.err"))
row("time", seconds < 480, "%d s (limit 480 s)" % seconds)

w = [max(len(x[i]) for x in rows) for i in range(2)]
print("tilevolve gpu-check (%s)" % out)
for check, status, detail in rows:
    print("%s  %s  %s" % (check.ljust(w[0]), status.ljust(w[1]), detail))
sys.exit(0 if ok_all else 1)
EOF
