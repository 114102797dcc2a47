// fa3_bwd's causal section rule (core/fa3_tiles.hpp): the L2 cap binds at long sequences, the
// balance floor at short ones, and a section never holds more heads than there are; where a
// section holds under half a grid of tiles, the last one holds two grids' worth. Its GQA group
// split: causal groups of 4 or more query heads at seqlen_q 4096 or more, hd128 and hd256 only.
#include "core/fa3_tiles.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace {

using fa4::fa3_tiles::bwd_causal_section_heads;
using fa4::fa3_tiles::bwd_causal_tail_heads;
using fa4::fa3_tiles::bwd_split_gqa_groups;

constexpr std::int64_t kH200L2 = std::int64_t{60} << 20;  // cudaDevAttrL2CacheSize on the H200
constexpr unsigned kGrid = 132;                           // one CTA per SM

TEST(BwdCausalSections, OneHeadWhenAHeadsOperandsFillHalfTheL2) {
  // 1 x 128 x 16384, hd128: a head's Q, dO and dQ accumulator are 16 MiB.
  EXPECT_EQ(bwd_causal_section_heads(128, 128, 1, 16384, 128, kGrid, kH200L2), 1);
  // GQA 128/8: a kv head's group of 16 query heads, 256 MiB.
  EXPECT_EQ(bwd_causal_section_heads(128, 8, 16, 16384, 128, kGrid, kH200L2), 1);
}

TEST(BwdCausalSections, TheL2CapIsAPowerOfTwoBelowHalfTheL2) {
  // b4 h16 s4096, hd128: 4 MiB a head, 7 fit in 30 MiB, 4 taken; balance alone would take 16.
  EXPECT_EQ(bwd_causal_section_heads(32, 64, 1, 4096, 128, kGrid, kH200L2), 4);
}

TEST(BwdCausalSections, ShortSequencesTakeTwoGridsOfTilesAtLeast) {
  // b32 h16 s512, hd128: 4 key blocks a head, so two grids' worth is 66 heads (128 as a power of
  // two); 0.5 MiB a head, 60 fit in half the L2 (32 as a power of two): the smaller, 32.
  EXPECT_EQ(bwd_causal_section_heads(4, 512, 1, 512, 128, kGrid, kH200L2), 32);
  // A larger L2 lets the balance floor bind: 128 heads.
  EXPECT_EQ(bwd_causal_section_heads(4, 512, 1, 512, 128, kGrid, kH200L2 * 8), 128);
}

TEST(BwdCausalSections, NeverMoreHeadsThanThereAreNorFewerThanOne) {
  EXPECT_EQ(bwd_causal_section_heads(4, 2, 1, 512, 128, kGrid, kH200L2), 2);
  EXPECT_EQ(bwd_causal_section_heads(1, 1, 1, 1, 64, kGrid, kH200L2), 1);
  EXPECT_EQ(bwd_causal_section_heads(1024, 64, 64, 131072, 256, kGrid, kH200L2), 1);
}

TEST(BwdCausalSections, TheLastSectionHoldsTwoGridsWhereSectionsHoldUnderHalfAGrid) {
  // b8 h8 s2048, hd256: 16 key blocks a head; sections of 4 heads (64 tiles, under half of the
  // 132 CTAs), the last of ceil(264 / 16) = 17 heads.
  EXPECT_EQ(bwd_causal_section_heads(16, 64, 1, 2048, 256, kGrid, kH200L2), 4);
  EXPECT_EQ(bwd_causal_tail_heads(16, 64, 4, kGrid), 17);
  // b32 h8 s512, hd256: sections of 16 heads of 4 key blocks, the last of 66 heads.
  EXPECT_EQ(bwd_causal_tail_heads(4, 256, 16, kGrid), 66);
  // Sections of half a grid or more stay as they are: 1 x 8 x 16384 hd256 (1 head, 128 tiles),
  // b4 h16 s4096 hd128 (4 heads of 32 key blocks).
  EXPECT_EQ(bwd_causal_tail_heads(128, 8, 1, kGrid), 1);
  EXPECT_EQ(bwd_causal_tail_heads(32, 64, 4, kGrid), 4);
  // Never more heads than there are.
  EXPECT_EQ(bwd_causal_tail_heads(16, 8, 4, kGrid), 8);
}

TEST(BwdGroupSplit, LongCausalGroupsOfFourOrMoreSplitAtHd128And256) {
  EXPECT_TRUE(bwd_split_gqa_groups(true, 16, 16384, 128));  // Llama-3 405B
  EXPECT_TRUE(bwd_split_gqa_groups(true, 4, 4096, 128));    // 8B at s4096, the threshold
  EXPECT_TRUE(bwd_split_gqa_groups(true, 4, 16384, 256));
}

TEST(BwdGroupSplit, ShortNonCausalSmallGroupsOrHd64WalkTheGroup) {
  EXPECT_FALSE(bwd_split_gqa_groups(false, 16, 16384, 128));  // non-causal: within 2% either way
  EXPECT_FALSE(bwd_split_gqa_groups(true, 16, 1024, 128));    // 3-12% slower split at s1024
  EXPECT_FALSE(bwd_split_gqa_groups(true, 16, 1, 128));       // one query row per head
  EXPECT_FALSE(bwd_split_gqa_groups(true, 2, 16384, 128));    // groups of 2: 2% slower split
  EXPECT_FALSE(bwd_split_gqa_groups(true, 4, 16384, 64));     // hd64: 1% slower split
  EXPECT_FALSE(bwd_split_gqa_groups(true, 1, 16384, 128));    // MHA: nothing to split
}

}  // namespace
