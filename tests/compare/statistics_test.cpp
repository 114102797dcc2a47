#include "compare/statistics.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace fa4::compare {
namespace {

TEST(MannWhitney, ExactForSeparatedSamplesIsTwoOverTheArrangements) {
  const std::vector<double> a = {1, 2, 3}, b = {4, 5, 6};
  EXPECT_NEAR(mann_whitney_p(a, b), 2.0 / 20, 1e-12);  // C(6, 3) = 20
  const std::vector<double> c = {1, 2, 3, 4, 5}, d = {6, 7, 8, 9, 10};
  EXPECT_NEAR(mann_whitney_p(c, d), 2.0 / 252, 1e-12);
  EXPECT_NEAR(mann_whitney_p(d, c), 2.0 / 252, 1e-12);
}

TEST(MannWhitney, ExactCountsAnInterleaving) {
  // a = {1, 4}, b = {2, 3}: U (pairs a below b) = 2 of 4, the centre: p = 1
  EXPECT_NEAR(mann_whitney_p(std::vector<double>{1, 4}, std::vector<double>{2, 3}), 1.0, 1e-12);
  // a = {1, 3}, b = {2, 4}: U = 3; P(U >= 3) = 2/6 (U = 3 or 4 of C(4,2) = 6): p = 2/3
  EXPECT_NEAR(mann_whitney_p(std::vector<double>{1, 3}, std::vector<double>{2, 4}), 2.0 / 3, 1e-12);
}

TEST(MannWhitney, IdenticalSamplesAreNotDifferent) {
  const std::vector<double> a = {5, 5, 5, 5, 5, 5};
  EXPECT_DOUBLE_EQ(mann_whitney_p(a, a), 1.0);
}

TEST(MannWhitney, NormalApproximationWithTiesFindsASeparation) {
  std::vector<double> a, b;
  for (int i = 0; i < 60; ++i) {
    a.push_back(1.0 + (i % 10) * 0.001);  // ties: each value six times
    b.push_back(1.1 + (i % 10) * 0.001);
  }
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  EXPECT_LT(mann_whitney_p(a, b), 1e-15);
  EXPECT_DOUBLE_EQ(mann_whitney_p(a, b), mann_whitney_p(b, a));
}

TEST(SmallestP, IsTwoOverTheBinomial) {
  EXPECT_NEAR(smallest_p(3, 3), 0.1, 1e-12);
  EXPECT_NEAR(smallest_p(5, 5), 2.0 / 252, 1e-12);
  EXPECT_DOUBLE_EQ(smallest_p(1, 1), 1.0);
}

TEST(Median, OddAndEven) {
  EXPECT_DOUBLE_EQ(median_of_sorted(std::vector<double>{1, 2, 9}), 2);
  EXPECT_DOUBLE_EQ(median_of_sorted(std::vector<double>{1, 2, 4, 9}), 3);
}

TEST(Bootstrap, IntervalHoldsAnExactScaleAndIsReproducible) {
  std::vector<double> base, scaled;
  for (int i = 0; i < 12; ++i) {
    base.push_back(1.0 + 0.003 * ((i * 7) % 12));
    scaled.push_back(base.back() * 1.10);
  }
  std::sort(base.begin(), base.end());
  std::sort(scaled.begin(), scaled.end());
  const Interval i = bootstrap_ratio_interval(base, scaled, 2000, 0.95, 42);
  EXPECT_LE(i.lo, 1.10);
  EXPECT_GE(i.hi, 1.10);
  EXPECT_GT(i.lo, 1.05);  // the spread is 3%: the interval cannot reach 1.05
  EXPECT_LT(i.hi, 1.15);
  const Interval again = bootstrap_ratio_interval(base, scaled, 2000, 0.95, 42);
  EXPECT_EQ(i.lo, again.lo);
  EXPECT_EQ(i.hi, again.hi);
}

TEST(Bootstrap, OneSampleASideIsTheRatio) {
  const Interval i =
      bootstrap_ratio_interval(std::vector<double>{2.0}, std::vector<double>{3.0}, 100, 0.95, 1);
  EXPECT_NEAR(i.lo, 1.5, 1e-9);
  EXPECT_NEAR(i.hi, 1.5, 1e-9);
}

}  // namespace
}  // namespace fa4::compare

namespace fa4::compare {
namespace {

// Every resampling of `sorted` (n^n of them, equally likely) and its median.
std::vector<double> every_resampled_median(const std::vector<double>& sorted) {
  const std::size_t n = sorted.size();
  std::size_t count = 1;
  for (std::size_t i = 0; i < n; ++i) count *= n;
  std::vector<double> medians;
  std::vector<double> pick(n);
  for (std::size_t code = 0; code < count; ++code) {
    std::size_t c = code;
    for (std::size_t i = 0; i < n; ++i, c /= n) pick[i] = sorted[c % n];
    std::sort(pick.begin(), pick.end());
    medians.push_back(median_of_sorted(pick));
  }
  return medians;
}

TEST(Bootstrap, ExactIntervalIsTheBruteForceOneOverEveryResampling) {
  for (const auto& [base, contender] : {std::pair{std::vector<double>{1.0, 1.1, 1.3, 1.7},
                                                  std::vector<double>{1.2, 1.25, 1.4, 1.9, 2.6}},
                                        std::pair{std::vector<double>{2.0, 2.1, 2.15, 2.3, 2.8},
                                                  std::vector<double>{1.9, 2.2, 2.4, 2.5}}}) {
    const std::vector<double> mb = every_resampled_median(base);
    const std::vector<double> mc = every_resampled_median(contender);
    std::vector<double> ratios;
    ratios.reserve(mb.size() * mc.size());
    for (double b : mb)
      for (double c : mc) ratios.push_back(c / b);
    std::sort(ratios.begin(), ratios.end());
    // the smallest ratio whose cumulative share reaches q
    const auto quantile = [&](double q) {
      return ratios[static_cast<std::size_t>(std::ceil(q * double(ratios.size()))) - 1];
    };
    const Interval i = bootstrap_ratio_interval(base, contender, 2000, 0.95, 1);
    EXPECT_NEAR(i.lo, quantile(0.025), 1e-9);
    EXPECT_NEAR(i.hi, quantile(0.975), 1e-9);
  }
}

TEST(Bootstrap, DrawnResamplingsAgreeWithTheExactIntervalBeyondItsLimit) {
  // 65 samples a side: drawn; the same shape of samples at 64: exact. Both about 10% apart.
  std::vector<double> b65, c65, b64, c64;
  for (int i = 0; i < 65; ++i) {
    b65.push_back(1.0 + 0.0004 * ((i * 37) % 65));
    c65.push_back(1.1 * (1.0 + 0.0004 * ((i * 23) % 65)));
  }
  std::sort(b65.begin(), b65.end());
  std::sort(c65.begin(), c65.end());
  b64.assign(b65.begin(), b65.end() - 1);
  c64.assign(c65.begin(), c65.end() - 1);
  const Interval drawn = bootstrap_ratio_interval(b65, c65, 4000, 0.95, 3);
  const Interval exact = bootstrap_ratio_interval(b64, c64, 4000, 0.95, 3);
  EXPECT_NEAR(drawn.lo, exact.lo, 0.003);
  EXPECT_NEAR(drawn.hi, exact.hi, 0.003);
}

}  // namespace
}  // namespace fa4::compare
