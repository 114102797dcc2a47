// The statistics of a comparison of two sample sets: the Mann-Whitney U test (as asv and Google
// Benchmark's compare.py use) and a percentile bootstrap interval of the ratio of the medians (as
// tritonbench's side A / side B). Plain C++ on sorted samples.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace fa4::compare {

// The median of sorted samples (the mean of the middle two for an even count); 0 when empty.
double median_of_sorted(std::span<const double> sorted);

// The two-sided p-value of the Mann-Whitney U test that `a` and `b` (each sorted, both non-empty)
// come from one distribution: exact (the distribution of U counted) when neither has more than
// kExactLimit samples and no value occurs twice, otherwise the normal approximation with the tie
// and continuity corrections.
inline constexpr std::size_t kExactLimit = 40;
double mann_whitney_p(std::span<const double> a, std::span<const double> b);

// The smallest two-sided p-value the exact test can give at these sizes, 2 / C(n1 + n2, n1): an
// alpha below it cannot be reached however far apart the samples are.
double smallest_p(std::size_t n1, std::size_t n2);

struct Interval {
  double lo = 0, hi = 0;
};

// The percentile bootstrap interval (`confidence`, e.g. 0.95) of median(contender) /
// median(baseline), each side resampled with replacement (both sorted, both non-empty, all
// positive, at most kMaxBootstrapSamples). Exact when neither side has more than
// kExactBootstrapLimit samples: every resampling weighed (the resampled median's distribution
// from the order statistics), no resampling drawn; otherwise from `resamples` resamplings drawn,
// seeded with `seed`. Either way the same samples give the same interval.
inline constexpr std::size_t kExactBootstrapLimit = 64;
inline constexpr std::size_t kMaxBootstrapSamples = 65535;
Interval bootstrap_ratio_interval(std::span<const double> baseline,
                                  std::span<const double> contender, int resamples,
                                  double confidence, std::uint64_t seed);

}  // namespace fa4::compare
