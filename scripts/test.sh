#!/usr/bin/env bash
# The whole test suite, exactly what CI runs (.ci/run). Installs what is missing, then:
#   release  Release build (g++) into build/ and ctest there
#   docs     the documentation site: mkdocs build --strict (mkdocs.yml; a link to a missing page
#            fails) into build/site/, then scripts/docs_check.py (every page in the nav, every
#            #anchor a link names exists); offline
#   asan     one clang build into build-san/ with AddressSanitizer + UndefinedBehaviorSanitizer
#            and libFuzzer's coverage instrumentation: the test suite and every libFuzzer target
#            tests/fuzz/fuzz_<reader>.cpp come from the same compiled libraries (one build
#            instead of two); ctest there (the end-to-end tests start that build's sanitized
#            binary)
#   fuzz     each fuzz target of build-san/ run for FUZZ_SECONDS on tests/fuzz/corpus/<reader>/
#            (plus tests/fuzz/<reader>.dict when there is one), FUZZ_JOBS targets at a time
#            (builds build-san/ first when the asan phase did not run)
# Stops at the first failing phase and exits non-zero; always prints the wall and CPU time of each
# phase.
#
# Environment: PHASES (default "release docs asan fuzz"), FUZZ_SECONDS (15: the edges a target reached
# by 15 s were 95-100% of those by 30 s; README), FUZZ_JOBS (the number of CPUs), JOBS (build
# parallelism, the number of CPUs), CTEST_JOBS (tests run at once, 4 x JOBS:
# many tests wait on processes, sockets and timeouts; at 2 x JOBS the release suite kept the 2
# cores 58% busy, the sanitized one 84%). ccache is used when installed.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

PHASES=${PHASES:-"release docs asan fuzz"}
FUZZ_SECONDS=${FUZZ_SECONDS:-15}
JOBS=${JOBS:-$(nproc)}
CTEST_JOBS=${CTEST_JOBS:-$((4 * JOBS))}
FUZZ_JOBS=${FUZZ_JOBS:-$(nproc)}

# cpu_now VAR: sets VAR to the CPU seconds (user + sys) of every process this shell has waited
# for so far: the second line of bash's `times` (each figure as 1m2.345s). `times` runs in this
# shell, writing to a file: in a pipe or $(...) it would run in a forked shell, which has waited
# for nothing.
cpu_file=$(mktemp)
cpu_now() {
  times >"$cpu_file"
  printf -v "$1" '%s' "$(awk 'NR == 2 {
    t = 0
    for (i = 1; i <= 2; ++i) { split($i, p, "m"); t += p[1] * 60 + p[2] }
    printf "%.0f", t
  }' "$cpu_file")"
}

summary=()
suite_start=$(date +%s)
print_summary() {
  local total=$(($(date +%s) - suite_start)) cpu
  cpu_now cpu
  rm -f "$cpu_file"
  echo
  echo "test: phase summary (wall time; CPU time of the phase's processes, user + sys)"
  for line in "${summary[@]}"; do echo "  $line"; done
  printf '  %-28s %6ds %6d CPU-s\n' "total" "$total" "$cpu"
}
trap print_summary EXIT

# phase NAME COMMAND...: runs one phase, records its wall and CPU time (on 2 cores the suite is
# CPU-bound: CPU seconds show where it goes, and move less than wall time with the load), stops
# the suite when it fails.
phase() {
  local name=$1
  shift
  echo
  echo "test: == $name =="
  local start cpu_start cpu_end
  start=$(date +%s)
  cpu_now cpu_start
  "$@"
  local rc=$?
  cpu_now cpu_end
  local took=$(($(date +%s) - start)) cpu=$((cpu_end - cpu_start))
  if [ $rc -eq 0 ]; then
    summary+=("$(printf '%-28s %6ds %6d CPU-s  ok' "$name" "$took" "$cpu")")
  else
    summary+=("$(printf '%-28s %6ds %6d CPU-s  FAILED (status %d)' "$name" "$took" "$cpu" "$rc")")
    exit 1
  fi
}

launcher=()
if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi

