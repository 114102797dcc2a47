// fa3_bwd: FlashAttention-3-style backward pass on Hopper (sm_90a): wgmma, TMA, warp
// specialization, register-resident dK/dV, dQ accumulated in float32 by TMA reduce-adds (hd128)
// or vector atomics (hd64, hd256).
//
// Algorithm (FA2 paper Algorithm 2; FA3's hopper/ backward, whose structure this follows).
// Three launches: bwd_common's preprocessing (D = rowsum(dO o O), LSE * log2 e, zeroed float32 dQ
// accumulator), the main kernel below, bwd_common's dQ conversion (times the softmax scale, to
// 16 bits); a fourth where long causal GQA groups split into their query heads
// (core/fa3_tiles.hpp): bwd_common's group reduction of the per-query-head dK, dV partials. The
// main kernel is a persistent grid (one CTA per SM) over tiles = (batch, kv head, key block of
// kBlockN = 128 keys), claimed one at a time from a global counter; causal tiles come in sections
// of heads small enough for L2, heaviest key block first (bwd_tile_scheduler.cuh). Each CTA has 3
// warpgroups (384 threads):
//   producer (warpgroup 0, setmaxnreg 24): one thread claims each tile, hands its index to the
//     consumers and the reduce warp (a TMA copy of its entry in an identity table, completing the
//     barrier they wait on), loads K and V once per tile by TMA and streams Q (with its rows' LSE *
//     log2 e, a 2-D tensor map: rows by query head) and dO (with D) of every query block into a
//     kStages-deep ring on full/empty mbarriers (hd256's dV pass: K alone, dO without D); at
//     hd128 one thread of a second warp adds each query block's dQ tile from shared memory into
//     the float32 accumulator with one TMA tensor reduce-add (cp.reduce.async.bulk.tensor .add)
//     per 32-column box (bwd_mainloop.cuh);
//   consumers (warpgroups 1-2, setmaxnreg 240): warpgroup w owns keys 64w..64w+63 and computes
//     the transposed products, so that wgmma's M dimension is keys and P^T, dS^T come out of the
//     accumulators already in the A-operand register layout:
//       S^T  = K_w Q^T              SS  m64 n{kBlockM}
//       P^T  = 2^(S^T scale log2 e - LSE log2 e)     registers (masked: causal, keys >= seqlen_k)
//       dP^T = V_w dO^T             SS  m64 n{kBlockM}
//       dV  += P^T dO               RS  m64 n{d}       (P^T from registers, dO N-major)
//       dS^T = P^T o (dP^T - D)     registers; written transposed (stmatrix .trans) to dS
//       dK  += dS^T Q               RS  m64 n{d}
//       dQ   = dS K                 SS  m64 n{d/2 or d} (K N-major: the new ss_tb wrapper), after
//                                   both warpgroups' dS columns are in shared memory (bar.sync);
//                                   at hd64 and hd256 added from registers by atomics (the
//                                   variant below); at hd128 staged in shared memory for the
//                                   reduce warp, the tile's rows
//                                   interleaved by halves (row r at 2 (r % (M/2)) + r / (M/2),
//                                   a 4-D tensor map's box) so that a half warp's 8-byte stores
//                                   take one wavefront, not two
//     dK and dV stay in registers across the tile's query loop (GQA: across the group's query
//     heads too, so dK/dV need no atomics, unless the group is split: then a tile is one query
//     head's and stores that head's share); at the end they are scaled, rounded and stored by TMA
//     through K's and V's buffers (bwd_epilogue.cuh).
//   Fully masked query blocks are skipped (a key block's loop starts at its causal diagonal);
//   diagonal blocks and the last key block are masked; query rows past seqlen_q have LSE +inf
//   (P = 0) and zero-filled Q, dO.
//
// Over fa2_bwd: wgmma from swizzled shared memory instead of mma.sync and ldmatrix, TMA and bulk
// copies from a producer warpgroup instead of per-thread cp.async, the transposed products (no
// register shuffles to feed P^T and dS^T to the dV/dK GEMMs), dQ accumulation by TMA reduce-adds
// from a shared-memory tile instead of per-element atomics, a persistent grid that claims tiles
// dynamically, heaviest first.
//
// Work: FLOPs = 2.5 x forward = 10 * b * h_q * sq * sk * d (five GEMMs of 2 * sq * sk * d each;
// causal: the unmasked area, core/shape.hpp). HBM bytes, main kernel: Q, dO once (2 * b*h_q*sq*d*2,
// when the CTAs of one head share L2), K, V read and dK, dV written once (4 * b*h_kv*sk*d*2),
// LSE and D (2 * b*h_q*sq*4); the dQ accumulator (b*h_q*sq*d*4) takes n_blocks reduce-adds per
// element in L2 and reaches HBM about once; preprocessing reads O, dO and zeroes the accumulator,
// the conversion reads it and writes dQ. At hd128, 16k tokens, hidden 2048, s = 4096 (b4 h16):
// 1.37 TFLOP (non-causal) against ~0.87 GB in all: compute-bound (floor at the lent H100's
// measured 797 TFLOP/s GEMM ceiling: 1.72 ms; bytes at its measured 3.0 TB/s: 0.29 ms).
//
// Tiles (bf16/fp16), keys x queries per step, shared memory:
//   hd64:  128 x 128, K + V 2 x 16, Q + dO 2 stages x (16 + 16), dS 2 x 32 = 160 KiB, dQ by
//          atomics (FA3's 128 x 128; the staging tile's 32 KiB measured 2-6% slower, run 17)
//   hd128: 128 x  64, K + V 2 x 32, Q + dO 2 x (16 + 16), dS 2 x 16, dQ staging 32 = 192 KiB
//          (FA3's causal tile; FA3 takes 80 queries non-causal)
//   hd256: 128 x  64, dQ by atomics. dK and dV of one warpgroup's 64 keys at d = 256 are
//          2 x 128 fp32 registers per thread, more than a consumer's 240, so hd256 runs the main
//          kernel twice: once for dV (S^T, P^T, dV; K 64, Q + dO 2 x (32 + 32) = 192 KiB: no V,
//          D or dS), once for dK and dQ (S^T, P^T, dP^T, dS^T, dK, dQ; K + V 2 x 64, Q + dO
//          1 x (32 + 32), dS 2 x 16 = 224 KiB): 6 GEMMs of work instead of 5 (+20%), Q and dO
//          read twice. The dK/dQ pass frees dO at dP's wait and Q at dK's, which it issues before
//          dQ, so the next block's loads run under this one on its single stage. (FA3 instead
//          splits dK^T/dV^T over head dims across its warpgroups with P and dS in shared memory,
//          at 80-key blocks.) The dK/dQ pass's second stage and the dQ staging tile do not fit
//          beside 128 KiB of K and V.
// Registers and spills (ptxas -v) and the measured figures: lib/kernels/fa3/NOTES_BWD.md.
//
// Variant (registry entry): fa3_bwd_atomics adds dQ with red.global.add.v4.f32 from the
// consumers' registers, one per m16n8 tile into the accumulator's mma_tiles order
// (bwd_common.hpp), instead of the staging tile and the reduce warp (fa3_bwd itself does so at
// hd64 and hd256: core/fa3_tiles.hpp says why). The other ablations: fa3_bwd_ablations.cu.
//
// Benchmark: build-gpu/tests/kernels/kernel_timing --pass bwd --kernels fa3_bwd --headdim 128
#include "kernels/fa3/bwd_launch.cuh"

namespace fa4::kernels {

using fa3::hopper_kernel;

extern const Kernel fa3_bwd_kernel;  // listed in registry.cpp
const Kernel fa3_bwd_kernel = hopper_kernel(
    "fa3_bwd",
    "FlashAttention-3-style backward: wgmma on transposed products, TMA, warp specialization, "
    "register-resident dK/dV, dQ by bulk reduce-add, persistent tiles",
    fa3::launch_bwd<fa3::BwdVariant{}>, fa3::bwd_workspace_bytes, fa3::bwd_unsupported_reason,
    Pass::bwd);

extern const Kernel fa3_bwd_atomics_kernel;
const Kernel fa3_bwd_atomics_kernel = hopper_kernel(
    "fa3_bwd_atomics", "fa3_bwd with dQ added by vector atomics from registers (no staging tile)",
    fa3::launch_bwd<fa3::BwdVariant{.dq_bulk_reduce = false}>, fa3::bwd_workspace_bytes,
    fa3::bwd_unsupported_reason, Pass::bwd);

}  // namespace fa4::kernels
