#include "reference/exp2_emulation.hpp"

#include <gtest/gtest.h>

#include <cfenv>
#include <cmath>
#include <random>

namespace fa4::exp2_emulation {
namespace {

// Dense sampling, every 1e-4 over the range where the result is a normal float.
TEST(SoftwareExp2, RelativeErrorBelow1e4OverNormalRange) {
  constexpr double kLow = -126.0, kHigh = 127.0, kStep = 1e-4;
  constexpr double kPaperMaxRelativeError = 8.8e-5;
  double worst = 0.0, worst_x = 0.0;
  const auto steps = std::int64_t((kHigh - kLow) / kStep);
  for (std::int64_t i = 0; i < steps; ++i) {
    const float x = float(kLow + double(i) * kStep);
    const double exact = std::exp2(double(x));
    const double error = std::abs(double(software_exp2(x)) - exact) / exact;
    if (error > worst) worst = error, worst_x = x;
  }
  EXPECT_LT(worst, 1e-4) << "at x = " << worst_x;
  EXPECT_LT(worst, kPaperMaxRelativeError * 1.01) << "at x = " << worst_x;
}

// Below -126 the exponent field underflows: the value is wrong but below 2^-126, harmless next to
// a row maximum of 2^0. Below -127 the clamp gives +0; nothing is NaN or Inf.
TEST(SoftwareExp2, BelowNormalRangeIsTinyAndFinite) {
  for (float x = -127.0f; x < -126.0f; x += 1e-4f) {
    const float y = software_exp2(x);
    EXPECT_GE(y, 0.0f);
    EXPECT_LT(y, 0x1p-126f) << x;
  }
  for (float x : {-127.0f, -200.0f, -1e30f, -INFINITY}) EXPECT_EQ(software_exp2(x), 0.0f) << x;
}

TEST(SoftwareExp2, IntegersAreExact) {
  for (int e = -126; e <= 127; ++e) EXPECT_EQ(software_exp2(float(e)), std::ldexp(1.0f, e)) << e;
}

// The host's round-down add (TwoSum) against the FPU in round-toward-minus-infinity mode, on the
// magic-constant adds software_exp2 does and on random pairs.
float add_in_downward_mode(float a, float b) {
  volatile float va = a, vb = b;  // keep the add at run time, inside the rounding-mode change
  const int saved = std::fegetround();
  std::fesetround(FE_DOWNWARD);
  const float sum = va + vb;
  std::fesetround(saved);
  return sum;
}

TEST(SoftwareExp2, RoundDownAddMatchesFpuDownwardMode) {
  const std::uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> exponent_range(-140.0f, 130.0f);
  std::uniform_real_distribution<float> any(-1e6f, 1e6f);
  for (int i = 0; i < 200000; ++i) {
    const float x = exponent_range(rng);
    ASSERT_EQ(add_round_down(x, kRoundingMagic), add_in_downward_mode(x, kRoundingMagic)) << x;
    ASSERT_EQ(add_round_down(x, kRoundingMagic) - kRoundingMagic, std::floor(x)) << x;
    const float a = any(rng), b = any(rng) * 1e-3f;
    ASSERT_EQ(add_round_down(a, b), add_in_downward_mode(a, b)) << a << " + " << b;
  }
}

}  // namespace
}  // namespace fa4::exp2_emulation
