#include "core/shape.hpp"

#include <gtest/gtest.h>

namespace fa4 {
namespace {

AttnShape square(std::int64_t s, bool causal) {
  AttnShape shape;
  shape.batch = 2;
  shape.heads_q = shape.heads_kv = 16;
  shape.seqlen_q = shape.seqlen_k = s;
  shape.headdim = shape.headdim_v = 128;
  shape.causal = causal;
  return shape;
}

TEST(Flops, ForwardIsFourBHSSD) {
  const AttnShape s = square(8192, false);
  EXPECT_DOUBLE_EQ(attention_flops(s, Pass::fwd), 4.0 * 2 * 16 * 8192.0 * 8192.0 * 128);
}

TEST(Flops, CausalSquareIsHalved) {
  EXPECT_DOUBLE_EQ(attention_flops(square(4096, true), Pass::fwd),
                   attention_flops(square(4096, false), Pass::fwd) / 2);
}

TEST(Flops, BackwardIsTwoAndAHalfForward) {
  const AttnShape s = square(1024, true);
  EXPECT_DOUBLE_EQ(attention_flops(s, Pass::bwd), 2.5 * attention_flops(s, Pass::fwd));
}

TEST(Flops, CausalBottomRightAlignedPairs) {
  AttnShape s = square(1000, true);
  s.seqlen_k = 3000;  // every query sees 2000 keys plus its triangle
  EXPECT_DOUBLE_EQ(unmasked_pairs(s), 1000.0 * 2000 + 1000.0 * 1000 / 2);
  s.seqlen_q = 3000;
  s.seqlen_k = 1000;  // the first 2000 queries see nothing
  EXPECT_DOUBLE_EQ(unmasked_pairs(s), 1000.0 * 1000 / 2);
}

// A sliding window of W keys: each row at diagonal key x sees min(W, x) keys (the continuous
// area, as the causal triangle's s^2/2).
TEST(Flops, SlidingWindowCountsTheBand) {
  AttnShape s = square(4096, true);
  s.window = 1024;
  EXPECT_DOUBLE_EQ(unmasked_pairs(s), 4096.0 * 1024 - 1024.0 * 1024 / 2);
  s.window = 8192;  // wider than the sequence: the plain triangle
  EXPECT_DOUBLE_EQ(unmasked_pairs(s), 4096.0 * 4096 / 2);
  s.window = 1024;
  s.seqlen_q = 1000;  // bottom-right: every query's diagonal key is past the window's start
  EXPECT_DOUBLE_EQ(unmasked_pairs(s), 1000.0 * 1024);
  s.seqlen_q = 4096;
  s.seqlen_k = 1000;  // the last 1000 queries see a triangle narrower than the window
  EXPECT_DOUBLE_EQ(unmasked_pairs(s), 1000.0 * 1000 / 2);
}

TEST(Flops, HeaddimVCounts) {
  AttnShape s = square(512, false);
  s.headdim_v = 64;
  EXPECT_DOUBLE_EQ(attention_flops(s, Pass::fwd), 2.0 * 2 * 16 * 512.0 * 512 * (128 + 64));
}

TEST(Bytes, ForwardReadsQkvWritesOAndLse) {
  AttnShape s = square(1024, false);
  s.heads_kv = 4;
  const double q = 2.0 * 16 * 1024 * 128 * 2, kv = 2.0 * 4 * 1024 * 128 * 2;
  EXPECT_DOUBLE_EQ(attention_min_hbm_bytes(s, Pass::fwd), q + 2 * kv + q + 2.0 * 16 * 1024 * 4);
}

TEST(Validate, AcceptsAPlainShape) { EXPECT_TRUE(validate(square(128, false)).ok()); }

TEST(Validate, RefusesNonPositiveSizes) {
  AttnShape s = square(128, false);
  s.seqlen_k = 0;
  auto status = validate(s);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find("seqlen-k = 0"), std::string::npos);
  s = square(128, false);
  s.batch = -3;
  EXPECT_FALSE(validate(s).ok());
}

TEST(Validate, RefusesHeadsNotDivisibleByKvHeads) {
  AttnShape s = square(128, false);
  s.heads_kv = 5;
  auto status = validate(s);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find("not divisible"), std::string::npos);
}

