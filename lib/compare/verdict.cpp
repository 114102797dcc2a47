#include "compare/verdict.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace fa4::compare {
namespace {

std::string percent(double ratio) { return fmt::format("{:+.1f}%", (ratio - 1) * 100); }

std::string side_name(bool contender) { return contender ? "contender" : "baseline"; }

// How far a flagged side's samples moved or spread (the larger), 0 when it is not flagged.
double flagged_noise(const SideSamples& side) {
  if (side.flag == SampleFlag::none) return 0;
  return std::max(std::abs(side.drift), side.relative_iqr);
}

std::string flag_text(const SideSamples& side, bool contender) {
  if (side.flag == SampleFlag::drifted)
    return fmt::format("the {}'s samples drifted {:+.1f}%", side_name(contender), side.drift * 100);
  return fmt::format("the {}'s samples spread (IQR {:.1f}% of the median)", side_name(contender),
                     side.relative_iqr * 100);
}

// The flag of either side, the larger first; empty when neither is flagged.
std::string flags_text(const SideSamples& b, const SideSamples& c) {
  std::string text;
  if (b.flag != SampleFlag::none) text = flag_text(b, false);
  if (c.flag != SampleFlag::none) text += (text.empty() ? "" : " and ") + flag_text(c, true);
  return text;
}

bool beyond(double ratio, Interval i, double gap, bool slower) {
  return slower ? (i.lo > 1 && ratio >= 1 + gap) : (i.hi < 1 && ratio <= 1 / (1 + gap));
}

bool within(Interval i, double threshold) {
  return i.lo >= 1 / (1 + threshold) && i.hi <= 1 + threshold;
}

// The third quartile of sorted samples, by linear interpolation (as core/stats).
double quartile3(const std::vector<double>& sorted) {
  const double at = 0.75 * double(sorted.size() - 1);
  const auto i = static_cast<std::size_t>(at);
  const double f = at - double(i);
  return i + 1 < sorted.size() ? sorted[i] + f * (sorted[i + 1] - sorted[i]) : sorted[i];
}

Judgement unsure(std::string why) {
  Judgement j;
  j.reason = std::move(why);
  return j;
}

}  // namespace

std::string_view to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::faster:
      return "FASTER";
    case Verdict::slower:
      return "SLOWER";
    case Verdict::same:
      return "SAME";
    case Verdict::unsure:
      return "UNSURE";
  }
  return "UNSURE";
}

const std::string_view kVerdictRules =
    "Verdicts (ratio = contender's median / baseline's; T = --threshold, A = --alpha):\n"
    "  UNSURE  a side failed, has fewer than 5 samples, or too few for the U test to reach A\n"
    "  SLOWER  U test p < A, the bootstrap 95% interval of the ratio above 1, the ratio >= 1+G,\n"
    "          and the contender's fastest sample 0.5% above the baseline's third quartile\n"
    "  FASTER  the same the other way: p < A, interval below 1, ratio <= 1/(1+G), the\n"
    "          baseline's fastest sample 0.5% above the contender's third quartile\n"
    "  SAME    the whole interval within [1/(1+T), 1+T] and neither side flagged (in time)\n"
    "  UNSURE  anything else (the interval crosses the threshold)\n"
    "  G is T, or the drift or IQR of a side flagged for drift or spread when larger.\n"
    "  Where both SM clocks are known FASTER and SLOWER must hold in cycles too (time x\n"
    "  clock): one that holds in time only is UNSURE, 'the GPU changed speed, not the code'.\n";

SideSamples side_of(std::vector<double> samples_in_order, double clock_mhz) {
  SideSamples side;
  side.clock_mhz = clock_mhz;
  if (samples_in_order.empty()) {
    side.unusable = "has no samples";
    return side;
  }
  const TimingStats stats = summarize(samples_in_order);
  side.drift = sample_drift(samples_in_order);
  side.relative_iqr = stats.relative_iqr();
  side.flag = sample_flag(stats);
  side.sorted = std::move(samples_in_order);
  std::sort(side.sorted.begin(), side.sorted.end());
  side.median_s = median_of_sorted(side.sorted);
  return side;
}

SideSamples side_of_measurement(const std::vector<double>& samples_in_order,
                                const std::vector<int>& rounds, double clock_mhz) {
  return side_of(round_medians(samples_in_order, rounds), clock_mhz);
}

SideSamples unusable_side(std::string why) {
  SideSamples side;
  side.unusable = std::move(why);
  return side;
}

