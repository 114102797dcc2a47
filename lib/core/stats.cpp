#include "core/stats.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace fa4 {
namespace {

double quantile(const std::vector<double>& sorted, double q) {
  const double position = q * double(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (position - double(below)) * (sorted[above] - sorted[below]);
}

}  // namespace

double TimingStats::relative_iqr() const {
  if (samples_s.size() < 2 || median_s <= 0) return 0;
  return (p75_s - p25_s) / median_s;
}

double sample_drift(const std::vector<double>& samples_s) {
  constexpr std::size_t kMinSamples = 8;
  if (samples_s.size() < kMinSamples) return 0;
  const std::size_t quarter = samples_s.size() / 4;
  const auto median_of = [](std::vector<double> part) {
    std::sort(part.begin(), part.end());
    return quantile(part, 0.5);
  };
  const double first = median_of({samples_s.begin(), samples_s.begin() + quarter});
  const double last = median_of({samples_s.end() - quarter, samples_s.end()});
  return first > 0 ? last / first - 1 : 0;
}

bool drift_flagged(double drift) { return std::abs(drift) > kDriftFlag; }

bool spread_flagged(const TimingStats& t) { return t.relative_iqr() > kSpreadFlag; }

SampleFlag sample_flag(const TimingStats& t) {
  if (drift_flagged(sample_drift(t.samples_s))) return SampleFlag::drifted;
  return spread_flagged(t) ? SampleFlag::spread : SampleFlag::none;
}

TimingStats summarize(std::vector<double> samples_s) {
  std::vector<double> sorted = samples_s;
  std::sort(sorted.begin(), sorted.end());
  return TimingStats{.median_s = quantile(sorted, 0.5),
                     .p25_s = quantile(sorted, 0.25),
                     .p75_s = quantile(sorted, 0.75),
                     .min_s = sorted.front(),
                     .max_s = sorted.back(),
                     .samples_s = std::move(samples_s)};
}

std::vector<double> round_medians(const std::vector<double>& samples_s,
                                  const std::vector<int>& rounds) {
  if (rounds.empty() || rounds.size() != samples_s.size()) return samples_s;
  std::map<int, std::vector<double>> by_round;
  for (std::size_t i = 0; i < samples_s.size(); ++i) by_round[rounds[i]].push_back(samples_s[i]);
  std::vector<double> medians;
  medians.reserve(by_round.size());
  for (auto& [round, samples] : by_round) {
    std::sort(samples.begin(), samples.end());
    medians.push_back(quantile(samples, 0.5));
  }
  return medians;
}

}  // namespace fa4
