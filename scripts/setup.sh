#!/usr/bin/env bash
# Installs the Debian 12 packages tilevolve builds with, only those that are missing.
# Safe to run any number of times. `setup.sh test` also installs what the whole test suite
# (scripts/test.sh) needs: clang with libFuzzer and the sanitizer runtimes, LLVM's OpenMP for
# clang builds, and llvm-symbolizer for readable sanitizer reports.
set -euo pipefail

packages=(
  g++ cmake make pkg-config python3
  libboost-graph-dev nlohmann-json3-dev libxtensor-dev libfmt-dev doctest-dev
  libcpp-httplib-dev libcli11-dev libyaml-cpp-dev
  slurm-wlm munge # tests/slurm_test.cpp: a one-node cluster for the measured backend's srun path
  # The dashboard (tilevolve serve) serves Chart.js from this package's installed file; its
  # test drives headless Chromium through chromedriver (about 100 MB with dependencies).
  libjs-chart.js chromium chromium-driver
)
if [ "${1:-}" = "test" ]; then
  packages+=(clang libclang-rt-14-dev libomp-dev llvm-14)
elif [ -n "${1:-}" ]; then
  echo "setup: unknown argument '$1' (expected nothing or 'test')" >&2
  exit 2
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages already installed"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "setup: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
