// Summary statistics of timed samples: median, quartiles, extremes, and the stopping rule
// (relative interquartile range) that decides when enough samples were taken. Plain C++.
#pragma once

#include <vector>

namespace fa4::bench {

struct TimingStats {
  double median_s = 0, p25_s = 0, p75_s = 0, min_s = 0, max_s = 0;
  std::vector<double> samples_s;  // in the order taken
  // (p75 - p25) / median; 0 for fewer than two samples.
  double relative_iqr() const;
};

// Quartiles by linear interpolation between order statistics. `samples_s` must not be empty.
TimingStats summarize(std::vector<double> samples_s);

}  // namespace fa4::bench
