#!/usr/bin/env bash
# Set up, build, and run every test through ctest. GPU tests report themselves as skipped on a
# machine without a CUDA device. Then the host code again, CPU-only, under AddressSanitizer and
# UndefinedBehaviorSanitizer (build-asan/), and a short run of each libFuzzer target (clang,
# build-fuzz/). FA4_SANITIZERS=0 skips both.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/setup.sh"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"

if [ "${FA4_SANITIZERS:-1}" = 0 ]; then exit 0; fi
host_only=(-DFA4_CUDA=OFF -DFA4_BUILD_BENCHMARKS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo
           -DFA4_SANITIZE=address,undefined)
asan=${FA4_ASAN_BUILD_DIR:-$root/build-asan}
[ -f "$asan/CMakeCache.txt" ] || cmake -S "$root" -B "$asan" "${host_only[@]}"
cmake --build "$asan" -j"$(nproc)"
ctest --test-dir "$asan" --output-on-failure -j"$(nproc)"

fuzz=${FA4_FUZZ_BUILD_DIR:-$root/build-fuzz}
[ -f "$fuzz/CMakeCache.txt" ] ||
  CC=clang CXX=clang++ cmake -S "$root" -B "$fuzz" "${host_only[@]}" -DFA4_BUILD_TESTS=OFF -DFA4_FUZZ=ON
cmake --build "$fuzz" -j"$(nproc)" --target fuzz_model_file fuzz_sweep fuzz_shape fuzz_peer_records
ctest --test-dir "$fuzz" --output-on-failure -L fuzz
