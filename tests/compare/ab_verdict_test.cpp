// The verdict on two kernels timed in alternating rounds (bench --ab), through the whole path: a
// simulated GPU whose speed drifts while fake kernels are timed round by round
// (orchestration/ab_rounds), both sides recorded in a database with the round of every sample, read
// back by compare (each round one sample, its median) and judged kernel against kernel at bench
// --ab's 2% threshold. Identical kernels under a drift are never FASTER or SLOWER (while the same
// drift, where the clock does not show it, timed one kernel after the other is, falsely), real
// shifts of 5% are found both ways, and a 1% shift inside the threshold is not called slower. Two
// builds timed in alternating processes, one run a round (compare --runs-as-rounds), get the same
// verdicts from their runs' medians.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>

#include "compare/comparison.hpp"
#include "compare/side.hpp"
#include "core/stats.hpp"
#include "orchestration/ab_rounds.hpp"

namespace fa4::compare {
namespace {

using orchestration::PreparedSide;
using orchestration::RoundTiming;

constexpr int kRounds = 10;
constexpr int kSamplesPerRound = 10;

// A GPU: each timing (turn) is slower than the one before by a linear drift over the whole
// comparison (`drift` from the first turn to the last: heating, a power limit), with a noise
// between rounds (`round_noise`, standard deviation) and inside one (`sample_noise`). The SM clock
// read after each round falls with the drift when `clock_shows_drift` (a clock that throttles,
// which compare's cycle check sees), else stays put (memory throttling, another tenant: a drift
// only the order of the timings can keep off the verdict).
struct SimulatedGpu {
  double drift = 0;
  bool clock_shows_drift = true;
  double round_noise = 0.005;
  double sample_noise = 0.003;
  std::mt19937_64 rng;
  int turn = 0;
  int turns = 2 * kRounds;

