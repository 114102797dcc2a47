// Verdicts on synthetic sample sets with known shifts (none, 0.5%, 2%, 3%, 10%), at the default
// threshold (5%) and at 2%, with and without
// drift, with a clock change but no code change, and with too few samples.
#include "compare/verdict.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace fa4::compare {
namespace {

constexpr double kH200Clock = 1980;

// `n` samples of a 1 ms kernel scaled by `scale`, each with a relative noise of `noise` (standard
// deviation), drifting linearly by `drift` from the first sample to the last.
std::vector<double> samples(double scale, unsigned seed, std::size_t n = 10, double drift = 0,
                            double noise = 0.002) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> jitter(0, noise);
  std::vector<double> out;
  for (std::size_t i = 0; i < n; ++i)
    out.push_back(1e-3 * scale * (1 + drift * double(i) / double(n - 1)) * (1 + jitter(rng)));
  return out;
}

Rules at_threshold(double threshold) {
  Rules rules;
  rules.threshold = threshold;
  return rules;
}

Judgement verdict_of(double shift, double contender_drift = 0, double contender_clock = kH200Clock,
                     unsigned seed = 7, const Rules& rules = Rules{}) {
  const SideSamples b = side_of(samples(1.0, seed), kH200Clock);
  const SideSamples c =
      side_of(samples(1.0 + shift, seed + 100, 10, contender_drift), contender_clock);
  return judge(b, c, rules);
}

TEST(Verdict, TheDefaultThresholdIsFivePercent) { EXPECT_EQ(Rules{}.threshold, 0.05); }

TEST(Verdict, NoShiftIsSame) {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    EXPECT_EQ(verdict_of(0, 0, kH200Clock, seed).verdict, Verdict::same) << seed;
    EXPECT_EQ(verdict_of(0, 0, kH200Clock, seed, at_threshold(0.02)).verdict, Verdict::same);
  }
}

TEST(Verdict, HalfAPercentIsSame) {
  for (unsigned seed = 1; seed <= 20; ++seed)
    for (double shift : {0.005, -0.005}) {
      EXPECT_EQ(verdict_of(shift, 0, kH200Clock, seed).verdict, Verdict::same) << seed;
      EXPECT_EQ(verdict_of(shift, 0, kH200Clock, seed, at_threshold(0.02)).verdict, Verdict::same)
          << seed;
    }
}

TEST(Verdict, TwoPercentIsSameAtTheDefaultAndNeverFasterAtTwoPercent) {
  std::size_t slower_or_unsure = 0;
  for (unsigned seed = 1; seed <= 20; ++seed) {
    EXPECT_EQ(verdict_of(0.02, 0, kH200Clock, seed).verdict, Verdict::same) << seed;
    // At the threshold itself the samples fall either side of it: mostly SLOWER or UNSURE.
    const Verdict v = verdict_of(0.02, 0, kH200Clock, seed, at_threshold(0.02)).verdict;
    EXPECT_NE(v, Verdict::faster) << seed;
    slower_or_unsure += v == Verdict::slower || v == Verdict::unsure;
  }
  EXPECT_GE(slower_or_unsure, 15u);
}

TEST(Verdict, TenPercentIsSlowerOrFaster) {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    EXPECT_EQ(verdict_of(0.10, 0, kH200Clock, seed).verdict, Verdict::slower) << seed;
    EXPECT_EQ(verdict_of(-0.10, 0, kH200Clock, seed).verdict, Verdict::faster) << seed;
    EXPECT_EQ(verdict_of(0.03, 0, kH200Clock, seed, at_threshold(0.02)).verdict, Verdict::slower)
        << seed;
  }
  const Judgement j = verdict_of(0.10);
  EXPECT_NEAR(j.ratio, 1.10, 0.005);
  EXPECT_LT(j.interval.lo, j.ratio);
  EXPECT_GT(j.interval.hi, j.ratio);
  EXPECT_NEAR(j.cycle_ratio, j.ratio, 1e-12);  // one clock
  EXPECT_LT(j.p, 0.001);
}

TEST(Verdict, DriftMakesAChangeWithinItUnsure) {
  // A contender drifting 12% end to end (about +6.6% last quarter against first: flagged), its
  // median 6% above the baseline's: the change is within the drift.
  const Judgement none = verdict_of(0, 0.12);
  EXPECT_EQ(none.verdict, Verdict::unsure) << none.reason;
  EXPECT_NE(none.reason.find("within the noise: the contender's samples drifted"),
            std::string::npos)
      << none.reason;
  // Its median 2% above, the interval within the threshold: a drifted median still describes
  // neither speed. 16 samples: 4 at the baseline's speed, 8 at +2%, the last 4 at +7%.
  std::vector<double> stepped;
  for (int i = 0; i < 16; ++i)
    stepped.push_back(1e-3 * (i < 4 ? 1.0 : i < 12 ? 1.02 : 1.07) * (1 + 0.0005 * (i % 3)));
  const Judgement small =
      judge(side_of(samples(1.0, 7, 16), kH200Clock), side_of(stepped, kH200Clock), Rules{});
  EXPECT_EQ(small.verdict, Verdict::unsure) << small.reason;
  EXPECT_NE(small.reason.find("within +-5% but the contender's samples drifted"), std::string::npos)
      << small.reason;
}

