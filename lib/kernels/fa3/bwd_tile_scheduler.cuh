// fa3_bwd's persistent tile order and each tile's query loop. A tile is one key block of one
// (batch, kv head). Tile t is:
//   non-causal: head-major (all key blocks of a head side by side), so that the CTAs in flight
//     share one head's Q, dO and dQ accumulator in L2;
//   causal (bottom-right aligned): a key block's work is the query blocks at or after its
//     diagonal, most for the first block, so heads are taken in sections of causal_group, each
//     heaviest key block first. A section is small enough that its heads' Q, dO and dQ
//     accumulator stay in L2 and large enough that the light tiles of one section balance the
//     CTAs beside the heavy ones of the next (core/fa3_tiles.hpp's bwd_causal_section_heads);
//     where a section holds under half a grid of tiles, the last section takes the last
//     causal_tail_heads heads, enough that its own light tiles balance its heavy ones
//     (bwd_causal_tail_heads), at the price of an L2 that may not hold them all.
// Tiles are handed out dynamically: CTA c takes tile c first, then the next unclaimed one from a
// global counter (zeroed by preprocessing). The producer thread claims each tile and copies its
// index's entry of the identity table into shared memory with TMA on kv_full, beside K and V
// (and into a two-slot ring for the dQ reduce warp); the consumers read it after that wait, and
// the index p.tiles ends their loop.
// Inside a tile the CTA loops over the query heads of its kv head's group (GQA: dK and dV sum in
// registers, no atomics) and, for each, over the query blocks that see the key block. Where the
// launch splits GQA groups (BwdParams), a tile is one key block of one query head instead and
// its dK, dV are that head's share, summed over the group by a launch after the main kernel.
#pragma once

#include "kernels/fa3/bwd_traits.cuh"

namespace fa4::kernels::fa3 {

struct BwdTile {
  int n_block;
  int bh_kv;       // batch * heads_kv + kv head (of the tiles' heads: BwdParams)
  int m_first;     // first query block that sees the key block
  int m_count;     // query blocks per query head (0: no query row sees a key of the block)
  int iterations;  // m_count * heads_per_kv_head
};

// The CTA's first tile and each next one (an index >= p.tiles: none left).
__device__ __forceinline__ int first_tile() { return int(blockIdx.x); }
__device__ __forceinline__ int claim_next_tile(const BwdParams& p) {
  return int(gridDim.x) + atomicAdd(p.tile_counter, 1);
}

template <class T>
__device__ __forceinline__ BwdTile tile_at(const BwdParams& p, int t) {
  const int heads_total = p.heads_kv * p.batch;
  int n_block, bh;
  if (p.causal) {
    const int lead_heads = heads_total - p.causal_tail_heads;  // the heads before the last section
    int first_head, group, within;
    if (t < lead_heads * p.n_blocks) {
      const int section_tiles = p.causal_group * p.n_blocks;
      const int section = t / section_tiles;
      within = t - section * section_tiles;
      first_head = section * p.causal_group;
      group = min(p.causal_group, lead_heads - first_head);
    } else {
      within = t - lead_heads * p.n_blocks;
      first_head = lead_heads;
      group = p.causal_tail_heads;
    }
    n_block = within / group;
    bh = first_head + within % group;
  } else {
    n_block = t % p.n_blocks;
    bh = t / p.n_blocks;
  }
  // Query row i sees keys up to i + seqlen_k - seqlen_q: the block's first key is seen from
  // row n0 - (seqlen_k - seqlen_q) on.
  int m_first = 0;
  if (p.causal) {
    const int first_row = n_block * T::kBlockN - (p.seqlen_k - p.seqlen_q);
    m_first = first_row <= 0 ? 0 : first_row / T::kBlockM;
  }
  const int m_count = max(0, p.m_blocks - m_first);
  return BwdTile{n_block, bh, m_first, m_count, m_count * p.heads_per_kv_head};
}

// Query iteration `i` of a tile: query head (within the batch) and query block.
struct BwdQueryBlock {
  int bh_q;  // batch * heads_q + query head
  int m_block;
};
__device__ __forceinline__ BwdQueryBlock query_block(const BwdParams& p, const BwdTile& tile,
                                                     int i) {
  const int in_group = i / tile.m_count;
  const int batch = tile.bh_kv / p.heads_kv;
  const int head_kv = tile.bh_kv - batch * p.heads_kv;
  return BwdQueryBlock{batch * p.heads_q + head_kv * p.heads_per_kv_head + in_group,
                       tile.m_first + (i - in_group * tile.m_count)};
}

}  // namespace fa4::kernels::fa3
