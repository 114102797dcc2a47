#include "reference/half_float.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace fa4::reference {
namespace {

TEST(HalfFloat, Bf16RoundsToNearestEven) {
  EXPECT_EQ(float_to_bf16_bits(1.0f), 0x3f80);
  EXPECT_EQ(float_to_bf16_bits(1.0f + 0x1p-8f), 0x3f80);             // tie, down to even
  EXPECT_EQ(float_to_bf16_bits(1.0f + 3 * 0x1p-8f), 0x3f82);         // tie, up to even
  EXPECT_EQ(float_to_bf16_bits(1.0f + 0x1p-8f + 0x1p-20f), 0x3f81);  // above the tie
  EXPECT_EQ(float_to_bf16_bits(-2.0f), 0xc000);
  EXPECT_TRUE(std::isnan(bf16_bits_to_float(float_to_bf16_bits(NAN))));
}

TEST(HalfFloat, Fp16RoundsToNearestEvenWithSubnormalsAndOverflow) {
  EXPECT_EQ(float_to_fp16_bits(1.0f), 0x3c00);
  EXPECT_EQ(float_to_fp16_bits(1.0f + 0x1p-11f), 0x3c00);      // tie, down to even
  EXPECT_EQ(float_to_fp16_bits(1.0f + 3 * 0x1p-11f), 0x3c02);  // tie, up to even
  EXPECT_EQ(float_to_fp16_bits(65504.0f), 0x7bff);
  EXPECT_EQ(float_to_fp16_bits(65519.0f), 0x7bff);
  EXPECT_EQ(float_to_fp16_bits(65520.0f), 0x7c00);  // tie with 2^16, rounds to even: inf
  EXPECT_EQ(float_to_fp16_bits(0x1p-24f), 0x0001);
  EXPECT_EQ(float_to_fp16_bits(0x1p-25f), 0x0000);         // tie, down to even
  EXPECT_EQ(float_to_fp16_bits(1.5f * 0x1p-25f), 0x0001);  // above the tie
  EXPECT_EQ(float_to_fp16_bits(-0x1p-14f), 0x8400);
}

TEST(HalfFloat, EveryPatternRoundTrips) {
  for (std::uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const auto pattern = std::uint16_t(bits);
    const float bf = bf16_bits_to_float(pattern);
    if (!std::isnan(bf)) {
      EXPECT_EQ(float_to_bf16_bits(bf), pattern) << std::hex << bits;
    }
    const float h = fp16_bits_to_float(pattern);
    if (!std::isnan(h)) {
      EXPECT_EQ(float_to_fp16_bits(h), pattern) << std::hex << bits;
    }
  }
}

}  // namespace
}  // namespace fa4::reference