TEST(Verdict, AChangeLargerThanTheDriftStands) {
  const Judgement j = verdict_of(0.25, 0.12);
  EXPECT_EQ(j.verdict, Verdict::slower) << j.reason;
}

TEST(Verdict, OverlappingSamplesAreUnsure) {
  // 10% apart at the median, but two of the contender's samples as fast as the baseline's.
  std::vector<double> base, contender;
  for (int i = 0; i < 12; ++i) {
    base.push_back(1e-3 * (1 + 0.001 * i));
    contender.push_back(1e-3 * (i == 4 || i == 7 ? 1.0 + 0.001 * i : 1.10 + 0.001 * i));
  }
  const Judgement j = judge(side_of(base, kH200Clock), side_of(contender, kH200Clock), Rules{});
  EXPECT_EQ(j.verdict, Verdict::unsure) << j.reason;
  EXPECT_NE(j.reason.find("the samples overlap"), std::string::npos) << j.reason;
}

TEST(Verdict, AClockChangeWithoutACodeChangeIsUnsure) {
  // 10% slower in time, at a clock 10% lower: the same number of SM cycles.
  const Judgement j = verdict_of(0.10, 0, kH200Clock / 1.10);
  EXPECT_EQ(j.verdict, Verdict::unsure);
  EXPECT_NEAR(j.cycle_ratio, 1.0, 0.005);
  EXPECT_NE(j.reason.find("the GPU changed speed, not the code"), std::string::npos) << j.reason;
}

TEST(Verdict, ACodeChangeAtTheSameClockHoldsInCycles) {
  const Judgement j = verdict_of(0.10);
  EXPECT_EQ(j.verdict, Verdict::slower);
  EXPECT_NE(j.reason.find("in SM cycles too"), std::string::npos) << j.reason;
}

TEST(Verdict, WithoutAClockTimeAloneDecides) {
  const Judgement j = verdict_of(0.10, 0, 0);
  EXPECT_EQ(j.verdict, Verdict::slower);
  EXPECT_EQ(j.cycle_ratio, 0);
  EXPECT_NE(j.reason.find("time only"), std::string::npos) << j.reason;
}

TEST(Verdict, TooFewSamplesIsUnsureAndSaysSo) {
  const SideSamples b = side_of(samples(1.0, 1), kH200Clock);
  const SideSamples c = side_of(samples(1.5, 2, 3), kH200Clock);  // 50% slower, 3 samples
  const Judgement j = judge(b, c, Rules{});
  EXPECT_EQ(j.verdict, Verdict::unsure);
  EXPECT_NE(j.reason.find("the contender has 3 samples; a verdict needs 5"), std::string::npos)
      << j.reason;
}

TEST(Verdict, AnAlphaTheSampleSizesCannotReachIsUnsure) {
  Rules strict;
  strict.alpha = 0.005;  // 5 and 5 samples reach 2/252 = 0.0079 at best
  const Judgement j = judge(side_of(samples(1.0, 1, 5), 0), side_of(samples(1.5, 2, 5), 0), strict);
  EXPECT_EQ(j.verdict, Verdict::unsure);
  EXPECT_NE(j.reason.find("cannot reach"), std::string::npos) << j.reason;
}

TEST(Verdict, AFailedSideIsUnsure) {
  const Judgement j =
      judge(side_of(samples(1.0, 1), 0), unusable_side("was failed: out of memory"), Rules{});
  EXPECT_EQ(j.verdict, Verdict::unsure);
  EXPECT_EQ(j.reason, "the contender was failed: out of memory");
}

TEST(Verdict, TheThresholdIsAnOption) {
  Rules loose;
  loose.threshold = 0.10;
  const SideSamples b = side_of(samples(1.0, 3), kH200Clock);
  const SideSamples c = side_of(samples(1.07, 4), kH200Clock);
  EXPECT_EQ(judge(b, c, loose).verdict, Verdict::same);
  EXPECT_EQ(judge(b, c, Rules{}).verdict, Verdict::slower);
  EXPECT_EQ(judge(b, c, at_threshold(0.02)).verdict, Verdict::slower);
}

TEST(Verdict, PredictionsAgainstTheThresholdAlone) {
  EXPECT_EQ(judge_prediction(1.0, 1.04, Rules{}).verdict, Verdict::same);
  EXPECT_EQ(judge_prediction(1.0, 1.06, Rules{}).verdict, Verdict::slower);
  EXPECT_EQ(judge_prediction(1.0, 0.94, Rules{}).verdict, Verdict::faster);
  EXPECT_EQ(judge_prediction(0, 1, Rules{}).verdict, Verdict::unsure);
}

}  // namespace
}  // namespace fa4::compare