  explicit SimulatedGpu(std::uint64_t seed) : rng(seed) {}
  double normal() {  // Box-Muller on the engine's own output: the same numbers on every library
    const double u1 = (double(rng() >> 11) + 0.5) * 0x1.0p-53;
    const double u2 = (double(rng() >> 11) + 0.5) * 0x1.0p-53;
    return std::sqrt(-2 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  RoundTiming round(double kernel_s) {
    const double slow = 1 + drift * double(turn) / double(turns - 1);
    ++turn;
    const double round_s = kernel_s * slow * std::exp(round_noise * normal());
    RoundTiming r;
    for (int i = 0; i < kSamplesPerRound; ++i)
      r.samples_s.push_back(round_s * (1 + sample_noise * normal()));
    r.sm_clock_mhz = clock_shows_drift ? 1980 / slow : 1980;
    return r;
  }
};

PreparedSide side(const std::string& kernel, double kernel_s, SimulatedGpu& gpu) {
  PreparedSide s;
  s.measurement.kernel = kernel;
  s.time_round = [&gpu, kernel_s]() -> Result<RoundTiming> { return gpu.round(kernel_s); };
  return s;
}

Rules ab_rules() {
  Rules rules;
  rules.threshold = 0.02;  // bench --ab's default
  return rules;
}

// fa3 (1 ms) against fa4 (1 ms x `ratio`) in alternating rounds, recorded and compared.
Judgement ab_verdict(double ratio, double drift, std::uint64_t seed, bool clock_shows_drift) {
  SimulatedGpu gpu(seed);
  gpu.drift = drift;
  gpu.clock_shows_drift = clock_shows_drift;
  auto db = store::Store::open(":memory:").value();
  store::RunInfo info;
  info.kind = store::RunKind::bench;
  info.revision = "test";
  info.host = "test";
  info.command_line = "fa4-analyze bench --kernel fa3,fa4 --ab";
  const std::int64_t run = db.begin_run(info).value();
  const AttnShape shape{.batch = 4,
                        .heads_q = 16,
                        .heads_kv = 16,
                        .seqlen_q = 4096,
                        .seqlen_k = 4096,
                        .headdim = 128,
                        .headdim_v = 128};
  auto summary = orchestration::run_ab_sweep(
      db, {shape}, Pass::fwd, {.run_id = run, .device = "NVIDIA H200", .rounds = kRounds},
      [&](const AttnShape&, std::size_t) -> Result<std::array<PreparedSide, 2>> {
        return std::array<PreparedSide, 2>{side("fa3", 1e-3, gpu), side("fa4", 1e-3 * ratio, gpu)};
      });
  EXPECT_TRUE(summary.ok()) << summary.error().message;
  const SideSpec spec{db.path(), run, "ab"};
  auto baseline = read_side(db, spec);
  auto contender = read_side(db, spec);
  EXPECT_TRUE(baseline.ok() && contender.ok());
  auto c = compare_sides(std::move(*baseline), std::move(*contender),
                         {.kernels = {}, .kernel = "fa3", .against = "fa4"}, ab_rules());
  EXPECT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->rows.size(), 1u);
  // Each round is one sample of the comparison.
  EXPECT_EQ(c->rows.at(0).baseline->samples.sorted.size(), std::size_t(kRounds));
  return c->rows.at(0).judgement;
}

// The same drift with fa3's rounds all timed before fa4's: what alternation prevents.
Judgement one_after_the_other(double ratio, double drift, std::uint64_t seed,
                              bool clock_shows_drift) {
  SimulatedGpu gpu(seed);
  gpu.drift = drift;
  gpu.clock_shows_drift = clock_shows_drift;
  std::array<std::vector<double>, 2> medians;
  std::array<std::vector<double>, 2> clocks;
  for (int s = 0; s < 2; ++s)
    for (int r = 0; r < kRounds; ++r) {
      const RoundTiming t = gpu.round(s == 0 ? 1e-3 : 1e-3 * ratio);
      medians[s].push_back(fa4::summarize(t.samples_s).median_s);
      clocks[s].push_back(t.sm_clock_mhz);
    }
  return judge(side_of(medians[0], fa4::summarize(clocks[0]).median_s),
               side_of(medians[1], fa4::summarize(clocks[1]).median_s), ab_rules());
}

TEST(AbVerdict, IdenticalKernelsUnderADriftAreNeverFasterOrSlower) {
  int same = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed)
    for (double drift : {0.0, 0.03, 0.08})
      for (bool clock : {true, false}) {
        const Judgement j = ab_verdict(1.0, drift, seed, clock);
        EXPECT_TRUE(j.verdict == Verdict::same || j.verdict == Verdict::unsure)
            << "seed " << seed << " drift " << drift << " clock " << clock << ": "
            << to_string(j.verdict) << " " << j.reason;
        if (drift == 0.0 && clock) same += j.verdict == Verdict::same;
      }
  // Without a drift the interval is narrow enough to say SAME, not just "not different".
  EXPECT_GE(same, 36);
}

TEST(AbVerdict, TheSameDriftTimedOneKernelAfterTheOtherIsAFalseVerdict) {
  int false_verdicts = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed)
    false_verdicts += one_after_the_other(1.0, 0.08, seed, false).verdict == Verdict::slower;
  EXPECT_GE(false_verdicts, 36);
}

TEST(AbVerdict, FivePercentIsFoundBothWaysThroughADrift) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed)
    for (double drift : {0.0, 0.03})
      for (bool clock : {true, false}) {
        const Judgement slower = ab_verdict(1.05, drift, seed, clock);
        EXPECT_EQ(slower.verdict, Verdict::slower) << seed << " " << drift << ": " << slower.reason;
        EXPECT_NEAR(slower.ratio, 1.05, 0.02);
        EXPECT_LT(slower.interval.lo, slower.ratio);
        EXPECT_GT(slower.interval.hi, slower.ratio);
        const Judgement faster = ab_verdict(1 / 1.05, drift, seed, clock);
        EXPECT_EQ(faster.verdict, Verdict::faster) << seed << " " << drift << ": " << faster.reason;
      }
}

TEST(AbVerdict, OnePercentInsideTheThresholdIsNotCalledSlower) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const Judgement j = ab_verdict(1.01, 0.0, seed, true);
    EXPECT_NE(j.verdict, Verdict::slower) << seed << ": " << j.reason;
    EXPECT_NE(j.verdict, Verdict::faster) << seed << ": " << j.reason;
  }
}

// Two builds timed in alternating processes (scripts/gpu-ab.sh --trees): each process is one
// round and records one run in its build's database; compare --runs-as-rounds takes each run's
// median as one sample.
struct TwoBuilds {
  store::Store a = store::Store::open(":memory:").value();
  store::Store b = store::Store::open(":memory:").value();

