#!/usr/bin/env bash
# Measures the tables this repository judges generalization on, on one GPU, in order and
# resumable: the same 48 configs (sample:48 --seed 2, as data/replay/h200_triton.csv and
# h100_triton.csv) and torch.matmul on
#   1. the 88 lecture shapes (data/shapes/lecture.csv),
#   2. the six models' GEMMs up to M = 2048 (data/shapes/six_models_m2048.csv),
#   3. the other models' GEMMs up to M = 1500 (data/shapes/other_models.csv, filtered).
# Every result is written to the table as it arrives, so a run stopped by --deadline, a signal or
# a lost machine keeps what it measured, and the same command again measures only the rest.
#
#   scripts/measure-tables.sh --gpu h100 [--out FILE] [--deadline SECONDS] [--device 0] [--fake]
#
# Needs python3 with torch and Triton and a built tilevolve (./build/tilevolve, or $TILEVOLVE).
# --deadline stops before a set would start with under 20 s left and interrupts the one running
# at the deadline (default: none). --fake uses the fake worker beside tilevolve (no GPU; checks
# the script). Prints each set's `measure` summary; exit status 0 when every set was measured in
# full, 3 when the deadline left one unfinished (run it again), 1 when a measurement failed.
set -uo pipefail
cd "$(dirname "$0")/.."

gpu=""
out=""
deadline=0
device=0
fake=0
while [ $# -gt 0 ]; do
  case "$1" in
    --gpu) gpu="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --deadline) deadline="$2"; shift 2 ;;
    --device) device="$2"; shift 2 ;;
    --fake) fake=1; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "measure-tables: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$gpu" ] || { echo "measure-tables: --gpu is required (e.g. h100)" >&2; exit 2; }
case "$deadline" in ''|*[!0-9]*) echo "measure-tables: --deadline takes whole seconds" >&2; exit 2 ;; esac
tv=${TILEVOLVE:-./build/tilevolve}
[ -x "$tv" ] || { echo "measure-tables: build first (./scripts/build.sh)" >&2; exit 2; }
[ -n "$out" ] || out="${gpu}_triton.csv"
worker="python3 $PWD/eval/workers/triton_worker.py --device {device}"
[ "$fake" = 1 ] && worker="$(cd "$(dirname "$tv")" && pwd)/tilevolve-fake-worker --gpu $gpu --device {device}"
tmp=$(mktemp -d /tmp/tilevolve-measure-tables.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
awk -F, '/^#/ || $2 == "M" || ($2 + 0 <= 1500)' data/shapes/other_models.csv > "$tmp/other_m1500.csv"
start=$(date +%s)
status=0
for set in data/shapes/lecture.csv data/shapes/six_models_m2048.csv "$tmp/other_m1500.csv"; do
  name=$(basename "$set" .csv)
  limit=()
  if [ "$deadline" -gt 0 ]; then
    left=$(( deadline - ($(date +%s) - start) ))
    if [ "$left" -lt 20 ]; then echo "$name: not started (deadline)"; status=3; continue; fi
    limit=(timeout -s TERM "$left")
  fi
  "${limit[@]}" "$tv" measure --gpu "$gpu" --shapes "$set" --configs sample:48 --seed 2 --vendor \
    --cache "$out" --devices "$device" --worker-cmd "$worker" --reps 10 --warmup 3 --quiet
  rc=$?
  if [ "$rc" = 124 ]; then echo "$name: stopped at the deadline (what it measured is kept)"; status=3
  elif [ "$rc" != 0 ]; then echo "$name: measure exited $rc"; status=1; fi
done
echo "table: $out ($(( $(date +%s) - start )) s)"
exit "$status"
