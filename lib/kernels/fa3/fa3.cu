// fa3: FlashAttention-3 forward (Shah et al., arXiv 2407.08608) on Hopper (sm_90a): wgmma, TMA,
// warp specialization, ping-pong and intra-warpgroup overlap; plus three ablation variants.
//
// Algorithm. A persistent grid (one CTA per SM) walks 128-row query tiles in a snake order;
// causal: heaviest tiles first inside sections of heads sized to whole snake round pairs, so a
// head's K/V is read from HBM about once (tile_scheduler.cuh).
// Each CTA has 3 warpgroups (384 threads, __launch_bounds__(384, 1)):
//   producer (warpgroup 0, setmaxnreg 24): one thread issues TMA copies (cp.async.bulk.tensor,
//     128-byte swizzle) of Q and of K/V blocks into 2-stage circular buffers, each slot guarded
//     by a full mbarrier (TMA transaction bytes) and an empty mbarrier (one arrival per consumer
//     warp) (mainloop.cuh); at hd64/hd128 (and hd256 with 48-key blocks) Q is double-buffered
//     and the next tile's Q is issued right after the current tile's first K/V items
//     (kernel.cuh: producer_loop);
//   consumers (warpgroups 1-2, setmaxnreg 240): warpgroup w owns query rows 64w..64w+63 of the
//     tile and, over key blocks j from last to first:
//       S = Q_w K_j^T        wgmma m64n{kBlockN}k16, both operands from shared memory (SS)
//       online softmax       exp2 with the scale folded in (softmax.cuh)
//       O += P V_j           wgmma m64n{d}k16, P from registers (RS), V N-major (transposed B)
//     Intra-warpgroup overlap: S_(j-1) = Q K_(j-1)^T and O += P_j V_j are issued back to back and
//     the softmax of S_(j-1) runs while P V still runs (two S register tiles: S and P).
//     Ping-pong: named barriers (bar.sync 1|2, 256) hand the tensor cores from one consumer
//     warpgroup to the other after each issue, so one's softmax overlaps the other's GEMMs.
//   Epilogue: O / l and LSE = (m * scale * log2 e + log2 l) * ln 2. At hd64/hd128 each
//     warpgroup writes O into its slice of the tile's Q buffer (swizzled like Q) and one thread
//     stores it with TMA (cp.async.bulk.tensor store), freeing the buffer for the Q load two tiles
//     ahead once the store has read it; the warpgroup goes straight on to its next tile. hd256
//     with 80-key blocks (no shared memory left for a second Q buffer) stores O from registers
//     (epilogue.cuh).
// FA3 pairs its two consumer warpgroups the same way: both share one 128-row tile and one K/V
// pipeline (kBlockM = 128, 64 rows each), and the scheduler barrier alternates their GEMM issue.
//
// Over fa2: wgmma (a warpgroup-wide asynchronous MMA, 64 x N per instruction, operands read
// straight from swizzled shared memory: no ldmatrix) instead of mma.sync; TMA instead of
// per-thread cp.async; a dedicated producer warpgroup and register reallocation; GEMM/softmax
// overlap within and across warpgroups; a persistent scheduler (heaviest causal tiles first).
//
// Work: FLOPs = 4 * b * h_q * sq * sk * d (causal: the unmasked area, core/shape.hpp).
// HBM bytes: Q, O once (2 * b*h_q*sq*d*2), LSE b*h_q*sq*4, K and V once per kv head when the
// tiles of one head share L2 (2 * b*h_kv*sk*d*2); L2 sees K and V once per query tile.
// At hd128, sq = sk = 8192, b2 h16: 1.1 TFLOP against 134 MB: compute-bound (floor at the
// measured 782 TFLOP/s GEMM ceiling: 1.41 ms; HBM floor at 4.8 TB/s: 28 us).
//
// Tiles (bf16/fp16), kBlockM x kBlockN, shared memory = Q stages + 2 stages x (K + V):
//   hd64:  128 x 128, 2 x 16 + 2 x (16 + 16) =  96 KiB   (128 x 192 when wide: 128 KiB)
//   hd128: 128 x 128, 2 x 32 + 2 x (32 + 32) = 192 KiB   (128 x 176 in fa3_wide: 1 Q, 208 KiB)
//   hd256: 128 x  80, 1 x 64 + 2 x (40 + 40) = 224 KiB   (227 KiB limit)
//          128 x  48, 2 x 64 + 2 x (24 + 24) = 224 KiB   (narrow: seqlen_k <= 512)
// fa3_no_ws keeps one Q buffer and the register epilogue.
// The kernel (kernel.cuh) and its host launch (launch.cuh) are shared with fa4 (lib/kernels/fa4).
// Registers and spills (ptxas -v) and the measured figures: lib/kernels/fa3/NOTES.md.
//
// Key blocks (core/fa3_tiles.hpp: key_blocks_for): fa3 takes 192-key blocks at hd64 when seqlen_k
// >= 4096 and 48-key blocks at hd256 when seqlen_k <= 512, where the per-tile costs dominate and
// the freed shared memory holds a second Q buffer (the early Q load and the TMA-store epilogue).
// fa3_wide and fa3_narrow force those blocks at every shape, so the GPU tests cover both.
// Variants (registry entries): fa3_no_pingpong (no scheduler barriers), fa3_no_overlap (S, wait,
// softmax, P V, wait), fa3_no_ws (no producer warpgroup: 256 threads, thread 0 of consumer 0
// issues the TMA copies two items ahead of its own use; no ping-pong, no setmaxnreg).
//
// Benchmark: build-gpu/tests/kernels/kernel_timing --kernels fa2,fa3 --headdim 128
#include "kernels/fa3/launch.cuh"

