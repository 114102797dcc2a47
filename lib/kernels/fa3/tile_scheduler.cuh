// fa3's persistent tile scheduler: the grid is one CTA per SM (at most one per tile), and CTA c
// takes tiles c, c + grid, c + 2 * grid, ... (a static stride: every role of the CTA computes the
// same sequence, so the producer and the consumers need no messages to agree on it).
//
// Order. Non-causal: the query blocks of one (batch, head) are adjacent, so the CTAs that run
// together read the same K/V from L2. Causal: the heaviest query blocks (the last ones, which see
// the most keys) come first for every head, then the next heaviest, so the short tiles fill the
// tail of the schedule (longest-processing-time first, as FA3 and FA4 do).
#pragma once

#include "kernels/fa3/traits.cuh"

namespace fa4::kernels::fa3 {

struct Tile {
  int m_block;
  int head;
  int batch;
};

struct TileScheduler {
  int tile;

  __device__ __forceinline__ explicit TileScheduler(const Params&) : tile(int(blockIdx.x)) {}
  __device__ __forceinline__ bool valid(const Params& p) const { return tile < p.tiles; }
  __device__ __forceinline__ void advance() { tile += int(gridDim.x); }

  __device__ __forceinline__ Tile current(const Params& p) const {
    int m_block, bh;
    if (p.causal) {
      const int heads_total = p.heads_q * p.batch;
      m_block = p.m_blocks - 1 - tile / heads_total;
      bh = tile % heads_total;
    } else {
      m_block = tile % p.m_blocks;
      bh = tile / p.m_blocks;
    }
    return Tile{m_block, bh % p.heads_q, bh / p.heads_q};
  }
};

// Key blocks a query tile needs: all, or (causal, bottom-right aligned: row i sees keys up to
// i + seqlen_k - seqlen_q) those up to the limit of its last row. 0 when every row is masked.
template <class T>
__device__ __forceinline__ int key_blocks(const Params& p, int m_block) {
  const int all = (p.seqlen_k + T::kBlockN - 1) / T::kBlockN;
  if (!p.causal) return all;
  const int key_end = min(p.seqlen_k, (m_block + 1) * T::kBlockM + p.seqlen_k - p.seqlen_q);
  return key_end <= 0 ? 0 : min(all, (key_end + T::kBlockN - 1) / T::kBlockN);
}

}  // namespace fa4::kernels::fa3
