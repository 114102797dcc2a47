#!/usr/bin/env bash
# On a machine with a CUDA GPU: A/B timing in alternating rounds, so that both sides see the same
# clocks and temperatures, and compare's verdict on it (FASTER, SLOWER, SAME or UNSURE with the
# ratio and its 95% interval: lib/compare/verdict.hpp, apps/fa4-analyze/README.md "Comparing runs").
#
#   bash scripts/gpu-ab.sh KERNEL_A,KERNEL_B [HEADDIMS] [ROUNDS] [SEQLENS]
#     Two kernels of this tree, or a kernel and a peer (fa3,sdpa_cudnn), in one process:
#     `fa4-analyze bench --kernel A,B --ab` on every shape, round r timing A then B when r is
#     even and B then A when odd, both on the same inputs (a peer draws its own in PyTorch).
#   bash scripts/gpu-ab.sh --trees TREE_A TREE_B [HEADDIMS] [KERNELS] [ROUNDS] [SEQLENS]
#     The same kernels built from two source trees (two revisions). A process holds one build,
#     so the rounds alternate processes: round r runs tree A's `fa4-analyze bench` then tree B's
#     (B then A when r is odd), each recording one run in its own database, and `compare
#     --runs-as-rounds` takes each run's median as one sample.
#
#   defaults: HEADDIMS "64 128 256", SEQLENS 1024,8192 (both masks, bf16, 16k tokens: batch =
#   16384 / seqlen, heads = 2048 / headdim), ROUNDS 10 (--trees: 6), KERNELS fa2,fa3,fa4
#   (fa2_bwd,fa3_bwd with PASS=bwd). Environment: PASS=bwd times the backward pass; THRESHOLD
#   (default 2%) is the smallest change worth a verdict; FAIL_ON=slower exits 1 when any shape is
#   SLOWER (compare --fail-on); OUT (default /tmp/gpu-ab) is where everything goes: ab.db (A.db
#   and B.db with --trees), ab.sweep.json (the shapes), ab.log (all that was printed), ab.md (the
#   comparison as markdown, for a pull request).
# fa4-analyze is built (Release, CUDA on) in build-ab/ of each tree and of this one, which runs
# the comparison (an older tree's fa4-analyze may not know --runs-as-rounds).
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
pass=${PASS:-fwd}
threshold=${THRESHOLD:-2%}
out=${OUT:-/tmp/gpu-ab}
mkdir -p "$out"
log=$out/ab.log
: >"$log"
usage() {
  sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
}

trees=0
if [ "${1:-}" = --trees ]; then
  trees=1
  [ $# -ge 3 ] || usage
  tree_a=$(cd "$2" && pwd) || exit 2
  tree_b=$(cd "$3" && pwd) || exit 2
  default_kernels=fa2,fa3,fa4
  [ "$pass" = bwd ] && default_kernels=fa2_bwd,fa3_bwd
  headdims=${4:-64 128 256}
  kernels=${5:-$default_kernels}
  rounds=${6:-6}
  seqlens=${7:-1024,8192}
else
  [ $# -ge 1 ] || usage
  case "$1" in
    *,*) ;;
    *) echo "gpu-ab.sh: '$1' names one kernel; give two, the baseline first: fa3,fa4 (or" \
         "--trees TREE_A TREE_B for one kernel built from two trees)" >&2
       exit 2 ;;
  esac
  kernels=$1
  headdims=${2:-64 128 256}
  rounds=${3:-10}
  seqlens=${4:-1024,8192}
fi

# The shapes: the FA papers' 16k-token grid at the head dims and seqlens asked for.
sweep=$out/ab.sweep.json
printf '{"name": "gpu-ab", "description": "scripts/gpu-ab.sh: 16k tokens, hidden 2048", "grid":
 {"total_tokens": 16384, "hidden": 2048, "headdims": [%s], "seqlens": [%s],
  "causal": [false, true], "dtype": "bf16"}}\n' \
  "$(echo "$headdims" | tr -s ' ' ',')" "$seqlens" >"$sweep"

