#include "orchestration/ab_rounds.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/stats.hpp"

namespace fa4::orchestration {
namespace {

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  return summarize(std::move(values)).median_s;
}

// An ok side's statistics from its rounds (core/stats.hpp: one sample a round, its median).
void fill_statistics(store::Measurement& m, const std::vector<double>& clocks, double flops) {
  const TimingStats t = summarize(round_medians(m.samples_s, m.sample_rounds));
  m.median_s = t.median_s;
  m.p25_s = t.p25_s;
  m.p75_s = t.p75_s;
  m.min_s = t.min_s;
  m.max_s = t.max_s;
  m.tflops = flops / t.median_s / 1e12;
  std::vector<double> read;
  std::copy_if(clocks.begin(), clocks.end(), std::back_inserter(read),
               [](double c) { return c > 0; });
  m.sm_clock_mhz = median(std::move(read));
  switch (sample_flag(t)) {
    case SampleFlag::drifted:
      m.reason = fmt::format(
          "the rounds' medians drifted {:+.1f}% from the first quarter of the rounds to the "
          "last: the GPU changed speed during the comparison (clock or power limit?), which "
          "both sides ran through in alternation",
          100 * sample_drift(t.samples_s));
      break;
    case SampleFlag::spread:
      m.reason = fmt::format(
          "the rounds' medians spread: IQR {:.1f}% of their median: the time varied from "
          "round to round; look at the samples (`query`, table samples, by round_index)",
          100 * t.relative_iqr());
      break;
    case SampleFlag::none:
      break;
  }
}

bool stopped(const std::atomic<bool>* stop) { return stop && stop->load(); }

}  // namespace

std::vector<AbTurn> ab_schedule(int rounds) {
  std::vector<AbTurn> turns;
  for (int r = 0; r < rounds; ++r) {
    const bool a_first = r % 2 == 0;
    turns.push_back({r, a_first ? AbSide::a : AbSide::b});
    turns.push_back({r, a_first ? AbSide::b : AbSide::a});
  }
  return turns;
}

Result<AbRounds> time_in_rounds(std::array<PreparedSide, 2> sides, int rounds, double flops,
                                const std::atomic<bool>* stop, const TurnFn& turn) {
  if (rounds < 1) return Error{fmt::format("{} rounds: time at least one", rounds)};
  AbRounds out;
  std::array<std::vector<double>, 2> clocks;
  std::array<bool, 2> timed{};
  for (std::size_t s = 0; s < 2; ++s)
    timed[s] = sides[s].measurement.status == store::MeasurementStatus::ok && sides[s].time_round;
  const std::vector<AbTurn> schedule = ab_schedule(rounds);
  for (std::size_t i = 0; i < schedule.size(); ++i) {
    const AbTurn& t = schedule[i];
    if (i % 2 == 0 && t.round > 0 && stopped(stop)) {  // between rounds, never inside one
      out.stopped = true;
      break;
    }
    const std::size_t s = t.side == AbSide::a ? 0 : 1;
    if (timed[s]) {
      if (turn) turn(t, rounds);
      Result<RoundTiming> round = sides[s].time_round();
      if (!round)
        return Error{fmt::format("{}, round {} of {}: {}", sides[s].measurement.kernel, t.round + 1,
                                 rounds, round.error().message)};
      if (round->samples_s.empty())
        return Error{fmt::format("{}, round {} of {}: the round took no sample",
                                 sides[s].measurement.kernel, t.round + 1, rounds)};
      store::Measurement& m = sides[s].measurement;
      m.samples_s.insert(m.samples_s.end(), round->samples_s.begin(), round->samples_s.end());
      m.sample_rounds.insert(m.sample_rounds.end(), round->samples_s.size(), t.round);
      clocks[s].push_back(round->sm_clock_mhz);
    }
    if (i % 2 == 1) out.rounds_done = t.round + 1;
  }
  for (std::size_t s = 0; s < 2; ++s) {
    if (timed[s]) fill_statistics(sides[s].measurement, clocks[s], flops);
    out.sides[s] = std::move(sides[s].measurement);
  }
  return out;
}

Result<AbSummary> run_ab_sweep(store::Store& db, const std::vector<AttnShape>& shapes, Pass pass,
                               const AbSettings& settings, const PrepareFn& prepare,
                               const PairRecordedFn& recorded, const TurnFn& turn) {
  AbSummary summary;
  summary.total = shapes.size();
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    if (stopped(settings.stop)) {
      summary.stopped = true;
      break;
    }
    const AttnShape& shape = shapes[i];
    auto sides = prepare(shape, i);
    if (!sides) return sides.error();
    auto pair = time_in_rounds(std::move(*sides), settings.rounds, attention_flops(shape, pass),
                               settings.stop, turn);
    if (!pair) return pair.error();
    for (store::Measurement& m : pair->sides) {
      m.shape = shape;
      m.pass = pass;
      m.device = settings.device;
    }
    auto ids = db.record_measurements(settings.run_id, pair->sides);
    if (!ids)
      return Error{fmt::format("{} (after {} of {} shapes were recorded)", ids.error().message,
                               summary.recorded, summary.total)};
    ++summary.recorded;
    if (recorded) recorded(shape, *pair, {(*ids)[0], (*ids)[1]});
    if (pair->stopped) {
      summary.stopped = true;
      break;
    }
  }
  return summary;
}

}  // namespace fa4::orchestration
