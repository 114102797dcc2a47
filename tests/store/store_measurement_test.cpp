// Recording measurements with their samples and their link to a prediction.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "store/store.hpp"
#include "test_support.hpp"

namespace fa4::store {
namespace {

using testing::memory_store;
const auto& cell = testing::first_cell;

using ::testing::HasSubstr;

Measurement timed() {
  Measurement m;
  m.shape = AttnShape{.batch = 2, .heads_q = 16, .heads_kv = 16, .seqlen_q = 8192,
                      .seqlen_k = 8192, .headdim = 128, .headdim_v = 128};
  m.kernel = "fa2";
  m.device = "NVIDIA H200";
  m.median_s = 2e-3;
  m.p25_s = 1.9e-3;
  m.p75_s = 2.1e-3;
  m.min_s = 1.8e-3;
  m.max_s = 2.5e-3;
  m.tflops = 350;
  m.sm_clock_mhz = 1980;
  m.samples_s = {2.5e-3, 1.8e-3, 2e-3};
  return m;
}

TEST(RecordMeasurement, StoresTimesSamplesAndThePredictionLink) {
  Store store = memory_store();
  const auto run = store.begin_run(testing::run_info(RunKind::bench, "r"));
  ASSERT_TRUE(run.ok());
  ASSERT_TRUE(store.record_predictions(*run, {testing::sample_prediction()}).ok());
  Measurement m = timed();
  m.prediction_id = std::get<std::int64_t>(cell(store, "SELECT id FROM predictions"));
  const auto id = store.record_measurement(*run, m);
  ASSERT_TRUE(id.ok()) << id.error().message;
  EXPECT_EQ(std::get<double>(cell(store, "SELECT time_p75_s FROM measurements")), 2.1e-3);
  EXPECT_EQ(std::get<double>(cell(store, "SELECT sm_clock_mhz FROM measurements")), 1980);
  EXPECT_EQ(std::get<std::string>(cell(store, "SELECT status FROM measurements")), "ok");
  EXPECT_EQ(std::get<std::int64_t>(cell(store, "SELECT COUNT(*) FROM samples")), 3);
  EXPECT_EQ(std::get<double>(cell(store, "SELECT time_s FROM samples WHERE sample_index = 1")),
            1.8e-3);
  EXPECT_EQ(std::get<double>(cell(store, "SELECT predicted_tflops FROM v_measurements")),
            testing::sample_prediction().tflops);
  EXPECT_EQ(store.list_runs()->front().measurements, 1);
}

// bench --ab: each sample with its round; the report's rows carry the rounds' medians; a pair
// recorded together, all or nothing.
TEST(RecordMeasurement, SamplesTakenInRoundsKeepTheirRound) {
  Store store = memory_store();
  const auto run = store.begin_run(testing::run_info(RunKind::bench, "r"));
  Measurement a = timed();
  a.samples_s = {1e-3, 3e-3, 2e-3, 4e-3, 6e-3};
  a.sample_rounds = {0, 0, 0, 1, 1};
  Measurement b = a;
  b.kernel = "fa3";
  const auto ids = store.record_measurements(*run, std::vector<Measurement>{a, b});
  ASSERT_TRUE(ids.ok()) << ids.error().message;
  ASSERT_EQ(ids->size(), 2u);
  EXPECT_EQ(
      std::get<std::int64_t>(cell(store, "SELECT COUNT(*) FROM samples WHERE round_index = 1")), 4);
  EXPECT_EQ(
      std::get<std::int64_t>(cell(
          store, "SELECT round_index FROM samples WHERE sample_index = 3 AND measurement_id = " +
                     std::to_string((*ids)[1]))),
      1);
  const auto rows = store.measurements_for_report();
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ(rows->front().samples_s, (std::vector<double>{2e-3, 5e-3}));

  // A round missing for a sample: nothing of the pair is recorded.
  Measurement bad = a;
  bad.sample_rounds.pop_back();
  const auto refused = store.record_measurements(*run, std::vector<Measurement>{a, bad});
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error().message, HasSubstr("has 5 samples and 4 rounds"));
  EXPECT_EQ(std::get<std::int64_t>(cell(store, "SELECT COUNT(*) FROM measurements")), 2);
  // A measurement not taken in rounds: NULL rounds, its samples as taken.
  ASSERT_TRUE(store.record_measurement(*run, timed()).ok());
  EXPECT_EQ(
      std::get<std::int64_t>(cell(store, "SELECT COUNT(*) FROM samples WHERE round_index IS NULL")),
      3);
}

TEST(RecordMeasurement, FailedAndSkippedKeepTheReasonAndNoTimes) {
  Store store = memory_store();
  const auto run = store.begin_run(testing::run_info(RunKind::bench, "r"));
  Measurement m = timed();
  m.status = MeasurementStatus::failed;
  m.reason = "O error 1e-1 > tolerance";
  m.samples_s.clear();
  m.sm_clock_mhz = 0;
  ASSERT_TRUE(store.record_measurement(*run, m).ok());
  m.status = MeasurementStatus::skipped;
  m.reason = "headdim 256 unsupported";
  ASSERT_TRUE(store.record_measurement(*run, m).ok());
  EXPECT_EQ(std::get<std::int64_t>(cell(
                store, "SELECT COUNT(*) FROM measurements WHERE time_median_s IS NULL AND "
                       "tflops IS NULL AND sm_clock_mhz IS NULL AND reason IS NOT NULL")),
            2);
}

TEST(RecordMeasurement, ReadsBackItsStatusAndWhoMeasured) {
  Store store = memory_store();
  const auto run = store.begin_run(testing::run_info(RunKind::bench, "r"));
  ASSERT_TRUE(store.record_measurement(*run, timed()).ok());
  Measurement peer = timed();
  peer.source = "peer:torch-cudnn";
  peer.status = MeasurementStatus::skipped;
  peer.reason = "no cuDNN";
  ASSERT_TRUE(store.record_measurement(*run, peer).ok());
  const auto rows = store.measurements_for_report();
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows->size(), 2u);
  const auto ours = rows->at(0).ours() ? rows->at(0) : rows->at(1);
  const auto theirs = rows->at(0).ours() ? rows->at(1) : rows->at(0);
  EXPECT_TRUE(ours.ours());
  EXPECT_TRUE(ours.ok());
  EXPECT_FALSE(theirs.ours());
  EXPECT_FALSE(theirs.ok());
  EXPECT_EQ(theirs.status, MeasurementStatus::skipped);
  EXPECT_EQ(parse_measurement_status("skipped"), MeasurementStatus::skipped);
  EXPECT_EQ(parse_measurement_status("passed"), std::nullopt);
}

TEST(RecordMeasurement, RefusesAnUnknownRunOrAMissingReasonAndWritesNothing) {
  Store store = memory_store();
  const auto missing_run = store.record_measurement(42, timed());
  ASSERT_FALSE(missing_run.ok());
  EXPECT_THAT(missing_run.error().message, HasSubstr("no run 42"));
  const auto run = store.begin_run(testing::run_info(RunKind::bench, "r"));
  Measurement m = timed();
  m.status = MeasurementStatus::skipped;
  const auto no_reason = store.record_measurement(*run, m);
  ASSERT_FALSE(no_reason.ok());
  EXPECT_THAT(no_reason.error().message, HasSubstr("needs a reason"));
  m = timed();
  m.samples_s = {1e-3, -1.0};  // a negative sample breaks the CHECK: nothing of it stays
  EXPECT_FALSE(store.record_measurement(*run, m).ok());
  EXPECT_EQ(std::get<std::int64_t>(cell(store, "SELECT COUNT(*) FROM measurements")), 0);
  EXPECT_EQ(std::get<std::int64_t>(cell(store, "SELECT COUNT(*) FROM samples")), 0);
}

}  // namespace
}  // namespace fa4::store
