// fa3_decode's packing and work partition (core/decode_tiles.hpp), without a GPU: a KV head's
// query heads and rows make one pack; a row block's units are the key blocks its rows see; the
// balanced partition deals equal ranges of units to one CTA per SM, and its partial slots never
// collide.
#include "core/decode_tiles.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <tuple>

namespace {

using fa4::AttnShape;
using namespace fa4::decode_tiles;

constexpr int kH200Sms = 132;

AttnShape decode(std::int64_t batch, std::int64_t heads_q, std::int64_t seqlen_q,
                 std::int64_t seqlen_k, std::int64_t headdim = 128) {
  return AttnShape{.batch = batch, .heads_q = heads_q, .heads_kv = 8, .seqlen_q = seqlen_q,
                   .seqlen_k = seqlen_k, .headdim = headdim, .headdim_v = headdim};
}

TEST(DecodePacking, AKvHeadsQueryHeadsAndRowsMakeOnePack) {
  EXPECT_EQ(packed_rows(decode(8, 32, 1, 4096)), 4);
  EXPECT_EQ(packed_rows(decode(8, 64, 8, 4096)), 64);
  EXPECT_EQ(row_blocks_per_pack(decode(8, 64, 8, 4096)), 1);
  EXPECT_EQ(row_blocks_per_pack(decode(8, 128, 8, 4096)), 2);
  EXPECT_EQ(row_blocks(decode(8, 32, 1, 4096)), 64);  // 8 batches x 8 KV heads
  EXPECT_EQ(key_blocks(decode(1, 32, 1, 32768)), 256);
  EXPECT_EQ(key_blocks(decode(1, 32, 1, 32769)), 257);
  EXPECT_EQ(key_blocks(decode(1, 32, 1, 32768, 256)), 512);  // 64-key blocks at hd256
}

TEST(DecodeUnits, ARowBlockReadsTheKeyBlocksItsRowsSee) {
  const AttnShape plain = decode(8, 32, 1, 32768);
  EXPECT_EQ(row_block_units(geometry(plain), 32768, 0), 256);
  EXPECT_EQ(row_block_units(geometry(plain), 0, 0), 0);
  EXPECT_EQ(row_block_units(geometry(plain), 129, 0), 2);
  // Causal, 16 queries x 8 heads = 128 packed rows, 2 row blocks: every block holds some head's
  // last query, which sees every key.
  AttnShape spec = decode(2, 64, 16, 1000);
  spec.causal = true;
  EXPECT_EQ(row_block_units(geometry(spec), 1000, 1), 8);
  // 4 keys, 16 queries: the 16th sees all 4; a row block of queries 0-3 only of one head (rows
  // beyond packed_rows do not count) sees none.
  AttnShape few = decode(1, 8, 64, 4);
  few.causal = true;  // g = 1: 64 packed rows, queries 0..63; query 63 sees 4 keys
  EXPECT_EQ(row_block_units(geometry(few), 4, 0), 1);
  EXPECT_EQ(total_units(few), 8);  // 8 KV heads x 1 block
}

TEST(DecodeUnits, ARaggedBatchCountsOnlyItsOwnKeys) {
  AttnShape shape = decode(3, 32, 1, 1000);
  shape.seqlens_k = {1000, 0, 129};
  EXPECT_EQ(total_units(shape), 8 * (8 + 0 + 2));
}

// The split partition's parts: ceil(units / splits) blocks each from the first, the last ones
// short or empty (the kernel stores an empty part's -inf all the same).
TEST(DecodeSplit, PartsAreCeilSizedFromTheFirst) {
  EXPECT_EQ(split_part(10, 4, 0).blocks, 3);
  EXPECT_EQ(split_part(10, 4, 3).first, 9);
  EXPECT_EQ(split_part(10, 4, 3).blocks, 1);
  EXPECT_EQ(split_part(3, 5, 2).blocks, 1);
  EXPECT_EQ(split_part(3, 5, 4).blocks, 0);
  EXPECT_EQ(split_part(0, 2, 0).blocks, 0);
}

TEST(DecodeBalanced, OneCtaPerSmUnlessFewerUnits) {
  EXPECT_EQ(balanced_parts(total_units(decode(8, 32, 1, 32768)), kH200Sms), kH200Sms);
  EXPECT_EQ(balanced_parts(100, kH200Sms), 100);
  EXPECT_EQ(balanced_parts(0, kH200Sms), 1);
}

// A uniform batch is split into SMs / row blocks parts per row block (at most its key blocks and
// kMaxSplits; whole row blocks from the SMs up); a ragged one is dealt over one CTA per SM.
TEST(DecodeChosen, UniformBatchesSplitRaggedOnesAreBalanced) {
  const auto chosen = [](const AttnShape& s) { return chosen_partition(s, kH200Sms); };
  EXPECT_FALSE(chosen(decode(1, 32, 1, 32768)).balanced);
  EXPECT_EQ(chosen(decode(1, 32, 1, 32768)).count, 16);  // 8 row blocks
  EXPECT_EQ(chosen(decode(8, 32, 1, 32768)).count, 2);   // 64 row blocks
  EXPECT_EQ(chosen(decode(32, 32, 1, 8192)).count, 1);   // 256 row blocks: whole
  EXPECT_EQ(chosen(decode(1, 32, 1, 1000)).count, 8);    // 8 key blocks
  AttnShape mqa = decode(1, 8, 1, 131072);
  mqa.heads_kv = 1;
  EXPECT_EQ(chosen(mqa).count, kMaxSplits);  // 1 row block
  AttnShape ragged = decode(32, 32, 1, 8192);
  ragged.seqlens_k.assign(32, 100);
  ragged.seqlens_k[0] = 8192;
  EXPECT_TRUE(chosen(ragged).balanced);
  EXPECT_EQ(chosen(ragged).count, kH200Sms);
}

// Parts tile the units exactly, in ranges whose sizes differ by at most one, and part_of inverts
// first_unit; the slots r + c of the parts covering row block r never collide.
TEST(DecodeBalanced, PartsTileTheUnitsAndSlotsNeverCollide) {
  for (const auto& [row_blocks, units_per_row_block, parts] :
       {std::tuple{64, 256, 132}, std::tuple{256, 64, 132}, std::tuple{8, 16, 128},
        std::tuple{3, 1, 2}, std::tuple{1000, 3, 7}}) {
    const std::int64_t units = std::int64_t(row_blocks) * units_per_row_block;
    std::int64_t smallest = units, largest = 0;
    for (std::int64_t c = 0; c < parts; ++c) {
      const std::int64_t size = first_unit(c + 1, units, parts) - first_unit(c, units, parts);
      smallest = std::min(smallest, size);
      largest = std::max(largest, size);
    }
    EXPECT_EQ(first_unit(parts, units, parts), units);
    EXPECT_LE(largest - smallest, 1);
    std::set<std::int64_t> slots;
    for (std::int64_t u = 0; u < units; ++u) {
      const std::int64_t c = part_of(u, units, parts);
      ASSERT_LE(first_unit(c, units, parts), u);
      ASSERT_LT(u, first_unit(c + 1, units, parts));
    }
    for (std::int64_t r = 0; r < row_blocks; ++r) {
      const std::int64_t lo = part_of(r * units_per_row_block, units, parts);
      const std::int64_t hi = part_of((r + 1) * units_per_row_block - 1, units, parts);
      for (std::int64_t c = lo; c <= hi; ++c) {
        ASSERT_TRUE(slots.insert(r + c).second) << "slot " << r + c << " twice";
        ASSERT_LT(r + c, balanced_slots(row_blocks, parts));
      }
    }
  }
}

}  // namespace
