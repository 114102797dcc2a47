// fa3_bwd's persistent tile order and each tile's query loop. A tile is one key block of one
// (batch, kv head); a grid of min(tiles, SMs) CTAs walks the tiles in rounds, reversing the CTA
// order on odd rounds (the forward's snake, tile_scheduler.cuh, for balance).
//   Non-causal: head-major (all key blocks of a head side by side), so the CTAs of one head sweep
//     its Q and dO together and L2 serves all but the first read.
//   Causal (bottom-right aligned): a key block's work is the query blocks at or after its
//     diagonal, most for the first block, so each section of causal_group heads is taken
//     heaviest key block first (the host sizes sections to whole snake round pairs, as the
//     forward's causal sections: a section's heads stay resident in L2 together).
// Inside a tile the CTA loops over the query heads of its kv head's group (GQA: dK and dV sum in
// registers, no atomics) and, for each, over the query blocks that see the key block.
#pragma once

#include "kernels/fa3/bwd_traits.cuh"

namespace fa4::kernels::fa3 {

struct BwdTile {
  int n_block;
  int bh_kv;       // batch * heads_kv + kv head
  int m_first;     // first query block that sees the key block
  int m_count;     // query blocks per query head (0: no query row sees a key of the block)
  int iterations;  // m_count * heads_per_kv_head
};

struct BwdTileScheduler {
  int round = 0;

  __device__ __forceinline__ bool valid(const BwdParams& p) const {
    return round * int(gridDim.x) < p.tiles;
  }
  __device__ __forceinline__ void advance() { ++round; }
  __device__ __forceinline__ int tile_index() const {
    const int cta = int(blockIdx.x);
    return round * int(gridDim.x) + ((round & 1) ? int(gridDim.x) - 1 - cta : cta);
  }
  __device__ __forceinline__ bool has_tile(const BwdParams& p) const {
    return tile_index() < p.tiles;
  }

  template <class T>
  __device__ __forceinline__ BwdTile current(const BwdParams& p) const {
    const int t = tile_index();
    const int heads_total = p.heads_kv * p.batch;
    int n_block, bh;
    if (p.causal) {
      const int section_tiles = p.causal_group * p.n_blocks;
      const int section = t / section_tiles;
      const int within = t - section * section_tiles;
      const int group = min(p.causal_group, heads_total - section * p.causal_group);
      n_block = within / group;
      bh = section * p.causal_group + within % group;
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
};

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
