// The GPU's software exp2 (floor via __fadd_rd) must give the same bits as the CPU reference's
// (floor via the TwoSum round-down add): the FA4 reference is only a reference if it is bit-exact.
#include <gtest/gtest.h>

#include <cstring>

#include "exp2_device_probe.hpp"
#include "kernels/registry.hpp"
#include "reference/exp2_emulation.hpp"

namespace fa4::bench {
namespace {

TEST(SoftwareExp2OnDevice, BitsMatchHostEverywhere) {
  if (!kernels::query_device()) GTEST_SKIP() << "no CUDA device";
  // Every 1e-4 over [-130, 130): the clamp, the underflowing range, the normal range.
  constexpr double kLow = -130.0, kHigh = 130.0, kStep = 1e-4;
  std::vector<float> inputs;
  for (double x = kLow; x < kHigh; x += kStep) inputs.push_back(float(x));
  const Result<std::vector<float>> device = software_exp2_on_device(inputs);
  ASSERT_TRUE(device.ok()) << device.error().message;
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const float host = exp2_emulation::software_exp2(inputs[i]);
    if (std::memcmp(&host, &(*device)[i], sizeof(float)) != 0 && mismatches++ < 5)
      ADD_FAILURE() << "x = " << inputs[i] << ": host " << host << ", device " << (*device)[i];
  }
  EXPECT_EQ(mismatches, 0u) << "of " << inputs.size();
}

}  // namespace
}  // namespace fa4::bench