Judgement judge(const SideSamples& b, const SideSamples& c, const Rules& rules) {
  for (const auto* side : {&b, &c})
    if (!side->unusable.empty())
      return unsure(fmt::format("the {} {}", side_name(side == &c), side->unusable));
  for (const auto* side : {&b, &c})
    if (side->sorted.size() < rules.min_samples)
      return unsure(fmt::format("the {} has {} sample{}; a verdict needs {} a side",
                                side_name(side == &c), side->sorted.size(),
                                side->sorted.size() == 1 ? "" : "s", rules.min_samples));
  for (const auto* side : {&b, &c})
    if (side->sorted.size() > kMaxBootstrapSamples)
      return unsure(fmt::format("the {} has {} samples; the bootstrap takes at most {}",
                                side_name(side == &c), side->sorted.size(), kMaxBootstrapSamples));
  if (smallest_p(b.sorted.size(), c.sorted.size()) >= rules.alpha)
    return unsure(fmt::format("with {} and {} samples the U test cannot reach p < {}",
                              b.sorted.size(), c.sorted.size(), rules.alpha));
  Judgement j;
  j.ratio = c.median_s / b.median_s;
  j.interval = bootstrap_ratio_interval(b.sorted, c.sorted, rules.resamples, rules.confidence,
                                        0x5eed5eedULL);
  j.p = mann_whitney_p(b.sorted, c.sorted);
  const bool clocks = b.clock_mhz > 0 && c.clock_mhz > 0;
  const double k = clocks ? c.clock_mhz / b.clock_mhz : 1;  // time ratio -> cycle ratio
  if (clocks) j.cycle_ratio = j.ratio * k;
  const Interval cycles{j.interval.lo * k, j.interval.hi * k};
  const double t = rules.threshold;
  const double gap = std::max({t, flagged_noise(b), flagged_noise(c)});
  const std::string clock_moved =
      clocks ? fmt::format("the SM clock moved {:.0f} -> {:.0f} MHz", b.clock_mhz, c.clock_mhz)
             : "";
  const bool significant = j.p < rules.alpha;
  for (const bool slower : {true, false}) {
    if (!significant || !beyond(j.ratio, j.interval, t, slower)) continue;
    if (gap > t && !beyond(j.ratio, j.interval, gap, slower)) {
      j.reason = fmt::format("the change ({}) is within the noise: {}", percent(j.ratio),
                             flags_text(b, c));
      return j;
    }
    // nvbench's robust compare: the [min, q3] ranges of the two sides apart, by a gap.
    const SideSamples& fast = slower ? b : c;
    const SideSamples& slow = slower ? c : b;
    const double fast_q3 = quartile3(fast.sorted), slow_min = slow.sorted.front();
    if (slow_min < fast_q3 * (1 + rules.separation)) {
      j.reason = fmt::format(
          "{} (p = {:.2g}) but the samples overlap: the {}'s fastest, {:.5g} ms, is not {:g}% "
          "above the {}'s third quartile, {:.5g} ms",
          percent(j.ratio), j.p, side_name(slower), slow_min * 1e3, rules.separation * 100,
          side_name(!slower), fast_q3 * 1e3);
      return j;
    }
    if (clocks && !beyond(j.cycle_ratio, cycles, gap, slower)) {
      j.reason = fmt::format(
          "{} in time but {} in SM cycles: {} (the GPU changed speed, not the "
          "code)",
          percent(j.ratio), percent(j.cycle_ratio), clock_moved);
      return j;
    }
    j.verdict = slower ? Verdict::slower : Verdict::faster;
    j.reason = fmt::format("{} (p = {:.2g}){}", percent(j.ratio), j.p,
                           clocks ? ", in SM cycles too" : "; no SM clock: time only");
    return j;
  }
  if (within(j.interval, t)) {
    if (gap > t) {
      j.reason = fmt::format("within +-{:g}% but {}", t * 100, flags_text(b, c));
      return j;
    }
    j.verdict = Verdict::same;
    j.reason = fmt::format("the interval lies within +-{:g}%", t * 100);
    if (clocks && !within(cycles, t))  // as nvbench's SAME: told by the time samples alone
      j.reason += fmt::format(" ({} in SM cycles: {}; a clock read once a measurement)",
                              percent(j.cycle_ratio), clock_moved);
    return j;
  }
  j.reason = significant
                 ? fmt::format("{} (p = {:.2g}) but the interval [{:.3f}, {:.3f}] crosses +-{:g}%",
                               percent(j.ratio), j.p, j.interval.lo, j.interval.hi, t * 100)
                 : fmt::format(
                       "no significant change (p = {:.2g}) yet the interval [{:.3f}, "
                       "{:.3f}] reaches past +-{:g}%",
                       j.p, j.interval.lo, j.interval.hi, t * 100);
  return j;
}

Judgement judge_prediction(double baseline_s, double contender_s, const Rules& rules) {
  Judgement j;
  if (!(baseline_s > 0) || !(contender_s > 0)) {
    j.reason = "a prediction without a time";
    return j;
  }
  j.ratio = contender_s / baseline_s;
  j.interval = {j.ratio, j.ratio};
  const double t = rules.threshold;
  j.verdict = j.ratio >= 1 + t         ? Verdict::slower
              : j.ratio <= 1 / (1 + t) ? Verdict::faster
                                       : Verdict::same;
  j.reason = fmt::format("{} predicted (no samples: the threshold alone)", percent(j.ratio));
  return j;
}

}  // namespace fa4::compare