# configure_and_build DIR "TARGETS" CMAKE-ARGS...: quiet configure and build; the log on failure.
configure_and_build() {
  local dir=$1 targets
  read -r -a targets <<<"$2"
  shift 2
  local log generator=()
  log=$(mktemp)
  # Ninja keeps both cores busy across targets (Make waits at each library's boundary: the
  # sanitized build kept two cores 83% busy with Make); a folder made earlier keeps its generator.
  if [ ! -f "$dir/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
  if ! cmake -S . -B "$dir" "${generator[@]}" "${launcher[@]}" "$@" >"$log" 2>&1; then
    cat "$log"
    rm -f "$log"
    return 1
  fi
  if ! cmake --build "$dir" -j "$JOBS" --target "${targets[@]}" >>"$log" 2>&1; then
    tail -80 "$log"
    rm -f "$log"
    return 1
  fi
  rm -f "$log"
  echo "test: built ${targets[*]} in $dir/"
}

run_ctest() {
  ctest --test-dir "$1" --output-on-failure -j "$CTEST_JOBS"
}

# ---------------------------------------------------------------- fuzzing

fuzz_targets() {
  ls tests/fuzz/fuzz_*.cpp 2>/dev/null | sed 's|.*/fuzz_||; s|\.cpp$||'
}

check_fuzz_corpora() {
  local missing=0
  for reader in $(fuzz_targets); do
    if [ -z "$(ls -A "tests/fuzz/corpus/$reader" 2>/dev/null)" ]; then
      echo "test: tests/fuzz/fuzz_$reader.cpp has no seed corpus in tests/fuzz/corpus/$reader/"
      missing=1
    fi
  done
  return $missing
}

# fuzz_one READER: runs build-san/fuzz_READER for FUZZ_SECONDS; new inputs go to
# build-san/corpus/READER (the seed corpus in the repository is only read), a crashing input to
# build-san/artifacts/.
fuzz_one() {
  local reader=$1
  local bin=build-san/fuzz_$reader work=build-san/corpus/$reader log=build-san/logs/$reader.log
  mkdir -p "$work" build-san/artifacts build-san/logs
  local dict=()
  if [ -f "tests/fuzz/$reader.dict" ]; then dict=("-dict=tests/fuzz/$reader.dict"); fi
  if "$bin" -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="build-san/artifacts/$reader-" "${dict[@]}" \
    "$work" "tests/fuzz/corpus/$reader" >"$log" 2>&1; then
    local runs cov
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$')
    printf 'test: fuzz %-22s ok: %s runs in %ss, coverage %s edges\n' "$reader" "${runs:-?}" \
      "$FUZZ_SECONDS" "${cov:-?}"
    return 0
  fi
  echo "test: fuzz $reader FAILED; the end of its log ($root/$log):"
  tail -60 "$log"
  ls build-san/artifacts/"$reader"-* 2>/dev/null | sed 's/^/test: crashing input: /'
  return 1
}

run_fuzzers() {
  local failed=0 pids=() names=()
  for reader in $(fuzz_targets); do
    # At most FUZZ_JOBS at a time.
    while [ "$(jobs -rp | wc -l)" -ge "$FUZZ_JOBS" ]; do wait -n || failed=1; done
    fuzz_one "$reader" &
  done
  while [ "$(jobs -rp | wc -l)" -gt 0 ]; do wait -n || failed=1; done
  wait || failed=1
  return $failed
}

# build_docs: the documentation site into build/site/, strictly (a warning fails), then the
# checks mkdocs 1.4 does not make (pages left out of the nav, links to missing anchors).
build_docs() {
  local log
  log=$(mktemp)
  if ! mkdocs build --strict --site-dir build/site >"$log" 2>&1; then
    grep -v 'DeprecationWarning\|^  ' "$log" | tail -40
    rm -f "$log"
    return 1
  fi
  rm -f "$log"
  python3 scripts/docs_check.py build/site
}

# build_sanitized: the sanitized suite and the fuzz targets, one clang build in build-san/.
build_sanitized() {
  configure_and_build build-san "tilevolve_tests fuzz_targets" -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_CXX_COMPILER=clang++ -DTILEVOLVE_SANITIZE=ON -DTILEVOLVE_FUZZ=ON
}

# ---------------------------------------------------------------- phases

phase "setup" ./scripts/setup.sh test
for p in $PHASES; do
  case "$p" in
  release)
    phase "release build" configure_and_build build all -DCMAKE_BUILD_TYPE=Release
    phase "release ctest" run_ctest build
    ;;
  docs)
    phase "docs (mkdocs --strict)" build_docs
    ;;
  asan)
    phase "sanitized build (clang)" build_sanitized
    sanitized_built=1
    phase "asan+ubsan ctest" run_ctest build-san
    ;;
  fuzz)
    phase "fuzz corpora" check_fuzz_corpora
    if [ -z "${sanitized_built:-}" ]; then
      phase "sanitized build (clang)" build_sanitized
      sanitized_built=1
    fi
    phase "fuzz run (${FUZZ_SECONDS}s each)" run_fuzzers
    ;;
  *)
    echo "test: unknown phase '$p' (expected release, docs, asan or fuzz)"
    exit 2
    ;;
  esac
done
echo
echo "test: all phases passed"
