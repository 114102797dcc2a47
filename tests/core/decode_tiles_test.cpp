// fa3_decode's packing and split count (core/decode_tiles.hpp), without a GPU: a KV head's query
// heads and rows make one pack; the split count minimises the busiest SM's key blocks, is 1 once
// the row blocks fill the SMs, never passes the key blocks or 128, and follows the SM count.
#include "core/decode_tiles.hpp"

#include <gtest/gtest.h>

#include <cstdint>

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

TEST(DecodeSplits, FewRowBlocksSplitUntilTheSmsFill) {
  // b1: 8 row blocks; 16 parts make 128 CTAs, one wave.
  EXPECT_EQ(choose_splits(decode(1, 32, 1, 32768), kH200Sms), 16);
  EXPECT_EQ(choose_splits(decode(1, 32, 1, 131072), kH200Sms), 16);
  // b8: 64 row blocks; 2 parts make 128 CTAs.
  EXPECT_EQ(choose_splits(decode(8, 32, 1, 32768), kH200Sms), 2);
}

TEST(DecodeSplits, RowBlocksThatFillTheSmsAreNotSplit) {
  EXPECT_EQ(choose_splits(decode(32, 32, 1, 32768), kH200Sms), 1);
  EXPECT_EQ(choose_splits(decode(128, 64, 1, 2048), kH200Sms), 1);
}

TEST(DecodeSplits, NeverMorePartsThanKeyBlocksOr128) {
  EXPECT_EQ(choose_splits(decode(1, 8, 1, 1), kH200Sms), 1);  // one key block
  EXPECT_LE(choose_splits(decode(1, 8, 1, 300), kH200Sms), 3);
  EXPECT_LE(choose_splits(decode(1, 8, 1, std::int64_t{1} << 24), 1024), kMaxSplits);
  EXPECT_EQ(choose_splits(decode(1, 8, 1, std::int64_t{1} << 24), 1024), kMaxSplits);
}

TEST(DecodeSplits, FollowTheSmCount) {
  // Half the SMs: 8 parts of b1's 8 row blocks fill 64 of them.
  EXPECT_EQ(choose_splits(decode(1, 32, 1, 32768), 66), 8);
  EXPECT_EQ(choose_splits(decode(8, 32, 1, 32768), 66), 1);
}

}  // namespace
