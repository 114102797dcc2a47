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
