#!/usr/bin/env python3
"""Times torch scaled_dot_product_attention (flash and cuDNN backends) on the shapes kernel_timing
uses, so one device call yields our kernels and the peers from the same run on the same GPU.

Shapes: --tokens total (batch = tokens / seqlen), heads = --hidden / --headdim, layout (B, H, N, D).
FLOPs = 4 * B * H * N^2 * D, halved when causal. Median of triton.testing.do_bench (which clears
L2 before each repetition), inputs normal(0, 1) in the chosen dtype.

    python3 scripts/peers/sdpa_quick.py --headdim 128 --seqlens 4096,8192,16384 [--csv FILE]
"""
import argparse
import csv
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from triton.testing import do_bench

BACKENDS = {"sdpa_flash": SDPBackend.FLASH_ATTENTION, "sdpa_cudnn": SDPBackend.CUDNN_ATTENTION}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--headdim", type=int, default=128)
    parser.add_argument("--seqlens", default="4096,8192,16384")
    parser.add_argument("--causal", choices=["both", "0", "1"], default="both")
    parser.add_argument("--dtype", choices=["bf16", "fp16"], default="bf16")
    parser.add_argument("--tokens", type=int, default=16384)
    parser.add_argument("--hidden", type=int, default=2048)
    parser.add_argument("--warmup-ms", type=int, default=100)
    parser.add_argument("--rep-ms", type=int, default=500)
    parser.add_argument("--csv", help="also append the rows to this CSV file")
    args = parser.parse_args()

    dtype = torch.bfloat16 if args.dtype == "bf16" else torch.float16
    causal_modes = [False, True] if args.causal == "both" else [args.causal == "1"]
    heads = args.hidden // args.headdim
    print(f"device {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"cuDNN {torch.backends.cudnn.version()}")
    print(f"{'peer':<11} {'shape':<34} {'median_ms':>10} {'TFLOP/s':>9}")
    rows = []
    for seqlen in (int(s) for s in args.seqlens.split(",")):
        batch = args.tokens // seqlen
        q, k, v = (torch.randn(batch, heads, seqlen, args.headdim, device="cuda", dtype=dtype)
                   for _ in range(3))
        for causal in causal_modes:
            flops = 4.0 * batch * heads * seqlen * seqlen * args.headdim / (2 if causal else 1)
            shape = f"b{batch} h{heads} s{seqlen} d{args.headdim} {args.dtype}" + (" causal" if causal else "")
            for name, backend in BACKENDS.items():
                try:
                    with sdpa_kernel(backend):
                        ms = do_bench(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal),
                                      warmup=args.warmup_ms, rep=args.rep_ms, return_mode="median")
                except RuntimeError as error:  # a backend that refuses the shape
                    print(f"{name:<11} {shape:<34} unavailable: {str(error).splitlines()[0]}")
                    continue
                tflops = flops / (ms * 1e-3) / 1e12
                print(f"{name:<11} {shape:<34} {ms:>10.3f} {tflops:>9.1f}")
                rows.append({"peer": name, "shape": shape, "causal": int(causal), "seqlen": seqlen,
                             "median_ms": ms, "tflops": tflops})
    if args.csv and rows:
        fresh = not os.path.exists(args.csv)
        with open(args.csv, "a", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            if fresh:
                writer.writeheader()
            writer.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
