#!/usr/bin/env bash
# Installs what is missing, then configures and builds tilevolve (Release) into build/.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
log=$(mktemp)
trap 'rm -f "$log"' EXIT
echo "build: configuring and compiling into build/ ..."
launcher=()
if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" > "$log" 2>&1 || { cat "$log"; exit 1; }
cmake --build build -j "$(nproc)" >> "$log" 2>&1 || { tail -60 "$log"; exit 1; }
echo "build: done (build/tilevolve)"
