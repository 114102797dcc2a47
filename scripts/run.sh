#!/usr/bin/env bash
# The main job: set up, build, model the published benchmark settings on every GPU model,
# record the predictions in the results database (fa4-results.db, or --db / FA4_DB), on a machine
# with a CUDA GPU also measure the ceilings, our kernels and the peers on the ladder sweep, and
# write the markdown report to out/fa4-analyze-report.md (git-ignored: the checkout stays clean), or
# to --out FILE. Safe to rerun: the build is incremental, each rerun is a new run in the database,
# and a report that did not change is not rewritten.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# The options first, so that a wrong one stops before the build. Paths given are taken from the
# caller's folder; the defaults are in the source tree.
db=${FA4_DB:-fa4-results.db}
out=out/fa4-analyze-report.md
while [ $# -gt 0 ]; do
  case "$1" in
    --db) db=$(realpath -m -- "$2"); shift 2 ;;
    --out) out=$(realpath -m -- "$2"); shift 2 ;;
    *) echo "run.sh: unknown option '$1': use --db FILE and --out FILE" >&2; exit 1 ;;
  esac
done
source "$root/scripts/setup.sh"
cd "$root"
tool="$build/apps/fa4-analyze/fa4-analyze"

# The shipped published figures, into the database the report is written from: the files the
# report reads (data/published/*.json and the record, data/published/record/*.json), so `query`
# sees the figures the report counts (an import replaces earlier copies of the same figure).
"$tool" --db "$db" import data/published/*.json data/published/record/*.json
"$tool" --db "$db" predict --gpu all --kernel all --pass fwd,bwd \
  --sweep data/sweeps/fa3-paper.json --sweep data/sweeps/fa4-paper.json --sweep data/sweeps/llama3.json
# The ladder's rungs this build has (none without CUDA).
ladder=$("$tool" kernels --names | { grep -xE 'naive|fa2|fa3|fa4' || true; } | paste -sd, -)
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 && [ -n "$ladder" ]; then
  # A CUDA GPU and a CUDA build: measure the ceilings and the kernel ladder too (and the peers
  # when PyTorch is there), each measurement recorded beside the model's prediction.
  echo "run: a CUDA GPU is present: measuring the ceilings and the kernel ladder"
  "$tool" --db "$db" ceilings
  peers=()
  if python3 scripts/peers/torch_peers.py --check-environment >/dev/null 2>&1; then
    peers=(--peers)
  else
    echo "run: no PyTorch with CUDA for python3: the peers are not measured"
  fi
  "$tool" --db "$db" bench --kernel "$ladder" --sweep data/sweeps/ladder-h128.json "${peers[@]}"
elif command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  echo "run: a CUDA GPU is present but this build has no CUDA kernels (no nvcc at configure" \
       "time): modeled only; install the CUDA toolkit and rebuild to measure"
else
  echo "run: no CUDA GPU on this machine: modeled only (no kernels were measured)"
fi
"$tool" --db "$db" report --out "$out"
