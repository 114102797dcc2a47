// Each unit against H100 SXM, the one table of ratios behind `gpus` and the report's hardware
// section: FA4's asymmetric scaling from the shipped models, and no table without the baseline.
#include "report/unit_scaling.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "report_inputs.hpp"

namespace fa4::report {
namespace {

TEST(UnitScaling, B200DoublesTheTensorCoresButNotMufuOrSharedMemory) {
  const std::vector<hw::Spec> gpus = testing::real_specs();
  const auto scaling = scaling_against_baseline(gpus);
  ASSERT_TRUE(scaling.has_value());
  EXPECT_EQ(scaling->baseline->id, kScalingBaseline);
  ASSERT_EQ(scaling->per_gpu.size(), gpus.size());
  const auto at = [&](std::string_view id) {
    const auto it = std::find_if(gpus.begin(), gpus.end(), [&](auto& g) { return g.id == id; });
    return scaling->per_gpu.at(std::size_t(it - gpus.begin()));
  };
  EXPECT_DOUBLE_EQ(at("h100-sxm").hbm, 1.0);
  EXPECT_DOUBLE_EQ(at("b200").mma_bf16, 2.0);
  EXPECT_DOUBLE_EQ(at("b200").mufu_ex2, 1.0);
  EXPECT_DOUBLE_EQ(at("b200").smem, 1.0);
  EXPECT_DOUBLE_EQ(at("b300").mufu_ex2, 2.0);
}

TEST(UnitScaling, NoBaselineNoRatios) {
  std::vector<hw::Spec> gpus = testing::real_specs();
  std::erase_if(gpus, [](const hw::Spec& g) { return g.id == kScalingBaseline; });
  EXPECT_FALSE(scaling_against_baseline(gpus).has_value());
}

}  // namespace
}  // namespace fa4::report
