#!/usr/bin/env bash
# On a machine with a CUDA GPU, after a CUDA build (scripts/gpu-check.sh build): run every
# registered kernel, forward and backward, under compute-sanitizer, memcheck (out-of-bounds and
# misaligned global and shared accesses, invalid frees, CUDA API errors) and racecheck
# (shared-memory hazards between threads), each over the GPU tests of a set of awkward shapes
# (tests/kernels/kernel_test.cpp for the forward kernels, kernel_bwd_test.cpp for the backward
# ones, named *_bwd*), every output still checked against the CPU oracle. One line per tool and kernel goes to stdout and $OUT/sanitize.log; the tools' own
# reports go to $OUT/sanitize-<tool>-<kernel>.log. Exit 1 when any run reports an error.
# racecheck reports WAR hazards inside cuBLAS's own sm90 GEMM kernels (nvjet_sm90_*, naive's two
# GEMMs: 4960 in one run over the shapes below), code we neither own nor can change; the script
# counts hazards per kernel and fails on any outside cuBLAS. (Restricting racecheck to our kernels
# with --kernel-name does not work here: the kernels filtered out are not run at all, and with
# them the sanitizer failed on a hardware exception.)
#
#   bash scripts/gpu-sanitize.sh            settings: FA4_BUILD_DIR (build-gpu),
#                                           FA4_SANITIZE_KERNELS, FA4_SANITIZE_TOOLS
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/gpu-check}
build=${FA4_BUILD_DIR:-$root/build-gpu}
tools=${FA4_SANITIZE_TOOLS:-memcheck racecheck}
tests=$build/tests/kernels/kernel_tests
# Every registered kernel unless FA4_SANITIZE_KERNELS names some (space-separated).
cli=$build/apps/fa4-analyze/fa4-analyze
kernels=${FA4_SANITIZE_KERNELS:-$("$cli" kernels --names 2>/dev/null)}
# Shapes from tests/kernels/kernel_test.cpp: every head dim, causal and not, GQA, seqlen_q !=
# seqlen_k both ways, a tile-remainder sequence (1000), a one-token sequence, fp16 beside bf16.
forward_shapes=(d64_s1000_bf16 d128_s1000_causal_bf16 d256_s1000_bf16 d256_s1000_causal_bf16
                gqa16to2_s100_causal_bf16 q1000_k100_causal_bf16 q300_k2000_bf16 s1_bf16
                q1_k1000_causal_fp16 d128_s1000_fp16)
# From tests/kernels/kernel_bwd_test.cpp: the same kinds (hd256 runs fa3_bwd's main kernel twice),
# plus MQA, rows that see no key (causal, seqlen_q > seqlen_k), a causal group long enough
# that both fa2_bwd and fa3_bwd split it into its query heads (gqa8to1_s8200), and a batch where
# fa2_bwd_deterministic's blocks walk several key blocks into one dQ slot (batch16_gqa4to2).
backward_shapes=(d64_s1000_bf16 d128_s1000_causal_bf16 d256_s1000_causal_bf16
                 gqa16to2_s300_causal_bf16 mqa16to1_s1000_causal_bf16 q1000_k100_causal_bf16
                 q300_k2000_bf16 s1_causal_bf16 q1_k1000_causal_fp16 d128_s1000_fp16
                 gqa8to1_s8200_causal_bf16 batch16_gqa4to2_q1500_k1700_causal_bf16)
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
mkdir -p "$out"
[ -x "$tests" ] || { echo "no $tests: build with CUDA first (scripts/gpu-check.sh build)"; exit 1; }
[ -x "$sanitizer" ] ||
  { echo "no compute-sanitizer (looked on PATH and in /usr/local/cuda/bin)"; exit 1; }
[ -n "$kernels" ] ||
  { echo "no kernels to check: $cli lists none (built without CUDA?)"; exit 1; }

failed=0
for tool in $tools; do
  for kernel in $kernels; do
    case $kernel in
      *_bwd*) shapes=("${backward_shapes[@]}") ;;
      *) shapes=("${forward_shapes[@]}") ;;
    esac
    filter=$(printf "*OnRandomInputs/${kernel}_%s:" "${shapes[@]}")
    log=$out/sanitize-$tool-$kernel.log
    extra=()
    [ "$tool" = racecheck ] && extra=(--racecheck-report hazard --print-limit 1000000)
    timeout -k 10 "${FA4_SANITIZE_TIMEOUT:-300}" "$sanitizer" --tool "$tool" --error-exitcode 86 \
      "${extra[@]}" "$tests" --gtest_filter="${filter%:}" >"$log" 2>&1
    rc=$?
    passed=$(grep -oE '\[  PASSED  \] [0-9]+' "$log" | grep -oE '[0-9]+$')
    summary=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1 | sed 's/^========= //')
    line="$tool $kernel: exit $rc, ${passed:-0} of ${#shapes[@]} shapes passed the oracle"
    line="$line, ${summary:-no summary}"
    if [ "$tool" = racecheck ] && [ "$rc" -eq 86 ]; then
      # The first thread line of each hazard names the kernel it happened in.
      kernels_hit=$(grep -A1 'hazard detected' "$log" | grep -oE 'Thread \([0-9,]+\) at [^+ ]+' |
                    sed 's/.* at //')
      ours=$(grep -vc '^nvjet_sm90_' <<<"$kernels_hit")
      line="$line: $ours in our kernels, the rest in cuBLAS (nvjet_sm90_*)"
      [ "$ours" -eq 0 ] && [ "${passed:-0}" -eq ${#shapes[@]} ] && rc=0
    fi
    echo "$line" | tee -a "$out/sanitize.log"
    [ "$rc" -eq 0 ] || failed=1
  done
done
exit $failed
