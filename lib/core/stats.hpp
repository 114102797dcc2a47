// Summary statistics of timed samples: median, quartiles, extremes, and the stopping rule
// (relative interquartile range) that decides when enough samples were taken, and the drift that
// flags a measurement taken while the device changed speed. Plain C++: the timer measures with
// them, the report judges recorded samples with them.
#pragma once

#include <vector>

namespace fa4 {

struct TimingStats {
  double median_s = 0, p25_s = 0, p75_s = 0, min_s = 0, max_s = 0;
  std::vector<double> samples_s;  // in the order taken
  // (p75 - p25) / median; 0 for fewer than two samples.
  double relative_iqr() const;
};

// How far the samples moved while they were taken: (median of the last quarter - median of the
// first quarter) / median of the first quarter, the samples in the order taken; 0 for fewer than
// 8. A step means the device changed speed mid-measurement (its clock stepping down under a power
// or thermal limit, say): the median then describes neither speed, and a comparison of kernels
// wants rounds that alternate them (bench --ab).
double sample_drift(const std::vector<double>& samples_s);
// The drift (either way) past which a measurement is flagged: the target IQR is 2%.
inline constexpr double kDriftFlag = 0.05;
bool drift_flagged(double drift);  // |drift| > kDriftFlag

// The relative IQR past which a measurement's samples are flagged as spread, drifted or not: the
// timer stops sampling once its IQR is under 2%, so one over this ran to the time cap and its
// kernel took different times from sample to sample (samples split between two modes, say: a
// schedule that varies from launch to launch); the median then describes no single sample well.
inline constexpr double kSpreadFlag = 0.05;
bool spread_flagged(const TimingStats& t);  // t.relative_iqr() > kSpreadFlag

// What a measurement's samples are flagged for, a drift before a spread (a step in speed widens
// the IQR too): the one rule that bench, kernel_timing and the report judge samples by.
enum class SampleFlag { none, drifted, spread };
SampleFlag sample_flag(const TimingStats& t);

// Quartiles by linear interpolation between order statistics. `samples_s` must not be empty.
TimingStats summarize(std::vector<double> samples_s);

// A measurement taken in rounds (bench --ab: two kernels timed in alternating rounds, each round
// a whole timing): `rounds[i]` is the round of sample i. The median of each round, in the order
// of the rounds: the samples a comparison weighs and the measurement's statistics describe, one a
// round, so that what moved between rounds (the clock, the temperature) is in their spread.
// Without rounds (`rounds` empty, or not one per sample) the samples as they are.
std::vector<double> round_medians(const std::vector<double>& samples_s,
                                  const std::vector<int>& rounds);

}  // namespace fa4
