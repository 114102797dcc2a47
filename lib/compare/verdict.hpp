// The verdict on one configuration measured on two sides: FASTER, SLOWER, SAME or UNSURE, by the
// rules in kVerdictRules (apps/fa4-analyze/README.md, "Comparing runs", says where each comes
// from). Time and SM cycles (time x the SM clock each side ran at) must agree; drift and spread
// flags (core/stats) widen the gap a verdict needs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "compare/statistics.hpp"
#include "core/stats.hpp"

namespace fa4::compare {

enum class Verdict { faster, slower, same, unsure };
std::string_view to_string(Verdict verdict);  // "FASTER", "SLOWER", "SAME", "UNSURE"

struct Rules {
  // The smallest change worth a verdict: 5%, the drift and spread flags' bound (core/stats). Runs
  // of one revision in separate processes differ by up to 3.3% unflagged in the shipped runs
  // (tests/compare/shipped_runs_test.cpp): a smaller threshold wants alternating rounds.
  double threshold = 0.05;
  double alpha = 0.05;  // the U test's significance level
  std::size_t min_samples = 5;
  int resamples = 2000;  // bootstrap resamplings of each side
  double confidence = 0.95;
  // FASTER and SLOWER need the slower side's fastest sample this far above the faster side's
  // third quartile (nvbench's robust compare: the [min, q3] ranges apart by 0.5%).
  double separation = 0.005;
};

// The rules as --help prints them (apps/fa4-analyze/README.md gives the same rules with their
// sources).
extern const std::string_view kVerdictRules;

// One side of a configuration: its samples and what they are flagged for.
struct SideSamples {
  std::vector<double> sorted;  // the samples, ascending
  double median_s = 0;
  double clock_mhz = 0;     // the SM clock it ran at; 0: not read
  double drift = 0;         // core/stats sample_drift, of the samples in the order taken
  double relative_iqr = 0;  // (p75 - p25) / median
  SampleFlag flag = SampleFlag::none;
  std::string unusable;  // why it cannot be compared ("failed: out of memory"); empty when it can
};

// A side from its samples in the order taken and its SM clock (0: not read).
SideSamples side_of(std::vector<double> samples_in_order, double clock_mhz);
// A side from a measurement's samples in the order taken, with the round of each when they were
// taken in alternating rounds (bench --ab; empty otherwise): then each round is one sample, its
// median (core/stats.hpp, round_medians).
SideSamples side_of_measurement(const std::vector<double>& samples_in_order,
                                const std::vector<int>& rounds, double clock_mhz);
// A side that cannot be compared, and why.
SideSamples unusable_side(std::string why);

struct Judgement {
  Verdict verdict = Verdict::unsure;
  double ratio = 0;        // contender's median / baseline's: above 1 is slower; 0 when none
  Interval interval;       // the bootstrap interval of the ratio; {0, 0} when none
  double p = 1;            // the U test's two-sided p-value; 1 when not tested
  double cycle_ratio = 0;  // the ratio in SM cycles; 0 when either clock is unknown
  std::string reason;      // the rule that decided, in a few words
};

Judgement judge(const SideSamples& baseline, const SideSamples& contender, const Rules& rules);

// A model's predictions have no samples: the ratio of the two times against the threshold alone.
Judgement judge_prediction(double baseline_s, double contender_s, const Rules& rules);

}  // namespace fa4::compare
