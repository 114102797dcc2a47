#!/usr/bin/env bash
# One device-machine call for fa3: configure and build the kernel tests and timing there, check the
# SASS (HGMMA present, no local memory), run the GPU tests of every fa3 entry, and only when they
# all pass, time the kernels named in FA3_TIME_KERNELS at the head dims in FA3_TIME_HEADDIMS.
#   bash .devdeps/setup.sh && bash lib/kernels/fa3/run_gpu.sh
# Logs go to $OUT (build.log, sass.txt, tests.log, timing.csv, timing.log).
set -uo pipefail
OUT=${OUT:-/tmp/fa3-out}
mkdir -p "$OUT"
build=${FA3_BUILD_DIR:-build-gpu}
kernels=${FA3_TIME_KERNELS:-fa2,fa3,fa3_no_pingpong,fa3_no_overlap,fa3_no_ws}
headdims=${FA3_TIME_HEADDIMS:-128}
seqlens=${FA3_TIME_SEQLENS:-512,1024,2048,4096,8192,16384}
samples=${FA3_TIME_SAMPLES:-10}
test_filter=${FA3_TEST_FILTER:-*fa3*}

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFA4_PTXAS_VERBOSE=ON >"$OUT/cfg.log" 2>&1 ||
  { tail -30 "$OUT/cfg.log"; exit 1; }
cmake --build "$build" -j16 --target kernel_tests kernel_timing >"$OUT/build.log" 2>&1 ||
  { grep -E "error" "$OUT/build.log" | head -30; exit 1; }
obj=$(find "$build" -name 'fa3.cu.o' | head -1)
cuobjdump --dump-sass "$obj" >"$OUT/sass.txt" 2>&1
echo "sass: HGMMA $(grep -c HGMMA "$OUT/sass.txt"), LDL/STL $(grep -cE 'LDL|STL' "$OUT/sass.txt")"
gzip -f "$OUT/sass.txt"

timeout -k 10 "${FA3_TEST_TIMEOUT:-240}" "$build/tests/kernels/kernel_tests" \
  --gtest_filter="$test_filter" >"$OUT/tests.log" 2>&1
rc=$?
grep -E "^\[  (FAILED|PASSED|SKIPPED) |tests ran|Failure|error|mismatch|max" "$OUT/tests.log" | head -60
echo "kernel_tests rc=$rc"
[ "$rc" -eq 0 ] || exit 1
[ "${FA3_TIME:-1}" = 1 ] || exit 0
first=1
for d in ${headdims//,/ }; do
  extra=--no-ceilings
  [ $first = 1 ] && extra= && first=0
  timeout -k 10 "${FA3_TIME_TIMEOUT:-300}" "$build/tests/kernels/kernel_timing" --kernels "$kernels" \
    --headdim "$d" --seqlens "$seqlens" --samples "$samples" --csv "$OUT/timing.csv" $extra \
    2>&1 | tee -a "$OUT/timing.log"
done
