#!/usr/bin/env bash
# Installs the Debian 12 packages tilevolve needs, only those that are missing. Safe to run any
# number of times.
#   setup.sh        what building and running the tool needs: the compiler, CMake and Ninja, the
#                   libraries, and Chart.js for the dashboard (tilevolve serve serves Debian's
#                   file; nothing is fetched from the internet).
#   setup.sh test   that, and what the whole test suite (scripts/test.sh) needs besides: clang
#                   with libFuzzer and the sanitizer runtimes, clang-format (tests/format_test.cpp
#                   checks every C++ file's format), LLVM's OpenMP for clang builds,
#                   llvm-symbolizer for readable sanitizer reports, lld (the builds link with it
#                   when it is there, about three times faster), headless Chromium and
#                   chromedriver for the dashboard's browser test (about 100 MB with
#                   dependencies), Slurm and munge for tests/slurm_test.cpp's one-node cluster,
#                   mkdocs and mkdocs-material for the documentation site (scripts/test.sh's
#                   docs phase builds it offline).
set -euo pipefail

packages=(
  g++ cmake make ninja-build pkg-config python3
  libboost-graph-dev nlohmann-json3-dev libxtensor-dev libfmt-dev doctest-dev
  libcpp-httplib-dev libcli11-dev libyaml-cpp-dev libmimalloc-dev
  libjs-chart.js
)
if [ "${1:-}" = "test" ]; then
  packages+=(clang clang-format libclang-rt-14-dev libomp-dev llvm-14 lld
             chromium chromium-driver
             slurm-wlm munge
             mkdocs mkdocs-material)
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
