// fa3's tile choice (lib/kernels/fa3, and fa4 on its pipeline) as pure constexpr functions of the
// shape, with the reason for each rule: the kernels instantiate these tiles and the model
// (lib/model/algorithm_traits.cpp, lib/orchestration/kernel_models.cpp) predicts with the same
// ones; fa3_bwd's blocks likewise (lib/kernels/fa3/bwd_traits.cuh). Plain C++, no CUDA.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>

namespace fa4::fa3_tiles {

// Query rows per tile: two consumer warpgroups of 64 rows (one wgmma m64 each), FA3's 128.
inline constexpr int kBlockM = 128;

enum class KeyBlocks { standard, wide, narrow };

// Keys per block for a head dim the kernel has tiles for (64, 128, 256). FA3's tiles
// (hopper/tile_size.h): 128 keys; at hd256, where O takes 128 registers per thread and a K/V stage
// 40 KiB, 80 keys. Wide blocks (FA3's non-causal choice) halve the per-block fixed costs
// (barriers, row max and sum shuffles, the correction of O) per key, at more S/P registers: 192 at
// hd64, 176 at hd128 (none at hd256). Narrow blocks (hd256 only): 48 keys, so that two Q buffers
// fit beside the K/V stages (2 x 64 + 2 x (24 + 24) = 224 KiB): the next tile's Q loads early and
// O leaves by TMA, as at hd64/hd128.
constexpr int key_block_width(int headdim, KeyBlocks blocks) {
  if (headdim == 256) return blocks == KeyBlocks::narrow ? 48 : 80;
  if (blocks != KeyBlocks::wide) return 128;
  return headdim == 64 ? 192 : 176;
}

// fa3's key blocks for a shape, measured on the H200 (lib/kernels/fa3/NOTES.md):
//   wide (192 keys) at hd64 from seqlen_k 4096 (run 3: +2% at s4096, +3-5% at s16384, but -9% at
//     s1024, where 192 does not divide the sequence; at hd128 176-key blocks moved -1.5..+2%);
//   narrow (48 keys, two Q buffers) at hd256 up to seqlen_k 512 (run 8: +13% causal, +4%
//     non-causal at s512; -8% non-causal at s1024, +1% causal, -10..-14% from s2048).
inline constexpr std::int64_t kWideFromSeqlen = 4096;
inline constexpr std::int64_t kNarrowUpToSeqlen = 512;
constexpr KeyBlocks key_blocks_for(std::int64_t headdim, std::int64_t seqlen_k) {
  if (headdim == 64 && seqlen_k >= kWideFromSeqlen) return KeyBlocks::wide;
  if (headdim == 256 && seqlen_k <= kNarrowUpToSeqlen) return KeyBlocks::narrow;
  return KeyBlocks::standard;
}

// fa3_bwd (lib/kernels/fa3/bwd_traits.cuh; FA3's hopper/flash_bwd_launch_template.h): 128 keys
// per CTA tile (two consumer warpgroups of 64 keys, wgmma's M dimension) and per step 128 queries
// at hd64, 64 at hd128 and hd256, where dK and dV take d/2 registers per thread each.
inline constexpr int kBwdBlockN = 128;
constexpr int bwd_query_block(int headdim) { return headdim == 64 ? 128 : 64; }
// dQ = dS K per consumer warpgroup, in 64-column chunks: a 128-query block splits its rows over the
// two warpgroups (every column each), a 64-query block its columns (d / 2 each). Chunks after the
// first are issued, waited for and added one after the other (hd256: 2 a warpgroup).
constexpr int bwd_dq_chunks(int headdim) {
  return (bwd_query_block(headdim) == 128 ? headdim : headdim / 2) / 64;
}
// Q and dO ring stages of a pass: 2, or 1 in hd256's dK/dQ pass, where K and V take 128 KiB of
// shared memory (its dV pass loads no V, and V's 64 KiB make room for the second stage).
constexpr int bwd_ring_stages(int headdim, bool dv_pass) {
  return headdim == 256 && !dv_pass ? 1 : 2;
}
// fa3_bwd adds dQ by TMA reduce-adds from a shared-memory staging tile at hd128, one tensor
// reduce-add per 32-column box: 1.07-1.14x faster than the one-bulk-add-per-row tile it replaced
// (lent H200, 2026-11-26: lib/kernels/fa3/NOTES_BWD.md, run 9), and 2-4% faster than vector
// atomics in the order of the mma fragments (2026-11-28, run 16). At hd64 those atomics are
// 4-6% faster than the tile, both masks, s1024-8192 (2026-11-28, run 17); at hd256 the tile does
// not fit beside K and V.
constexpr bool bwd_dq_bulk_reduce(int headdim) { return headdim == 128; }
// fa3_bwd keeps each warpgroup's GEMMs in flight under its own exp2 and dS work except at hd64,
// where ptxas serializes that loop anyway (128 queries a step: too few registers, warning C7512)
// and waiting for each GEMM as it is issued measured 1.09-1.15x faster at s4k and s16k, both
// masks; at hd128 the two are within 1% except s16k causal (overlap 1.06-1.09x faster), at hd256
// overlap is 1-2% faster (lent H200, alternating rounds: lib/kernels/fa3/NOTES_BWD.md, run 5).
constexpr bool bwd_overlap_gemms(int headdim) { return headdim != 64; }

// fa3_bwd's causal tiles come in sections of this many kv heads (bwd_tile_scheduler.cuh), each
// heaviest key block first, claimed dynamically by a grid of `grid` CTAs: enough tiles for the
// claims to balance (two grids' worth, a power of two of heads), but no more heads than half the
// L2 holds of their Q, dO (16 bits) and dQ accumulator (float32). At s16384 hd128 one head's are
// 16 MiB: sections of 33 heads (the earlier static order's) read 98 GB from DRAM at 1 x 128 x
// 16384 causal where sections of 1 read 12 GB (lent H200, ncu, lib/kernels/fa3/NOTES_BWD.md run 7).
constexpr int bwd_causal_section_heads(int n_blocks, int kv_heads, int heads_per_kv_head,
                                       std::int64_t seqlen_q, int headdim, unsigned grid,
                                       std::int64_t l2_bytes) {
  const int balanced = int(std::bit_ceil(unsigned((2 * int(grid) + n_blocks - 1) / n_blocks)));
  const std::int64_t head_bytes =
      std::int64_t(heads_per_kv_head) * seqlen_q * headdim * (2 + 2 + 4);
  const std::int64_t fit = std::max<std::int64_t>(1, l2_bytes / 2 / head_bytes);
  const int fitting = int(std::bit_floor(std::uint64_t(fit)));
  return std::clamp(std::min(balanced, fitting), 1, std::max(1, kv_heads));
}

// The last causal section is larger where a section holds under half a grid of tiles: then the
// last section's heaviest key blocks, claimed last, end the launch alone, and it takes enough
// heads for two grids' worth (ceil(2 x grid / key blocks)) so that its light tiles keep the other
// CTAs busy. hd256 s2048 causal has sections of 4 heads = 64 tiles for 132 CTAs: SMs active 90% of
// the passes' time (cuDNN's main kernel: 94%; ncu on the lent H200). Measured there (alternating
// processes, NOTES_BWD.md run 11): hd256 causal s512-4096 +1.4% to +7.5%; where a section already
// holds about a grid (hd256 s16384: 128 tiles), the larger last section lost 3-5% to L2 misses
// (3 heads of 33.5 MB), and hd128 s4096 (128 tiles) 1%: there the sections stay as they are.
constexpr int bwd_causal_tail_heads(int n_blocks, int kv_heads, int section_heads,
                                    unsigned grid) {
  if (2 * std::int64_t(section_heads) * n_blocks >= std::int64_t(grid)) return section_heads;
  const int balanced = int((2 * grid + unsigned(n_blocks) - 1) / unsigned(n_blocks));
  return std::clamp(balanced, 1, std::max(1, kv_heads));
}

// fa3_bwd splits a causal GQA group into its query heads: a tile walks one query head's query
// blocks and stores that head's share of dK and dV into the workspace, and a launch after the
// main kernel sums each group's shares (cuDNN's structure: per-query-head dK, dV and its
// fmha_reduce_head launches). A tile that walks the whole group holds the Q, dO and dQ
// accumulator of all its query heads in flight, and the CTAs of one kv head drift apart over
// them. Measured on the lent H200 (hd128 bf16 causal, 16k tokens, TFLOP/s, split / group walk;
// lib/kernels/fa3/NOTES_BWD.md, run 8): 128/8 heads s16384 502 / 449, s4096 452 / 388; 64/8
// s4096-32768 +10-13%; 32/8 s4096-32768 +2-6%; but s1024 290 / 328 (32/8) and 305 / 315 (64/8),
// one query row 2.0 / 6.5 (each split tile reloads K and V for a few queries), groups of 2 at
// s16384 -2%, hd64 at 32/8 s16384 -1%; hd256 at 8/2 s16384 +2.6%.
constexpr bool bwd_split_gqa_groups(bool causal, int heads_per_kv_head, std::int64_t seqlen_q,
                                    int headdim) {
  return causal && heads_per_kv_head >= 4 && seqlen_q >= 4096 && headdim >= 128;
}

}  // namespace fa4::fa3_tiles
