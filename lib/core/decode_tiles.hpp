// fa3_decode's tiles and split count (lib/kernels/decode) as pure functions of the shape and the
// SM count, shared with the model. Plain C++, no CUDA.
//
// GQA packing: the g = heads_q / heads_kv query heads that share a KV head, each with its seqlen_q
// rows, are consecutive rows of Q ([batch][heads_q][seqlen_q][headdim], heads_q = heads_kv * g),
// so one (batch, KV head) is a block of g * seqlen_q packed rows, row r = i * seqlen_q + t for
// query head i and query t, read with one KV stream. Decode with g = 8 fills 8 rows of a tile
// instead of 8 tiles reading the same keys.
// Split-KV: the key range of one (batch, KV head, row block) is cut into `splits` contiguous
// parts, one CTA each, which write a float32 O and LSE per part; a combine weights them by LSE.
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/shape.hpp"

namespace fa4::decode_tiles {

// Packed rows per CTA: one consumer warpgroup, one wgmma m64 (rows past the pack are TMA's
// zero fill and are not stored).
inline constexpr int kBlockM = 64;
// At most this many key-range parts per row block (the combine keeps one weight per part).
inline constexpr int kMaxSplits = 128;

// Keys per block: 128, a K + V stage of 64 KiB at hd128; 64 at hd256, where O alone holds 128
// fp32 registers per thread and a 128-key stage would be 128 KiB.
constexpr int key_block(std::int64_t headdim) { return headdim == 256 ? 64 : 128; }

constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// g * seqlen_q: the rows of one (batch, KV head).
constexpr std::int64_t packed_rows(const AttnShape& shape) {
  return shape.heads_q / shape.heads_kv * shape.seqlen_q;
}
// Row blocks per (batch, KV head), and in the whole problem.
constexpr std::int64_t row_blocks_per_pack(const AttnShape& shape) {
  return ceil_div(packed_rows(shape), kBlockM);
}
constexpr std::int64_t row_blocks(const AttnShape& shape) {
  return shape.batch * shape.heads_kv * row_blocks_per_pack(shape);
}
constexpr std::int64_t key_blocks(const AttnShape& shape) {
  return ceil_div(shape.seqlen_k, key_block(shape.headdim));
}

// A CTA's fixed cost in key blocks: the first K/V stage's load latency before any work and the
// epilogue after the last, about one block's streaming time each at the measured rates
// (lib/kernels/decode/NOTES.md).
inline constexpr std::int64_t kCtaFixedBlocks = 1;

// The split count: the smallest that minimises the busiest SM's work, one CTA per SM (the K/V
// stages fill shared memory), CTAs dealt in waves of `sms`:
//   cost(s) = ceil(row_blocks * s / sms) * (ceil(key_blocks / s) + kCtaFixedBlocks).
// A memory-bound kernel streams at a rate per busy SM, so the busiest SM's blocks are the time;
// more parts shorten each CTA but add waves and fixed costs. s = 1 when the row blocks already
// fill the SMs and no split shortens the longest one.
constexpr int choose_splits(const AttnShape& shape, int sms) {
  const std::int64_t rows = row_blocks(shape);
  const std::int64_t keys = key_blocks(shape);
  const std::int64_t most = std::min<std::int64_t>(kMaxSplits, std::max<std::int64_t>(keys, 1));
  int best = 1;
  std::int64_t best_cost = -1;
  for (std::int64_t s = 1; s <= most; ++s) {
    const std::int64_t cost = ceil_div(rows * s, sms) * (ceil_div(keys, s) + kCtaFixedBlocks);
    if (best_cost < 0 || cost < best_cost) {
      best_cost = cost;
      best = int(s);
    }
  }
  return best;
}

// The split count a decode kernel runs: the shape's forced count, else choose_splits. A ragged
// batch is cut as its longest sequence (seqlen_k); shorter ones leave some parts empty.
constexpr int splits_for(const AttnShape& shape, int sms) {
  return shape.splits ? int(shape.splits) : choose_splits(shape, sms);
}

}  // namespace fa4::decode_tiles
