#!/usr/bin/env bash
# Installs what building and running tilevolve needs (./scripts/setup.sh, without the test-only
# packages), then configures a Release build in build/ and builds the tool: build/tilevolve and
# the fake worker build/tilevolve-fake-worker (measured runs without a GPU). Not the tests or the
# benchmarks: ./scripts/test.sh builds those (or `cmake --build build --target bench_lecture`).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
log=$(mktemp)
trap 'rm -f "$log"' EXIT
echo "build: configuring and compiling build/tilevolve ..."
launcher=()
if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
# Ninja keeps every core busy across targets (Make waits at each library's boundary); a build
# folder made earlier keeps the generator it was made with.
generator=()
if [ ! -f build/CMakeCache.txt ] && command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${generator[@]}" "${launcher[@]}" > "$log" 2>&1 ||
  { cat "$log"; exit 1; }
cmake --build build -j "$(nproc)" --target tilevolve tilevolve-fake-worker >> "$log" 2>&1 ||
  { tail -60 "$log"; exit 1; }
echo "build: done (build/tilevolve; install it with cmake --install build --prefix DIR)"