namespace fa4::kernels {
namespace fa3 {
namespace {

// fa3_narrow: 48-key blocks at hd256 at every seqlen (fa3 takes them up to seqlen_k 512), fa3
// itself at the other head dims.
Status launch_fa3_narrow(const AttnShape& shape, const AttnBuffers& buffers, Stream stream) {
  return shape.headdim == 256 ? launch_headdim<Variant{.narrow_key_blocks = true}, 256>(
                                    shape, buffers, stream, SoftmaxOptions{})
                              : launch_fa3(shape, buffers, stream);
}

}  // namespace
}  // namespace fa3

// The registry's fa3 entries (declared in registry.cpp).
using fa3::hopper_kernel;
using fa3::Variant;

extern const Kernel fa3_kernel;
const Kernel fa3_kernel = hopper_kernel(
    "fa3",
    "FlashAttention-3 forward: wgmma, TMA, warp specialization, ping-pong, intra-warpgroup "
    "overlap, persistent tiles",
    fa3::launch_fa3);

extern const Kernel fa3_wide_kernel;
const Kernel fa3_wide_kernel = hopper_kernel(
    "fa3_wide", "fa3 with FA3's wide key blocks at every shape (hd64 128x192, hd128 128x176)",
    fa3::launch<Variant{.wide_key_blocks = true}>);

extern const Kernel fa3_narrow_kernel;
const Kernel fa3_narrow_kernel = hopper_kernel(
    "fa3_narrow",
    "fa3 with 48-key blocks at hd256, leaving room for a second Q buffer (early Q load, O stored "
    "by TMA); fa3 at hd64/hd128",
    fa3::launch_fa3_narrow);

extern const Kernel fa3_no_pingpong_kernel;
const Kernel fa3_no_pingpong_kernel = hopper_kernel(
    "fa3_no_pingpong", "fa3 without the ping-pong named barriers between consumer warpgroups",
    fa3::launch<Variant{.pingpong = false}>);

extern const Kernel fa3_no_overlap_kernel;
const Kernel fa3_no_overlap_kernel = hopper_kernel(
    "fa3_no_overlap", "fa3 without intra-warpgroup overlap (S, softmax, P V in sequence)",
    fa3::launch<Variant{.intra_overlap = false}>);

extern const Kernel fa3_no_ws_kernel;
const Kernel fa3_no_ws_kernel = hopper_kernel(
    "fa3_no_ws", "fa3 without warp specialization: consumer warpgroups issue their own TMA copies",
    fa3::launch<Variant{.warp_specialized = false, .pingpong = false}>);

}  // namespace fa4::kernels
