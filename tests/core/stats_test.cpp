#include "core/stats.hpp"

#include <gtest/gtest.h>

namespace fa4 {
namespace {

TEST(Summarize, InterpolatedQuartilesAndExtremesKeepTheSampleOrder) {
  const TimingStats t = summarize({5, 1, 4, 2, 3});
  EXPECT_DOUBLE_EQ(t.median_s, 3);
  EXPECT_DOUBLE_EQ(t.p25_s, 2);
  EXPECT_DOUBLE_EQ(t.p75_s, 4);
  EXPECT_DOUBLE_EQ(t.min_s, 1);
  EXPECT_DOUBLE_EQ(t.max_s, 5);
  EXPECT_EQ(t.samples_s, (std::vector<double>{5, 1, 4, 2, 3}));
  EXPECT_DOUBLE_EQ(t.relative_iqr(), 2.0 / 3.0);
}

TEST(Summarize, EvenCountsInterpolateAndOneSampleHasNoSpread) {
  const TimingStats even = summarize({1, 2, 3, 4});
  EXPECT_DOUBLE_EQ(even.median_s, 2.5);
  EXPECT_DOUBLE_EQ(even.p25_s, 1.75);
  EXPECT_DOUBLE_EQ(even.p75_s, 3.25);
  EXPECT_DOUBLE_EQ(summarize({7}).relative_iqr(), 0);
}

TEST(SampleDrift, AStepBetweenTheFirstAndLastQuarterIsMeasuredSteadySamplesAreNot) {
  // A clock stepping down after 5 of 20 samples: 3.05 ms, then 3.45 ms.
  std::vector<double> step(20, 3.45);
  std::fill(step.begin(), step.begin() + 5, 3.05);
  EXPECT_NEAR(sample_drift(step), 3.45 / 3.05 - 1, 1e-12);
  EXPECT_GT(sample_drift(step), kDriftFlag);
  // Steady samples with noise in both quarters.
  EXPECT_NEAR(
      sample_drift({3.11, 3.12, 3.10, 3.12, 3.11, 3.12, 3.13, 3.11, 3.12, 3.10, 3.12, 3.11}), 0,
      0.01);
  // Faster at the end (a clock coming up) is a drift too, negative.
  std::vector<double> up(12, 1.0);
  std::fill(up.end() - 3, up.end(), 0.9);
  EXPECT_NEAR(sample_drift(up), -0.1, 1e-12);
  // Too few samples to tell.
  EXPECT_EQ(sample_drift({1, 2, 3, 4, 5, 6, 7}), 0);
}

TEST(SampleSpread, FlaggedWhenTheIqrIsOverFivePercentOfTheMedian) {
  // Samples split between two modes (a third at 3.2 ms, the rest at 4.00-4.06 ms), in no order: no
  // drift, but an IQR far over the timer's 2%.
  std::vector<double> split;
  for (int i = 0; i < 30; ++i) split.push_back(i % 3 == 0 ? 3.2 : 4.0 + 0.01 * (i % 7));
  const TimingStats two_modes = summarize(split);
  EXPECT_FALSE(drift_flagged(sample_drift(split)));
  EXPECT_GT(two_modes.relative_iqr(), 0.2);
  EXPECT_TRUE(spread_flagged(two_modes));
  // Within the timer's target, and either side of 5%: an IQR of 4% and of 8% of the median.
  EXPECT_FALSE(spread_flagged(summarize({3.11, 3.12, 3.10, 3.12, 3.11, 3.13})));
  EXPECT_FALSE(spread_flagged(summarize({0.9, 0.98, 1.0, 1.02, 1.1})));
  EXPECT_TRUE(spread_flagged(summarize({0.9, 0.96, 1.0, 1.04, 1.1})));
  EXPECT_FALSE(spread_flagged(summarize({7})));
}

TEST(SampleFlag, ADriftBeforeASpread) {
  // A clock stepping down after 8 of 20 samples drifts and widens the IQR: flagged as drifted.
  std::vector<double> step(20, 3.45);
  std::fill(step.begin(), step.begin() + 8, 3.05);
  EXPECT_TRUE(spread_flagged(summarize(step)));
  EXPECT_EQ(sample_flag(summarize(step)), SampleFlag::drifted);
  std::vector<double> split;  // two modes interleaved: no drift
  for (int i = 0; i < 30; ++i) split.push_back(i % 3 == 0 ? 3.2 : 4.0 + 0.01 * (i % 7));
  EXPECT_EQ(sample_flag(summarize(split)), SampleFlag::spread);
  EXPECT_EQ(sample_flag(summarize({3.11, 3.12, 3.10, 3.12, 3.11, 3.13})), SampleFlag::none);
}

TEST(SampleDrift, FlaggedPastFivePercentEitherWay) {
  EXPECT_TRUE(drift_flagged(0.051));
  EXPECT_TRUE(drift_flagged(-0.1));
  EXPECT_FALSE(drift_flagged(kDriftFlag));
  EXPECT_FALSE(drift_flagged(-0.02));
}

// bench --ab's samples: each round's median, rounds in order (not the order of the samples), and
// a round of an even count interpolated; without rounds the samples unchanged.
TEST(RoundMedians, OneMedianPerRoundInRoundOrder) {
  const std::vector<double> samples{3, 1, 2, 10, 20, 7, 9, 8, 6};
  const std::vector<int> rounds{2, 2, 2, 0, 0, 1, 1, 1, 1};
  EXPECT_EQ(round_medians(samples, rounds), (std::vector<double>{15, 7.5, 2}));
  EXPECT_EQ(round_medians(samples, {}), samples);
  EXPECT_EQ(round_medians(samples, {0, 1}), samples);  // not one round per sample
}

}  // namespace
}  // namespace fa4