TEST(Validate, RefusesAbsurdSizes) {
  AttnShape s = square(1 << 30, false);
  s.batch = 1 << 20;
  EXPECT_FALSE(validate(s).ok());
}

TEST(Validate, RefusesANegativeWindowOrOneWithoutTheCausalMask) {
  AttnShape s = square(1024, true);
  s.window = -1;
  const auto negative = validate(s);
  ASSERT_FALSE(negative.ok());
  EXPECT_NE(negative.error().message.find("window = -1"), std::string::npos);
  s.window = 256;
  EXPECT_TRUE(validate(s).ok());
  s.causal = false;
  const auto not_causal = validate(s);
  ASSERT_FALSE(not_causal.ok());
  EXPECT_NE(not_causal.error().message.find("needs the causal mask"), std::string::npos);
}

TEST(Parse, DtypeAndPass) {
  EXPECT_EQ(*parse_dtype("fp16"), Dtype::fp16);
  EXPECT_FALSE(parse_dtype("fp32").ok());
  EXPECT_EQ(*parse_pass("bwd"), Pass::bwd);
  EXPECT_FALSE(parse_pass("backward").ok());
}

TEST(Describe, NamesEverySize) {
  AttnShape s = square(4096, true);
  s.heads_kv = 2;
  EXPECT_EQ(describe(s), "b2 h16/2 s4096 d128 bf16 causal");
  s.window = 1024;
  EXPECT_EQ(describe(s), "b2 h16/2 s4096 d128 bf16 causal w1024");
}

AttnShape ragged_decode() {
  AttnShape s = square(1000, false);
  s.batch = 3;
  s.seqlen_q = 1;
  s.seqlens_k = {1000, 0, 200};
  return s;
}

TEST(Serving, ARaggedBatchCountsItsOwnKeys) {
  const AttnShape s = ragged_decode();
  EXPECT_EQ(keys_of(s, 1), 0);
  EXPECT_EQ(keys_of(s, 2), 200);
  EXPECT_DOUBLE_EQ(total_keys(s), 1200.0);
  EXPECT_DOUBLE_EQ(attention_flops(s, Pass::fwd), 4.0 * 16 * 1200 * 128);
  AttnShape dense = s;
  dense.seqlens_k.clear();
  EXPECT_DOUBLE_EQ(total_keys(dense), 3000.0);
  // K and V of 1200 keys of 16 heads, bf16, beside Q, O and LSE of 3 x 16 rows.
  EXPECT_DOUBLE_EQ(attention_min_hbm_bytes(s, Pass::fwd),
                   2.0 * 1200 * 16 * 128 * 2 + 2.0 * 3 * 16 * 128 * 2 + 3 * 16 * 4.0);
}

TEST(Serving, CausalRaggedPairsAreTheMeanOfEachSequences) {
  AttnShape s = ragged_decode();
  s.seqlen_q = 4;
  s.causal = true;
  s.seqlens_k = {1000, 2, 200};
  // Keys seen by the 4 queries: 4*1000-6, 0+0+1+2, 4*200-6.
  EXPECT_DOUBLE_EQ(unmasked_pairs(s), ((4000.0 - 8) + 2.0 + (800.0 - 8)) / 3.0);
}

TEST(Serving, BadFieldsAreRefusedWithTheReason) {
  AttnShape s = ragged_decode();
  EXPECT_TRUE(validate(s).ok());
  s.seqlens_k = {1000, 5};
  EXPECT_NE(validate(s).error().message.find("2 key counts for batch = 3"), std::string::npos);
  s.seqlens_k = {1000, 1001, 5};
  EXPECT_NE(validate(s).error().message.find("sequence 1 has 1001 keys"), std::string::npos);
  s = ragged_decode();
  s.page_size = -16;
  EXPECT_NE(validate(s).error().message.find("page-size = -16"), std::string::npos);
  s.page_size = 0;
  s.splits = -2;
  EXPECT_NE(validate(s).error().message.find("splits = -2"), std::string::npos);
}

TEST(Describe, NamesTheServingFields) {
  AttnShape s = ragged_decode();
  s.page_size = 16;
  s.splits = 4;
  s.heads_kv = 2;
  EXPECT_EQ(describe(s), "b3 h16/2 s1x1000 d128 bf16 paged16 ragged0-1000(sum 1200) splits4");
}

}  // namespace
}  // namespace fa4
