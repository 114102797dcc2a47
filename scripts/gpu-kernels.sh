#!/usr/bin/env bash
# One device-machine call for the Hopper kernels (lib/kernels/fa3 and lib/kernels/fa4, which runs
# on fa3's pipeline): configure and build the kernel tests and timing there, check the SASS of
# both (HGMMA present, no local memory), run the GPU tests of every fa3 and fa4 entry, and only
# when they all pass, time the kernels named in FA3_TIME_KERNELS at the head dims in
# FA3_TIME_HEADDIMS, or, when FA3_TIME_PLAN is set, each of its ';'-separated entries
# "kernels|headdim|seqlens|causal" (causal: both, 0 or 1), e.g.
# "fa3,fa4|128|2048,8192|both;fa3|256|512,1024|1". Run from the repository root:
#   bash .devdeps/setup.sh && bash scripts/gpu-kernels.sh
# Logs go to $OUT (build.log, sass.txt, tests.log, timing.csv, timing.log); the raw rows kept from
# past runs are under data/measurements/ (the kernels' NOTES.md files cite them).
set -uo pipefail
OUT=${OUT:-/tmp/fa3-out}
mkdir -p "$OUT"
build=${FA3_BUILD_DIR:-build-gpu}
kernels=${FA3_TIME_KERNELS:-fa2,fa3,fa3_no_pingpong,fa3_no_overlap,fa3_no_ws}
headdims=${FA3_TIME_HEADDIMS:-128}
seqlens=${FA3_TIME_SEQLENS:-512,1024,2048,4096,8192,16384}
samples=${FA3_TIME_SAMPLES:-10}
test_filter=${FA3_TEST_FILTER:-*fa3*:*fa4*:*Fa4*:*SoftwareExp2*}

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFA4_PTXAS_VERBOSE=ON >"$OUT/cfg.log" 2>&1 ||
  { tail -30 "$OUT/cfg.log"; exit 1; }
cmake --build "$build" -j16 --target kernel_tests kernel_timing >"$OUT/build.log" 2>&1 ||
  { grep -E "error" "$OUT/build.log" | head -30; exit 1; }
for unit in fa3 fa4; do
  obj=$(find "$build" -name "$unit.cu.o" | head -1)
  [ -n "$obj" ] || continue
  cuobjdump --dump-sass "$obj" >"$OUT/sass-$unit.txt" 2>&1
  echo "sass $unit: HGMMA $(grep -c HGMMA "$OUT/sass-$unit.txt"), LDL/STL $(grep -cE 'LDL|STL' "$OUT/sass-$unit.txt"), MUFU.EX2 $(grep -c 'MUFU.EX2' "$OUT/sass-$unit.txt"), UTMASTG $(grep -c 'UTMASTG' "$OUT/sass-$unit.txt")"
  # per kernel: instructions, MUFU.EX2, FADD.RM (software exp2 floors), BRA
  awk '/Function :/{if(f)printf "%s ins=%d ex2=%d faddrm=%d bra=%d\n",f,n,e,r,b; f=$3;n=e=r=b=0}
       /\/\*[0-9a-f]+\*\//{n++} /MUFU.EX2/{e++} /FADD.RM/{r++} /BRA/{b++}
       END{if(f)printf "%s ins=%d ex2=%d faddrm=%d bra=%d\n",f,n,e,r,b}' "$OUT/sass-$unit.txt" |
    sed -E 's/_ZN3fa47kernels3fa3[^T]*Traits//' >"$OUT/sass-$unit-summary.txt"
  gzip -f "$OUT/sass-$unit.txt"
done
cat "$OUT"/sass-*-summary.txt 2>/dev/null | head -60

timeout -k 10 "${FA3_TEST_TIMEOUT:-240}" "$build/tests/kernels/kernel_tests" \
  --gtest_filter="$test_filter" >"$OUT/tests.log" 2>&1
rc=$?
grep -E "^\[  (FAILED|PASSED|SKIPPED) |tests ran|Failure|error|mismatch|max" "$OUT/tests.log" | head -60
echo "kernel_tests rc=$rc"
[ "$rc" -eq 0 ] || exit 1
[ "${FA3_TIME:-1}" = 1 ] || exit 0
time_one() {  # kernels headdim seqlens causal [extra]
  timeout -k 10 "${FA3_TIME_TIMEOUT:-300}" "$build/tests/kernels/kernel_timing" --kernels "$1" \
    --headdim "$2" --seqlens "$3" --causal "$4" --samples "$samples" --csv "$OUT/timing.csv" $5 \
    2>&1 | tee -a "$OUT/timing.log"
}
if [ -n "${FA3_TIME_PLAN:-}" ]; then
  first=1
  IFS=';' read -ra entries <<<"$FA3_TIME_PLAN"
  for entry in "${entries[@]}"; do
    IFS='|' read -r k d sl c <<<"$entry"
    extra=--no-ceilings
    [ $first = 1 ] && extra= && first=0
    time_one "$k" "$d" "$sl" "${c:-both}" "$extra"
  done
  exit 0
fi
first=1
for d in ${headdims//,/ }; do
  extra=--no-ceilings
  [ $first = 1 ] && extra= && first=0
  time_one "$kernels" "$d" "$seqlens" both "$extra"
done
