#!/usr/bin/env bash
# Sets up a Debian machine for fa4-analyze and builds it: installs the missing Debian packages
# (apt-get, through sudo when not root), configures CMake in build/ (once) and builds
# (incrementally). Sourced by run.sh and test.sh; FA4_BUILD_DIR overrides the build folder.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${FA4_BUILD_DIR:-$root/build}
packages=(cmake g++ make git pkg-config python3 libcli11-dev nlohmann-json3-dev libsqlite3-dev libfmt-dev
          libgtest-dev libbenchmark-dev clang gnuplot-nox libexpat1-dev)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "error: missing packages ${missing[*]} and no sudo: install them as root" >&2; exit 1; }
    sudo=sudo
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release ${FA4_CMAKE_ARGS:-}
fi
cmake --build "$build" -j"$(nproc)"
