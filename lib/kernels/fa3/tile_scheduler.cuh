// fa3's persistent tile scheduler: the grid is one CTA per SM (at most one per tile); tiles are
// dealt in rounds of `grid` tiles, round r going to CTAs 0..grid-1 in order when r is even and in
// reverse when r is odd (a snake). Every role of a CTA computes the same sequence, so the producer
// and the consumers need no messages to agree on it.
//
// Order. Non-causal: the query blocks of one (batch, head) are adjacent, so the CTAs that run
// together read the same K/V from L2. Causal: heads are taken in sections of p.causal_group
// (batch, head) pairs; inside a section the heaviest query blocks (the last ones, which see the
// most keys) come first for every head of the section, then the next heaviest
// (longest-processing-time first, as FA3 and FA4 do). With one section (causal_group = all
// heads) the heavy tiles of every head run before any light one, so at short sequences the
// tiles running together belong to different heads and each head's K/V comes back from HBM once
// per query block (at s512 hd128: 328 MB of K/V reads instead of 134). Sections keep a head's
// query blocks close in time, so its K/V is read from HBM about once. The host sizes a section
// to a whole number of snake round pairs (2 * grid tiles) where the heads allow, so each pair of
// rounds is balanced as a whole: CTA c's tiles at positions c and 2 * grid - 1 - c of a
// heavy-to-light run add up to the same work. The snake matters for balance: with a plain
// stride, CTA 0 would take the heaviest tile of every round and CTA grid-1 the lightest; at
// s16384 hd128 (2048 tiles, sizes 128 down to 1 key blocks) that is ~12% more work for CTA 0.
//
// The host half (the grid and the section size) is at the end; launch.cuh calls it.
#pragma once

#include <algorithm>
#include <numeric>

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
      const int section_tiles = p.causal_group * p.m_blocks;
      const int section = t / section_tiles;
      const int within = t - section * section_tiles;
      const int group = min(p.causal_group, heads_total - section * p.causal_group);
      m_block = p.m_blocks - 1 - within / group;
      bh = section * p.causal_group + within % group;
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

// ---- host: the grid and the causal sections ----

// The persistent grid: one CTA per SM, at most one per tile.
inline unsigned persistent_grid(int tiles, int sms) { return unsigned(std::min(tiles, sms)); }

// Params::causal_group: the fewest (batch, head) pairs whose tiles fill whole snake round pairs
// (2 * grid tiles), at most all of them (FA3's global heaviest-first order).
inline int causal_section_heads(int m_blocks, int heads_total, unsigned grid) {
  const int round_pair = 2 * int(grid);
  return std::min(heads_total, round_pair / std::gcd(m_blocks, round_pair));
}

}  // namespace fa4::kernels::fa3
