#!/usr/bin/env bash
# On a machine with a CUDA GPU: build with CUDA, run every test (the GPU ones included), measure
# the unit ceilings (`fa4-analyze ceilings`), check and time our kernels over a sweep with
# `fa4-analyze bench --peers` (the PyTorch SDPA backends and our Triton kernel timed on the same
# shapes in the same run), the backward kernels the same way (`bench --pass bwd --peers`, the SDPA
# backward peers beside them), model the sweep, and write the report.
# Everything goes to $OUT when set (else gpu-check/): results.db, report.md, and the logs.
#
#   bash scripts/gpu-check.sh [STEP...]      steps: build test ceilings bench bench-bwd report
#                                            (default all)
#
# Settings (environment): FA4_BUILD_DIR (build-gpu), FA4_CHECK_SWEEP (data/sweeps/fa3-paper.json),
# FA4_CHECK_KERNELS (every registered forward kernel), FA4_CHECK_BWD_KERNELS (every registered
# backward kernel), FA4_CHECK_PEER_PASS (the forward bench's peers: fwd, both, or none; bench-bwd
# times the backward peers beside the backward kernels unless none), FA4_CHECK_BWD_PEERS (bench-bwd
# times only these peers, e.g. sdpa_flash, by torch_peers.py after the kernels: a shorter call),
# FA4_CHECK_DB (the results database; default $OUT/results.db; copied to $OUT at the end).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/gpu-check}
build=${FA4_BUILD_DIR:-$root/build-gpu}
sweep=${FA4_CHECK_SWEEP:-$root/data/sweeps/fa3-paper.json}
peer_pass=${FA4_CHECK_PEER_PASS:-fwd}
steps=${*:-build test ceilings bench bench-bwd report}
mkdir -p "$out"
db=${FA4_CHECK_DB:-$out/results.db}
tool=$build/apps/fa4-analyze/fa4-analyze
wants() { [[ " $steps " == *" $1 "* ]]; }

if wants build; then
  {
    cmake -S "$root" -B "$build" -G Ninja -DFA4_CUDA=ON -DCMAKE_BUILD_TYPE=Release \
      -DFA4_BUILD_BENCHMARKS=OFF && cmake --build "$build" -j"$(nproc)"
  } >"$out/build.log" 2>&1 || { grep -E "rror" -A3 "$out/build.log" | head -40; exit 1; }
  echo "build: ok"
fi
# Backward kernels are named *_bwd* (kernel_bwd_test.cpp's cases; bench refuses a kernel of the
# other pass).
names=$("$tool" kernels --names 2>/dev/null)
kernels=${FA4_CHECK_KERNELS:-$(grep -v _bwd <<<"$names" | paste -sd, -)}
bwd_kernels=${FA4_CHECK_BWD_KERNELS:-$(grep _bwd <<<"$names" | paste -sd, -)}
if wants test; then
  (cd "$build" && timeout 240 ctest -j8 --output-on-failure) >"$out/ctest.log" 2>&1
  echo "ctest exit $?: $(grep -E 'tests passed|tests failed' "$out/ctest.log")"
  grep -c '\*\*\*Skipped' "$out/ctest.log" | sed 's/^/ctest skipped: /'
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
  --format=csv | tee -a "$out/measure.log"
if wants ceilings; then
  timeout 180 "$tool" --db "$db" ceilings 2>&1 | tee -a "$out/measure.log"
fi
if wants bench; then
  echo "bench: kernels $kernels, sweep $sweep, peers $peer_pass" | tee -a "$out/measure.log"
  peers=(--peers --peer-pass "$peer_pass")
  [ "$peer_pass" = none ] && peers=()
  PYTHONUNBUFFERED=1 "$tool" --db "$db" bench --kernel "$kernels" --sweep "$sweep" "${peers[@]}" \
    2>&1 | tee -a "$out/measure.log" | grep -v '^\[' | tail -n 40
fi
if wants bench-bwd; then
  echo "bench-bwd: kernels $bwd_kernels, sweep $sweep" | tee -a "$out/measure.log"
  peers=(--peers)
  [ "$peer_pass" = none ] || [ -n "${FA4_CHECK_BWD_PEERS:-}" ] && peers=()
  PYTHONUNBUFFERED=1 "$tool" --db "$db" bench --pass bwd --kernel "$bwd_kernels" --sweep "$sweep" \
    "${peers[@]}" 2>&1 | tee -a "$out/measure.log" | grep -v '^\[' | tail -n 40
  if [ -n "${FA4_CHECK_BWD_PEERS:-}" ] && [ "$peer_pass" != none ]; then
    PYTHONUNBUFFERED=1 python3 "$root/scripts/peers/torch_peers.py" --sweep "$sweep" --pass bwd \
      --peers "$FA4_CHECK_BWD_PEERS" --out "$out/peers-bwd.json" \
      --revision "$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)" \
      2>&1 | tee -a "$out/measure.log" | tail -n 5
    "$tool" --db "$db" import "$out/peers-bwd.json" | tee -a "$out/measure.log"
  fi
fi
if wants report; then
  "$tool" --db "$db" predict --gpu all --kernel all --pass fwd --sweep "$sweep" \
    | tee -a "$out/measure.log"
  "$tool" --db "$db" report --out "$out/report.md" | tee -a "$out/measure.log"
fi
[ "$db" -ef "$out/results.db" ] || cp "$db" "$out/results.db"
