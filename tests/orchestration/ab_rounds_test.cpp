// bench --ab's rounds without a GPU: the order of the timings (each side first in half the rounds,
// so a drift falls on both alike), the rounds of one shape through fake timing functions (samples
// tagged with their round, statistics of the rounds' medians, the clock's median, a side that is
// not ok left out, the stop flag between rounds), and the sweep that records both sides of each
// shape in a real database.
#include "orchestration/ab_rounds.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/stats.hpp"

namespace fa4::orchestration {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string order_of(const std::vector<AbTurn>& turns) {
  std::string order;
  for (const AbTurn& t : turns) order += t.side == AbSide::a ? 'A' : 'B';
  return order;
}

TEST(AbSchedule, AlternatesWhichSideGoesFirstRoundByRound) {
  EXPECT_EQ(order_of(ab_schedule(5)), "ABBAABBAAB");
  const std::vector<AbTurn> turns = ab_schedule(3);
  EXPECT_THAT(turns, ElementsAre(AbTurn{0, AbSide::a}, AbTurn{0, AbSide::b}, AbTurn{1, AbSide::b},
                                 AbTurn{1, AbSide::a}, AbTurn{2, AbSide::a}, AbTurn{2, AbSide::b}));
  EXPECT_TRUE(ab_schedule(0).empty());
  EXPECT_TRUE(ab_schedule(-2).empty());
}

// A speed that drifts linearly with time falls on both sides alike: over an even number of rounds
// the sides' mean positions in the sequence are equal (A B A B ... would put B half a turn later
// in every round), and each side is first in half the rounds.
TEST(AbSchedule, ALinearDriftFallsOnBothSidesAlike) {
  for (int rounds : {2, 4, 10, 64}) {
    const std::vector<AbTurn> turns = ab_schedule(rounds);
    ASSERT_EQ(turns.size(), std::size_t(2 * rounds));
    long a_positions = 0, b_positions = 0;
    int a_first = 0;
    for (std::size_t i = 0; i < turns.size(); ++i) {
      (turns[i].side == AbSide::a ? a_positions : b_positions) += long(i);
      if (i % 2 == 0 && turns[i].side == AbSide::a) ++a_first;
      EXPECT_EQ(turns[i].round, int(i / 2));
    }
    EXPECT_EQ(a_positions, b_positions) << rounds << " rounds";
    EXPECT_EQ(a_first, rounds / 2) << rounds << " rounds";
  }
}

// A fake side: its kernel, and a round function that logs its turn and returns `samples` samples
// around `time_s` with the clock `clock_mhz` + the turn number.
struct FakeSide {
  std::string kernel;
  double time_s = 1e-3;
  int samples = 3;
  std::string* log = nullptr;
  int* turn = nullptr;

