// fa3_decode's tiles and work partition (lib/kernels/decode) as pure functions of the shape and
// the SM count, shared with the model and evaluated by the kernels themselves (constexpr on plain
// integers). Plain C++, no CUDA.
//
// GQA packing: the g = heads_q / heads_kv query heads that share a KV head, each with its seqlen_q
// rows, are consecutive rows of Q ([batch][heads_q][seqlen_q][headdim], heads_q = heads_kv * g),
// so one (batch, KV head) is a block of g * seqlen_q packed rows, row r = i * seqlen_q + t for
// query head i and query t, read with one KV stream. Decode with g = 8 fills 8 rows of a tile
// instead of 8 tiles reading the same keys.
//
// Work: a unit is one key block of one row block. The balanced partition (the registry's
// fa3_decode) numbers every unit of the problem, row block by row block (a ragged batch's empty
// sequences have none), and deals `parts` contiguous, equal ranges of them to as many CTAs, one per
// SM: every SM streams the same number of key blocks whatever the batch, cache lengths or
// raggedness, and a CTA whose range crosses row blocks writes a float32 partial for each row block
// it does not cover whole. The split partition (FlashDecoding) cuts each row block's key blocks
// into `splits` parts of its own. chosen_partition picks between them: balanced for a ragged
// batch, split (SMs / row blocks parts, whole row blocks from there up) for a uniform one.
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/shape.hpp"

namespace fa4::decode_tiles {

// Packed rows per CTA: one consumer warpgroup, one wgmma m64 (rows past the pack are TMA's
// zero fill and are not stored).
inline constexpr int kBlockM = 64;
// At most this many parts per row block: the combine keeps one weight per part (the balanced
// partition gives a row block at most `parts` of them, one per SM).
inline constexpr int kMaxParts = 256;
// At most this many key-range parts per row block in the split partition.
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

// What the unit count of a pack depends on besides its sequence's keys.
struct PackGeometry {
  int packed_rows;
  int row_blocks;  // per pack
  int seqlen_q;
  int block_n;
  bool causal;
};
constexpr PackGeometry geometry(const AttnShape& shape) {
  return PackGeometry{int(packed_rows(shape)), int(row_blocks_per_pack(shape)), int(shape.seqlen_q),
                      key_block(shape.headdim), shape.causal};
}

// The key blocks row block `rb` of a pack over `keys` keys reads. Causal (bottom-right aligned):
// query t sees keys up to t + keys - seqlen_q, so the block needs keys up to its largest t's limit.
constexpr int row_block_units(const PackGeometry& g, int keys, int rb) {
  int key_end = keys;
  if (g.causal) {
    const int row0 = rb * kBlockM;
    const int last = std::min(row0 + kBlockM, g.packed_rows) - 1;
    const bool wraps = last - row0 + 1 >= g.seqlen_q || row0 % g.seqlen_q > last % g.seqlen_q;
    const int max_t = wraps ? g.seqlen_q - 1 : last % g.seqlen_q;
    key_end = std::min(keys, max_t + keys - g.seqlen_q + 1);
  }
  return key_end <= 0 ? 0 : (key_end + g.block_n - 1) / g.block_n;
}
// The units of one pack (all its row blocks), and of the row blocks before `rb` in it.
constexpr std::int64_t units_before(const PackGeometry& g, int keys, int rb) {
  std::int64_t units = 0;
  for (int b = 0; b < rb; ++b) units += row_block_units(g, keys, b);
  return units;
}
constexpr std::int64_t pack_units(const PackGeometry& g, int keys) {
  return units_before(g, keys, g.row_blocks);
}
// Every unit of the problem.
inline std::int64_t total_units(const AttnShape& shape) {
  const PackGeometry g = geometry(shape);
  std::int64_t units = 0;
  for (std::int64_t b = 0; b < shape.batch; ++b) units += pack_units(g, int(keys_of(shape, b)));
  return units * shape.heads_kv;
}

// The split partition's part `part` of a row block's `units` key blocks in `splits` parts: parts
// of ceil(units / splits) blocks from the first, so the last ones may be short or empty.
struct SplitPart {
  int first;
  int blocks;
};
constexpr SplitPart split_part(int units, int splits, int part) {
  const int per_part = (units + splits - 1) / splits;
  const int first = part * per_part;
  return SplitPart{first, std::max(0, std::min(units, first + per_part) - first)};
}

// The balanced partition's CTA count: `most` (one per SM), fewer when there are fewer units (at
// least one, so that a batch of empty sequences still runs the combine that writes their O and
// LSE).
constexpr std::int64_t balanced_parts(std::int64_t units, int most) {
  return std::max<std::int64_t>(1, std::min<std::int64_t>(units, most));
}
// The registry entry's partition: balanced over `count` CTAs, or `count` split parts per row
// block (1: each row block whole in one CTA, no partials, no combine). A ragged batch is dealt in
// balanced units: its row blocks differ in length (one 8k sequence among fifteen short ones ran
// in 50 us balanced, 113 us split; lib/kernels/decode/NOTES.md, runs 5 and 7). A uniform batch is
// split into SMs / row blocks parts per row block, at most its key blocks: the balanced partition
// was 1-22% slower there (batch 1 at 8k-128k keys, batch 8 at 2k and 32k: run 9) and whole row
// blocks 2% faster once they fill the SMs (batch 32 at 8k: run 7).
struct ChosenPartition {
  bool balanced;
  std::int64_t count;
};
inline ChosenPartition chosen_partition(const AttnShape& shape, int sms) {
  if (!shape.seqlens_k.empty()) return {true, balanced_parts(total_units(shape), sms)};
  const std::int64_t most =
      std::min<std::int64_t>(kMaxSplits, std::max<std::int64_t>(1, key_blocks(shape)));
  return {false, std::clamp<std::int64_t>(sms / row_blocks(shape), 1, most)};
}
// Part c's range is [first_unit(c), first_unit(c + 1)); unit u lies in part part_of(u).
constexpr std::int64_t first_unit(std::int64_t c, std::int64_t units, std::int64_t parts) {
  return c * units / parts;
}
constexpr std::int64_t part_of(std::int64_t u, std::int64_t units, std::int64_t parts) {
  return ((u + 1) * parts - 1) / units;
}
// A row block covered by parts c_lo..c_hi keeps its partials in slots r + c_lo..r + c_hi: slots
// never collide (a later row block's first part is at least an earlier one's last), and there
// are at most row_blocks + parts of them.
constexpr std::int64_t balanced_slots(std::int64_t row_blocks, std::int64_t parts) {
  return row_blocks + parts;
}

}  // namespace fa4::decode_tiles
