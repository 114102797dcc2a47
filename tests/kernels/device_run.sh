#!/usr/bin/env bash
# One GPU-machine call: configure and build the kernel targets, run the reference and GPU tests,
# then time the kernels (kernel_timing) and the PyTorch SDPA peers (scripts/peers/sdpa_quick.py)
# on the same shapes in the same run. Writes at most 8 files to OUT_DIR: build.log, ptxas.txt,
# fa2_sass.txt.gz, kernel_tests.log, timing.log/.csv, sdpa.log/.csv.
#   bash tests/kernels/device_run.sh SOURCE_DIR OUT_DIR [SWEEP...]
# A SWEEP is "headdim:seqlens:dtype", e.g. "128:4096,8192,16384:bf16" (the default); the first
# one also measures the ceilings.
set -uo pipefail
src=$1
out=$2
shift 2
sweeps=("${@:-128:4096,8192,16384:bf16}")
build=build-gpu
{
  cmake -S "$src" -B $build -G Ninja -DFA4_CUDA=ON -DCMAKE_BUILD_TYPE=Release \
    -DFA4_BUILD_BENCHMARKS=OFF -DFA4_PTXAS_VERBOSE=ON &&
    cmake --build $build -j16 --target reference_tests kernel_tests kernel_timing
} >"$out/build.log" 2>&1 || { grep -E "rror" -A3 "$out/build.log" | head -60; exit 1; }
grep -A3 "Compiling entry" "$out/build.log" | grep -E "Compiling|stack|Used" >"$out/ptxas.txt"
cuobjdump --dump-sass "$(find $build -name 'fa2.cu.o' | head -1)" | gzip >"$out/fa2_sass.txt.gz"
timeout 60 $build/tests/reference/reference_tests --gtest_brief=1 2>&1 | tail -3
timeout 240 $build/tests/kernels/kernel_tests --gtest_brief=1 >"$out/kernel_tests.log" 2>&1
echo "kernel_tests exit $?"
grep -E "Failure|FAILED|PASSED|SKIPPED|tests ran|error:" "$out/kernel_tests.log" | head -40
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
  --format=csv | tee -a "$out/timing.log"
ceilings=""
for sweep in "${sweeps[@]}"; do
  IFS=: read -r headdim seqlens dtype <<<"$sweep"
  timeout 200 $build/tests/kernels/kernel_timing --csv "$out/timing.csv" --headdim "$headdim" \
    --seqlens "$seqlens" --dtype "$dtype" $ceilings 2>&1 | tee -a "$out/timing.log"
  ceilings="--no-ceilings"
  PYTHONUNBUFFERED=1 timeout 150 python3 "$src/scripts/peers/sdpa_quick.py" --csv "$out/sdpa.csv" \
    --headdim "$headdim" --seqlens "$seqlens" --dtype "$dtype" 2>&1 | tee -a "$out/sdpa.log"
done
