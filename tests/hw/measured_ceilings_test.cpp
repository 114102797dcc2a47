// '--ceilings measured': which figures the measured ceilings replace, and the refusal when a
// needed unit was not measured.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hw/measured_ceilings.hpp"
#include "model_files.hpp"

namespace fa4::hw {
namespace {

const Spec& h200() { return *find_spec(testing::shipped_specs(), "h200").value(); }

std::vector<MeasuredCeiling> measured_h200() {
  const std::string at = "NVIDIA H200, run 3, 2026-11-22T03:00:00Z";
  return {{"wgmma_bf16", 660, 2525, at}, {"mma_sync_bf16", 642, 2456, at},
          {"gemm_bf16", 790, 3022, at},  {"mufu_ex2", 7.9, 30.1, at},
          {"fma_fp32", 63.5, 121.4, at}, {"smem_read", 31.0, 118.6, at},
          {"hbm_copy", 4.25, 0, at}};
}

TEST(MeasuredCeilings, ReplaceTheUnitRatesAndNameTheirSource) {
  const auto s = with_measured_ceilings(h200(), measured_h200());
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_DOUBLE_EQ(s->per_sm.mma_flop_per_clk_bf16, 2525);
  EXPECT_DOUBLE_EQ(s->per_sm.mma_flop_per_clk_fp16, 2525);  // H200: fp16 rate = bf16 rate
  EXPECT_DOUBLE_EQ(s->gemm_efficiency, 790.0 / 660.0);
  EXPECT_DOUBLE_EQ(s->mma_sync_share, 642.0 / 660.0);
  EXPECT_DOUBLE_EQ(s->per_sm.mufu_ex2_per_clk, 30.1);
  EXPECT_DOUBLE_EQ(s->per_sm.fma_lanes_per_clk, 121.4);
  EXPECT_DOUBLE_EQ(s->per_sm.smem_bytes_per_clk, 118.6);
  EXPECT_NEAR(s->copy_efficiency, 4.25e12 / h200().hbm_bytes_per_s, 1e-12);
  EXPECT_THAT(source_of(*s, "/per_sm/mufu_ex2_per_clk"),
              ::testing::HasSubstr("measured (mufu_ex2): NVIDIA H200, run 3"));
  // What was not measured stays as the datasheet has it.
  EXPECT_EQ(s->sms, h200().sms);
  EXPECT_EQ(s->per_sm.smem_capacity_bytes, h200().per_sm.smem_capacity_bytes);
}

TEST(MeasuredCeilings, WithoutAGemmTheProbeIsTheCeiling) {
  auto measured = measured_h200();
  std::erase_if(measured, [](const MeasuredCeiling& c) { return c.unit == "gemm_bf16"; });
  const auto s = with_measured_ceilings(h200(), measured);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_DOUBLE_EQ(s->gemm_efficiency, 1.0);
}

TEST(MeasuredCeilings, MissingUnitsAreListed) {
  auto measured = measured_h200();
  std::erase_if(measured, [](const MeasuredCeiling& c) {
    return c.unit == "mufu_ex2" || c.unit == "hbm_copy";
  });
  const auto s = with_measured_ceilings(h200(), measured);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.error().message, ::testing::HasSubstr("h200: no measured mufu_ex2, hbm_copy"));
  EXPECT_THAT(s.error().message, ::testing::HasSubstr("fa4-analyze ceilings"));
}

}  // namespace
}  // namespace fa4::hw