  static void record(store::Store& db, const RoundTiming& t, const std::string& kernel) {
    store::RunInfo info;
    info.kind = store::RunKind::bench;
    info.revision = "test";
    info.host = "test";
    info.command_line = "fa4-analyze bench --kernel fa3";
    const std::int64_t run = db.begin_run(info).value();
    store::Measurement m;
    m.kernel = kernel;
    m.device = "NVIDIA H200";
    m.shape = {.batch = 4,
               .heads_q = 16,
               .heads_kv = 16,
               .seqlen_q = 4096,
               .seqlen_k = 4096,
               .headdim = 128,
               .headdim_v = 128};
    const TimingStats s = fa4::summarize(t.samples_s);
    m.median_s = s.median_s;
    m.p25_s = s.p25_s;
    m.p75_s = s.p75_s;
    m.min_s = s.min_s;
    m.max_s = s.max_s;
    m.tflops = 500;
    m.sm_clock_mhz = t.sm_clock_mhz;
    m.samples_s = t.samples_s;
    EXPECT_TRUE(db.record_measurement(run, m).ok());
  }
  // `rounds` rounds of processes, A B then B A in turn, B's build `ratio` x A's.
  TwoBuilds(double ratio, double drift, std::uint64_t seed, int rounds = kRounds) {
    SimulatedGpu gpu(seed);
    gpu.drift = drift;
    gpu.turns = 2 * rounds;
    for (int r = 0; r < rounds; ++r)
      for (int turn = 0; turn < 2; ++turn) {
        const bool a_now = (r % 2 == 0) == (turn == 0);
        record(a_now ? a : b, gpu.round(a_now ? 1e-3 : 1e-3 * ratio), "fa3");
      }
  }
  Judgement verdict() {
    auto baseline = read_side_by_runs(a, {a.path(), std::nullopt, "A.db"});
    auto contender = read_side_by_runs(b, {b.path(), std::nullopt, "B.db"});
    EXPECT_TRUE(baseline.ok() && contender.ok());
    auto c = compare_sides(std::move(*baseline), std::move(*contender), {}, ab_rules());
    EXPECT_TRUE(c.ok()) << c.error().message;
    EXPECT_EQ(c->rows.size(), 1u);
    EXPECT_EQ(c->rows.at(0).baseline->samples.sorted.size(), std::size_t(kRounds));
    return c->rows.at(0).judgement;
  }
};

TEST(RunsAsRounds, TwoBuildsInAlternatingProcessesGetTheVerdictOfTheirRuns) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const Judgement same = TwoBuilds(1.0, 0.03, seed).verdict();
    EXPECT_TRUE(same.verdict == Verdict::same || same.verdict == Verdict::unsure)
        << seed << ": " << same.reason;
    EXPECT_EQ(TwoBuilds(1.05, 0.03, seed).verdict().verdict, Verdict::slower) << seed;
  }
}

TEST(RunsAsRounds, ARunIdIsRefusedAndAConfigurationNeverOkCannotBeCompared) {
  TwoBuilds builds(1.0, 0, 1);
  auto refused = read_side_by_runs(builds.a, {builds.a.path(), 3, "A.db:3"});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message,
            "'A.db:3' names run 3; with each run one round a side is a whole database: give "
            "FILE.db");
  store::Measurement failed;
  failed.kernel = "fa4";
  failed.device = "NVIDIA H200";
  failed.shape = {.batch = 1,
                  .heads_q = 1,
                  .heads_kv = 1,
                  .seqlen_q = 128,
                  .seqlen_k = 128,
                  .headdim = 64,
                  .headdim_v = 64};
  failed.status = store::MeasurementStatus::failed;
  failed.reason = "O error 1 > tolerance";
  ASSERT_TRUE(builds.a.record_measurement(1, failed).ok());
  auto side = read_side_by_runs(builds.a, {builds.a.path(), std::nullopt, "A.db"});
  ASSERT_TRUE(side.ok()) << side.error().message;
  ASSERT_EQ(side->entries.size(), 2u);
  EXPECT_EQ(side->entries[1].samples.unusable, "was failed: O error 1 > tolerance");
  EXPECT_EQ(side->label, ":memory: (10 runs as rounds)");
}

}  // namespace
}  // namespace fa4::compare
