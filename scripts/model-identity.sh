#!/usr/bin/env bash
# Every prediction the tool makes, in one text file, for a change that must not move a figure:
# `published --json`, `predict` over every shipped sweep on every GPU model and algorithm (the
# predictions and their factors, sorted, without run ids), `model --json` over a grid of options
# and shapes, the roofline's roofs and points on every GPU model and every registered kernel's
# configuration (kernel_models_dump); the golden report test (report_tests) checks the rest. Run
# it before the change and after, and diff the two files.
#   scripts/model-identity.sh BINARY DUMP_BINARY OUT_FILE
set -euo pipefail
bin=$1 dump=$2 out=$3
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run() { "$bin" --models "$root/models" --db "$work/r.db" "$@"; }
gpus=$(run gpus --json | python3 -c 'import json,sys; [print(g["id"]) for g in json.load(sys.stdin)]')
{
  echo "== published --json"
  run published --json
  echo "== predict"
  run predict --sweep "$root"/data/sweeps/*.json --gpu all --kernel all --pass fwd,bwd >/dev/null 2>&1
  key="gpu, algorithm, pass, batch, heads_q, heads_kv, seqlen_q, seqlen_k, headdim, headdim_v, causal, dtype, sliding_window"
  run query --format csv --limit 0 "SELECT * FROM predictions ORDER BY $key" |
    cut -d, -f3- | sort
  run query --format csv --limit 0 "SELECT $key, f.position, f.name, f.value, f.meaning,
    f.fitted_to FROM prediction_factors f JOIN predictions p ON p.id = f.prediction_id" | sort
  echo "== model --json"
  for gpu in $gpus; do
    for kernel in naive fa2 fa3 fa4; do
      for pass in fwd bwd; do
        for shape in "--seqlen 512 --headdim 64" "--seqlen 4096 --headdim 128" \
            "--seqlen 16384 --headdim 128 --causal" "--seqlen 8192 --headdim 256 --causal" \
            "--seqlen 4096 --headdim 192 --headdim-v 128" "--seqlen 8192 --headdim 128 --dtype fp8" \
            "--seqlen 8192 --heads 32 --heads-kv 4 --headdim 128 --causal --window 1024" \
            "--seqlen-q 1 --seqlen-k 8192 --batch 8 --heads 32 --heads-kv 8"; do
          for extra in "" "--two-cta" "--exp-emulation 0.25 --no-conditional-rescale" \
              "--software-row-max" "--tile 128x64"; do
            echo "-- $gpu $kernel $pass $shape $extra"
            # shellcheck disable=SC2086
            run model --gpu "$gpu" --kernel $kernel --pass $pass $shape $extra --json 2>&1 || true
          done
        done
      done
    done
  done
  echo "== roofline"
  for gpu in $gpus; do
    for pass in fwd bwd; do
      run roofline --gpu "$gpu" --pass $pass --json
      run roofline --gpu "$gpu" --pass $pass --csv --sweep "$root/data/sweeps/fa3-paper.json" 2>&1
    done
  done
  echo "== kernel models"
  "$dump" "$root/models"
} >"$out"
echo "$(grep -c . "$out") lines in $out"
