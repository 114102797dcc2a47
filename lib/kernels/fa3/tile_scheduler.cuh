// fa3's persistent tile scheduler: the grid is one CTA per SM (at most one per tile); tiles are
// dealt in rounds of `grid` tiles, round r going to CTAs 0..grid-1 in order when r is even and in
// reverse when r is odd (a snake). Every role of a CTA computes the same sequence, so the producer
// and the consumers need no messages to agree on it.
//
// Order. Non-causal: the query blocks of one (batch, head) are adjacent, so the CTAs that run
// together read the same K/V from L2. Causal: the heaviest query blocks (the last ones, which see
// the most keys) come first for every head, then the next heaviest, so the short tiles fill the
// tail of the schedule (longest-processing-time first, as FA3 and FA4 do). The snake matters
// there: with a plain stride, CTA 0 takes the heaviest tile of every round and CTA grid-1 the
// lightest; at s16384 hd128 (2048 tiles, sizes 128 down to 1 key blocks) that is ~12% more work
// for CTA 0 than for the last CTA, and the kernel waits for the slowest CTA.
#pragma once

#include "kernels/fa3/traits.cuh"

namespace fa4::kernels::fa3 {

struct Tile {
  int m_block;
  int head;
  int batch;
};

struct TileScheduler {
  int round = 0;

  __device__ __forceinline__ explicit TileScheduler(const Params&) {}
  // Whether round `round` exists; its tile for this CTA may still lie past the end (has_tile).
  __device__ __forceinline__ bool valid(const Params& p) const {
    return round * int(gridDim.x) < p.tiles;
  }
  __device__ __forceinline__ void advance() { ++round; }
  __device__ __forceinline__ int tile() const {
    const int cta = int(blockIdx.x);
    return round * int(gridDim.x) + ((round & 1) ? int(gridDim.x) - 1 - cta : cta);
  }
  __device__ __forceinline__ bool has_tile(const Params& p) const { return tile() < p.tiles; }

  __device__ __forceinline__ Tile current(const Params& p) const {
    const int t = tile();
    int m_block, bh;
    if (p.causal) {
      const int heads_total = p.heads_q * p.batch;
      m_block = p.m_blocks - 1 - t / heads_total;
      bh = t % heads_total;
    } else {
      m_block = t % p.m_blocks;
      bh = t / p.m_blocks;
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