  PreparedSide prepared() const {
    PreparedSide side;
    side.measurement.kernel = kernel;
    side.time_round = [*this]() -> Result<RoundTiming> {
      *log += kernel + " ";
      const int now = (*turn)++;
      RoundTiming r;
      for (int i = 0; i < samples; ++i) r.samples_s.push_back(time_s * (1 + 0.001 * (i + now)));
      r.sm_clock_mhz = 1900 - now;
      return r;
    };
    return side;
  }
};

TEST(TimeInRounds, TagsEverySampleWithItsRoundAndSummarizesTheRoundsMedians) {
  std::string log;
  int turn = 0;
  const FakeSide a{"fa3", 1e-3, 3, &log, &turn}, b{"fa4", 2e-3, 4, &log, &turn};
  const double flops = 4e12;
  auto pair = time_in_rounds({a.prepared(), b.prepared()}, 4, flops);
  ASSERT_TRUE(pair.ok()) << pair.error().message;
  EXPECT_EQ(log, "fa3 fa4 fa4 fa3 fa3 fa4 fa4 fa3 ");
  EXPECT_EQ(pair->rounds_done, 4);
  EXPECT_FALSE(pair->stopped);
  const store::Measurement& ma = pair->sides[0];
  EXPECT_EQ(ma.kernel, "fa3");
  ASSERT_EQ(ma.samples_s.size(), 12u);
  EXPECT_THAT(ma.sample_rounds, ElementsAre(0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3));
  // fa3's rounds were turns 0, 3, 4, 7: each round's median is its middle sample, time x
  // (1 + 0.001 (1 + turn)); the median of the four is the mean of the middle two (turns 3, 4).
  EXPECT_NEAR(ma.median_s, 1e-3 * (1 + 0.001 * 4.5), 1e-12);
  EXPECT_NEAR(ma.min_s, 1e-3 * 1.001, 1e-12);
  EXPECT_NEAR(ma.max_s, 1e-3 * 1.008, 1e-12);
  EXPECT_NEAR(ma.tflops, flops / ma.median_s / 1e12, 1e-9);
  EXPECT_DOUBLE_EQ(ma.sm_clock_mhz, 1900 - 3.5);  // clocks 1900, 1897, 1896, 1893
  EXPECT_TRUE(ma.reason.empty()) << ma.reason;
  const store::Measurement& mb = pair->sides[1];
  EXPECT_THAT(mb.sample_rounds, ElementsAre(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3));
  EXPECT_DOUBLE_EQ(mb.sm_clock_mhz, 1900 - 3.5);  // turns 1, 2, 5, 6
}

TEST(TimeInRounds, ASideThatIsNotOkTakesNoTurnAndKeepsItsReason) {
  std::string log;
  int turn = 0;
  const FakeSide a{"fa3", 1e-3, 3, &log, &turn};
  PreparedSide failed;
  failed.measurement.kernel = "sdpa_cudnn";
  failed.measurement.status = store::MeasurementStatus::skipped;
  failed.measurement.reason = "no CUDA build of PyTorch";
  auto pair = time_in_rounds({a.prepared(), failed}, 5, 1e12);
  ASSERT_TRUE(pair.ok()) << pair.error().message;
  EXPECT_EQ(log, "fa3 fa3 fa3 fa3 fa3 ");
  EXPECT_EQ(pair->rounds_done, 5);
  EXPECT_EQ(pair->sides[1].status, store::MeasurementStatus::skipped);
  EXPECT_EQ(pair->sides[1].reason, "no CUDA build of PyTorch");
  EXPECT_TRUE(pair->sides[1].samples_s.empty());
  EXPECT_EQ(pair->sides[0].sample_rounds.size(), 15u);
}

TEST(TimeInRounds, TheStopFlagEndsTheRoundsBetweenRoundsAndKeepsThem) {
  std::string log;
  int turn = 0;
  const FakeSide a{"fa3", 1e-3, 2, &log, &turn}, b{"fa4", 1e-3, 2, &log, &turn};
  std::atomic<bool> stop{false};
  int turns_seen = 0;
  auto on_turn = [&](const AbTurn& t, int rounds) {
    EXPECT_EQ(rounds, 10);
    if (++turns_seen == 3) stop = true;  // asked during round 1: round 1 still finishes
    EXPECT_LE(t.round, 1);
  };
  auto pair = time_in_rounds({a.prepared(), b.prepared()}, 10, 1e12, &stop, on_turn);
  ASSERT_TRUE(pair.ok()) << pair.error().message;
  EXPECT_TRUE(pair->stopped);
  EXPECT_EQ(pair->rounds_done, 2);
  EXPECT_EQ(log, "fa3 fa4 fa4 fa3 ");
  EXPECT_THAT(pair->sides[1].sample_rounds, ElementsAre(0, 0, 1, 1));
}

TEST(TimeInRounds, ARoundsErrorNamesTheSideAndTheRound) {
  std::string log;
  int turn = 0;
  const FakeSide a{"fa3", 1e-3, 2, &log, &turn};
  PreparedSide broken;
  broken.measurement.kernel = "sdpa_cudnn";
  int calls = 0;
  broken.time_round = [&]() -> Result<RoundTiming> {
    if (++calls == 2) return Error{"the peer runner exited with 4"};
    return RoundTiming{{1e-3}, 0};
  };
  auto pair = time_in_rounds({a.prepared(), broken}, 5, 1e12);
  ASSERT_FALSE(pair.ok());
  EXPECT_EQ(pair.error().message, "sdpa_cudnn, round 2 of 5: the peer runner exited with 4");
  EXPECT_FALSE(time_in_rounds({a.prepared(), a.prepared()}, 0, 1e12).ok());
}

// Rounds whose medians step by 10% half-way are flagged as drifted, in the reason.
TEST(TimeInRounds, RoundsThatDriftAreFlaggedInTheReason) {
  int turn = 0;
  PreparedSide a;
  a.measurement.kernel = "fa3";
  a.time_round = [&]() -> Result<RoundTiming> {
    const double t = turn++ < 10 ? 1e-3 : 1.1e-3;
    return RoundTiming{{t, t, t}, 1800};
  };
  PreparedSide b = a;
  b.measurement.kernel = "fa4";
  auto pair = time_in_rounds({a, b}, 10, 1e12);
  ASSERT_TRUE(pair.ok()) << pair.error().message;
  EXPECT_THAT(pair->sides[0].reason, HasSubstr("the rounds' medians drifted +10.0%"));
  EXPECT_DOUBLE_EQ(pair->sides[0].sm_clock_mhz, 1800);
}

store::Store memory_store() {
  auto db = store::Store::open(":memory:");
  if (!db) throw std::runtime_error(db.error().message);
  return std::move(db).value();
}

TEST(AbSweep, RecordsBothSidesOfEveryShapeWithTheRoundOfEverySample) {
  store::Store db = memory_store();
  store::RunInfo info;
  info.kind = store::RunKind::bench;
  info.revision = "test";
  info.host = "test";
  info.command_line = "fa4-analyze bench --ab";
  const std::int64_t run = db.begin_run(info).value();
  std::string log;
  int turn = 0;
  const FakeSide a{"fa3", 1e-3, 3, &log, &turn}, b{"fa4", 2e-3, 3, &log, &turn};
  const AttnShape s1{.batch = 2,
                     .heads_q = 16,
                     .heads_kv = 16,
                     .seqlen_q = 1024,
                     .seqlen_k = 1024,
                     .headdim = 128,
                     .headdim_v = 128};
  AttnShape s2 = s1;
  s2.causal = true;
  std::vector<std::size_t> prepared;
  int pairs = 0;
  auto summary = run_ab_sweep(
      db, {s1, s2}, Pass::bwd, {.run_id = run, .device = "NVIDIA H200", .rounds = 6},
      [&](const AttnShape&, std::size_t index) -> Result<std::array<PreparedSide, 2>> {
        prepared.push_back(index);
        return std::array<PreparedSide, 2>{a.prepared(), b.prepared()};
      },
      [&](const AttnShape& shape, const AbRounds& pair, std::array<std::int64_t, 2> ids) {
        EXPECT_EQ(shape.causal, pairs == 1);
        EXPECT_EQ(pair.rounds_done, 6);
        EXPECT_EQ(ids[1], ids[0] + 1);
        ++pairs;
      });
  ASSERT_TRUE(summary.ok()) << summary.error().message;
  EXPECT_EQ(summary->recorded, 2u);
  EXPECT_FALSE(summary->stopped);
  EXPECT_THAT(prepared, ElementsAre(0u, 1u));
  const auto count = [&](const std::string& sql) {
    return std::get<std::int64_t>(db.query(sql).value().rows.at(0).at(0));
  };
  EXPECT_EQ(count("SELECT COUNT(*) FROM measurements WHERE pass = 'bwd' AND device = 'NVIDIA "
                  "H200' AND status = 'ok'"),
            4);
  EXPECT_EQ(count("SELECT COUNT(*) FROM samples WHERE round_index IS NULL"), 0);
  EXPECT_EQ(count("SELECT COUNT(DISTINCT round_index) FROM samples"), 6);
  EXPECT_EQ(count("SELECT COUNT(*) FROM samples s JOIN measurements m ON m.id = s.measurement_id "
                  "WHERE m.kernel = 'fa4' AND m.causal = 1"),
            18);
  // The report's rows carry one sample a round, the rounds' medians.
  auto rows = db.measurements_for_report().value();
  ASSERT_EQ(rows.size(), 4u);
  for (const store::MeasurementRow& row : rows) {
    ASSERT_EQ(row.samples_s.size(), 6u) << row.kernel;
    EXPECT_NEAR(summarize(row.samples_s).median_s, row.median_s, 1e-15) << row.kernel;
  }
}

}  // namespace
}  // namespace fa4::orchestration
