#include <gtest/gtest.h>

#include "bench/stats.hpp"

namespace fa4::bench {
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

}  // namespace
}  // namespace fa4::bench
