#!/usr/bin/env bash
# One device-machine call for the decode kernels (lib/kernels/decode): build fa4-analyze and the
# kernel tests with ptxas reports, summarise the SASS of decode.cu (HGMMA, local memory), run the
# decode GPU tests, then time the peers (below) and measure the HBM ceilings and `bench` the kernels in DECODE_KERNELS
# (fa3_decode) over DECODE_SWEEP (data/sweeps/decode.json) and time the peers in DECODE_PEERS
# (sdpa_cudnn,sdpa_flash: the dense decode peers) on the same shapes with
# scripts/peers/torch_peers.py, all recorded into $OUT/decode.db, and print each measurement's
# KV-read bandwidth. Run from the repository root:
#   bash .devdeps/setup.sh && bash scripts/gpu-decode.sh
# DECODE_STEPS picks steps (build,test,bench,peers: all by default).
set -uo pipefail
OUT=${OUT:-/tmp/decode-out}
mkdir -p "$OUT"
build=${FA4_BUILD_DIR:-build-gpu}
steps=${DECODE_STEPS:-build,test,bench,peers}
sweep=${DECODE_SWEEP:-data/sweeps/decode.json}
kernels=${DECODE_KERNELS:-fa3_decode}
peers=${DECODE_PEERS:-sdpa_cudnn,sdpa_flash}
tool=$build/apps/fa4-analyze/fa4-analyze
has() { [[ ",$steps," == *",$1,"* ]]; }

if has build; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFA4_PTXAS_VERBOSE=ON \
    -DFA4_BUILD_BENCHMARKS=OFF >"$OUT/cfg.log" 2>&1 || { tail -30 "$OUT/cfg.log"; exit 1; }
  cmake --build "$build" -j16 --target fa4-analyze kernel_tests >"$OUT/build.log" 2>&1 ||
    { grep -E "error" "$OUT/build.log" | head -30; exit 1; }
  grep -A2 "decode_split_kernel" "$OUT/build.log" | grep -E "registers|spill" | sort | uniq -c
  obj=$(find "$build" -name "decode.cu.o" | head -1)
  cuobjdump --dump-sass "$obj" >"$OUT/sass-decode.txt" 2>&1
  echo "sass decode: HGMMA $(grep -c HGMMA "$OUT/sass-decode.txt"), LDL/STL $(grep -cE 'LDL|STL' "$OUT/sass-decode.txt"), UTMALDG $(grep -c UTMALDG "$OUT/sass-decode.txt")"
  gzip -f "$OUT/sass-decode.txt"
fi

if has test; then
  timeout -k 10 "${DECODE_TEST_TIMEOUT:-300}" "$build/tests/kernels/kernel_tests" \
    --gtest_filter="${DECODE_TEST_FILTER:-Decode*:*fa3_decode*}" >"$OUT/tests.log" 2>&1
  rc=$?
  grep -E "^\[  (FAILED|PASSED|SKIPPED) |tests ran|Failure|error|mismatch" "$OUT/tests.log" | head -40
  echo "kernel_tests rc=$rc"
  [ "$rc" -eq 0 ] || exit 1
fi

if has peers; then
  timeout -k 10 "${DECODE_PEERS_TIMEOUT:-200}" python3 scripts/peers/torch_peers.py --pass fwd \
    --sweep "$sweep" --peers "$peers" --max-seconds-per-shape 3 --out "$OUT/peers.jsonl" \
    >"$OUT/peers.log" 2>&1
  echo "peers rc=$?"; tail -3 "$OUT/peers.log"
  "$tool" --db "$OUT/decode.db" import "$OUT/peers.jsonl" 2>&1 | tail -2
fi
if has bench; then
  "$tool" --db "$OUT/decode.db" ceilings --unit hbm_copy 2>&1 | tail -3
  timeout -k 10 "${DECODE_BENCH_TIMEOUT:-240}" "$tool" --db "$OUT/decode.db" bench \
    --kernel "$kernels" --sweep "$sweep" >"$OUT/bench.log" 2>&1
  echo "bench rc=$?"; tail -3 "$OUT/bench.log"
fi
if has bench || has peers; then
  # KV read bandwidth per measurement: K and V bytes once over the median time (a ragged batch's
  # is in bench.log, which counts each sequence's own keys).
  "$tool" --db "$OUT/decode.db" query --format csv --limit 0 "
    SELECT kernel, source, status, batch, heads_q, seqlen_q, seqlen_k, causal,
           round(time_median_s * 1e3, 4) AS ms, round(predicted_time_s * 1e3, 4) AS model_ms,
           page_size, splits, seqlens_k,
           CASE WHEN seqlens_k = '' THEN
             round(2.0 * batch * heads_kv * seqlen_k * headdim * 2 / time_median_s / 1e12, 3)
           END AS kv_tbps
    FROM v_measurements
    ORDER BY heads_q, seqlen_q, batch, seqlen_k, page_size, seqlens_k, splits, kernel" \
    >"$OUT/bandwidth.csv" 2>"$OUT/query.err" || cat "$OUT/query.err"
  sed 's/,/\t/g' "$OUT/bandwidth.csv" | head -150
fi
