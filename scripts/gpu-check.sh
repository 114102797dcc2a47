#!/usr/bin/env bash
# On a machine with a CUDA GPU: build with CUDA, run every test (the GPU ones included), measure
# the ceilings (kernel_timing: mma.sync, cuBLAS bf16 GEMM, device copy), check and time our
# kernels over data/sweeps/ladder-h128.json with `fa4-analyze bench`, time the PyTorch SDPA peers
# on the same shapes in the same run, model those shapes, and write the report. Everything goes
# to $OUT when set (else gpu-check/): results.db, report.md, and the logs.
#   bash scripts/gpu-check.sh [BUILD_DIR]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/gpu-check}
build=${1:-$root/build-gpu}
mkdir -p "$out"
db=$out/results.db
tool=$build/apps/fa4-analyze/fa4-analyze
sweep=$root/data/sweeps/ladder-h128.json
{
  cmake -S "$root" -B "$build" -G Ninja -DFA4_CUDA=ON -DCMAKE_BUILD_TYPE=Release \
    -DFA4_BUILD_BENCHMARKS=OFF && cmake --build "$build" -j"$(nproc)"
} >"$out/build.log" 2>&1 || { grep -E "rror" -A3 "$out/build.log" | head -40; exit 1; }
(cd "$build" && timeout 150 ctest -j8 --output-on-failure) >"$out/ctest.log" 2>&1
echo "ctest exit $?: $(grep -E 'tests passed|tests failed' "$out/ctest.log")"
grep -c '\*\*\*Skipped' "$out/ctest.log" | sed 's/^/ctest skipped: /'
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
  --format=csv | tee "$out/measure.log"
timeout 120 "$build/tests/kernels/kernel_timing" --kernels fa2 --seqlens 4096 --causal 0 \
  2>&1 | tee -a "$out/measure.log"
timeout 240 "$tool" --db "$db" bench --kernel naive,fa2 --sweep "$sweep" 2>&1 | tee -a "$out/measure.log"
PYTHONUNBUFFERED=1 timeout 120 python3 "$root/scripts/peers/sdpa_quick.py" --headdim 128 \
  --seqlens 512,1024,2048,4096,8192,16384 2>&1 | tee -a "$out/measure.log"
"$tool" --db "$db" predict --gpu all --kernel all --pass fwd --sweep "$sweep" | tee -a "$out/measure.log"
"$tool" --db "$db" report --out "$out/report.md" | tee -a "$out/measure.log"