build_one() {  # tree label
  { cmake -S "$1" -B "$1/build-ab" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFA4_CUDA=ON \
      -DFA4_BUILD_BENCHMARKS=OFF && cmake --build "$1/build-ab" -j"$(nproc)" --target fa4-analyze
  } >"$out/build-$2.log" 2>&1 || { echo "build $2 failed ($out/build-$2.log):"; grep -E "error" "$out/build-$2.log" | head; return 1; }
}
cli() { echo "$1/build-ab/apps/fa4-analyze/fa4-analyze"; }

fail_on=()
[ -n "${FAIL_ON:-}" ] && fail_on=(--fail-on "$FAIL_ON")

if [ $trees = 0 ]; then
  build_one "$here" this || exit 1
  echo "built fa4-analyze in $here/build-ab" | tee -a "$log"
  db=$out/ab.db
  "$(cli "$here")" --db "$db" bench --kernel "$kernels" --ab --rounds "$rounds" \
    --threshold "$threshold" --pass "$pass" --sweep "$sweep" 2>&1 | tee -a "$log"
  status=${PIPESTATUS[0]}
  [ "$status" = 0 ] || { echo "gpu-ab.sh: bench --ab exited with $status (see $log)"; exit "$status"; }
  run=$(grep -m1 -oE '^run [0-9]+' "$log" | cut -d' ' -f2)
  a=${kernels%%,*}; b=${kernels#*,}
  "$(cli "$here")" --db "$db" compare "$run" --kernel "$a" --against "$b" \
    --threshold "$threshold" --markdown >"$out/ab.md"
  "$(cli "$here")" --db "$db" compare "$run" --kernel "$a" --against "$b" \
    --threshold "$threshold" ${fail_on[@]+"${fail_on[@]}"} >/dev/null
  status=$?
  echo "markdown for a pull request: $out/ab.md"
  exit $status
fi

pids=()
build_one "$tree_a" A & pids+=($!)
build_one "$tree_b" B & pids+=($!)
if [ "$here" != "$tree_a" ] && [ "$here" != "$tree_b" ]; then build_one "$here" this & pids+=($!); fi
for pid in "${pids[@]}"; do wait "$pid" || exit 1; done
echo "built fa4-analyze in A ($tree_a) and B ($tree_b)" | tee -a "$log"
rm -f "$out/A.db" "$out/A.db-wal" "$out/A.db-shm" "$out/B.db" "$out/B.db-wal" "$out/B.db-shm"
for r in $(seq 0 $((rounds - 1))); do
  order="A B"; [ $((r % 2)) = 1 ] && order="B A"
  for label in $order; do
    tree=$tree_a; [ $label = B ] && tree=$tree_b
    echo "== round $((r + 1)) of $rounds: tree $label ($tree)" | tee -a "$log"
    "$(cli "$tree")" --db "$out/$label.db" bench --kernel "$kernels" --pass "$pass" \
      --sweep "$sweep" 2>&1 | tee -a "$log"
    status=${PIPESTATUS[0]}
    [ "$status" = 0 ] || { echo "gpu-ab.sh: tree $label's bench exited with $status (see $log)"; exit "$status"; }
  done
done
"$(cli "$here")" compare "$out/A.db" "$out/B.db" --runs-as-rounds --threshold "$threshold" \
  2>&1 | tee -a "$log"
"$(cli "$here")" compare "$out/A.db" "$out/B.db" --runs-as-rounds --threshold "$threshold" \
  --markdown >"$out/ab.md"
"$(cli "$here")" compare "$out/A.db" "$out/B.db" --runs-as-rounds --threshold "$threshold" \
  ${fail_on[@]+"${fail_on[@]}"} >/dev/null
status=$?
echo "markdown for a pull request: $out/ab.md"
exit $status
