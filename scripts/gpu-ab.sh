#!/usr/bin/env bash
# On a machine with a CUDA GPU: A/B timing of the kernels of two source trees of the project, in
# alternating rounds so that both see the same clocks and temperatures (a single binary's
# `kernel_timing --rounds` cannot compare two revisions). Builds kernel_timing in each tree, then
# for each head dim runs tree A's and tree B's kernel_timing in turn, ROUNDS times. The rows go to
# $OUT/ab-A.csv and $OUT/ab-B.csv, the printed tables to $OUT/ab.log.
#
#   bash scripts/gpu-ab.sh TREE_A TREE_B [HEADDIMS] [KERNELS] [ROUNDS] [SEQLENS]
#     defaults: "64 128 256", fa2,fa3,fa4 (fa2_bwd,fa3_bwd with PASS=bwd), 2, 1024,8192 (both
#     masks, bf16, 16k tokens); PASS=bwd times the backward kernels (kernel_timing --pass bwd)
set -uo pipefail
tree_a=$(cd "$1" && pwd); tree_b=$(cd "$2" && pwd)
pass=${PASS:-fwd}
default_kernels=fa2,fa3,fa4; [ "$pass" = bwd ] && default_kernels=fa2_bwd,fa3_bwd
headdims=${3:-64 128 256}; kernels=${4:-$default_kernels}; rounds=${5:-2}; seqlens=${6:-1024,8192}
out=${OUT:-/tmp/gpu-ab}; mkdir -p "$out"
build_one() {  # tree label
  { cmake -S "$1" -B "$1/build-ab" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFA4_CUDA=ON \
      -DFA4_BUILD_BENCHMARKS=OFF && cmake --build "$1/build-ab" -j"$(nproc)" --target kernel_timing
  } >"$out/build-$2.log" 2>&1 || { echo "build $2 failed:"; grep -E "error" "$out/build-$2.log" | head; return 1; }
}
build_one "$tree_a" A & pid_a=$!
build_one "$tree_b" B & pid_b=$!
wait $pid_a && wait $pid_b || exit 1
echo "built kernel_timing in A ($tree_a) and B ($tree_b)"
for d in $headdims; do
  for r in $(seq "$rounds"); do
    for label in A B; do
      tree=$tree_a; [ $label = B ] && tree=$tree_b
      echo "== hd$d round $r tree $label"
      "$tree/build-ab/tests/kernels/kernel_timing" --pass "$pass" --kernels "$kernels" \
        --headdim "$d" --seqlens "$seqlens" --causal both --samples 20 --no-ceilings \
        --csv "$out/ab-$label.csv" \
        2>&1 | grep -vE '^(inputs|device|driver)' | tee -a "$out/ab.log"
    done
  done
done
