// Importing runs (idempotent by import_key, all or nothing), recording ceilings, and the latest
// views the report and '--ceilings measured' read.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "store/store.hpp"
#include "test_support.hpp"

namespace fa4::store {
namespace {

using testing::first_integer;
using testing::memory_store;

Measurement peer(const std::string& key, int seqlen, double tflops) {
  Measurement m;
  m.shape = AttnShape{.batch = 1, .heads_q = 16, .heads_kv = 16, .seqlen_q = seqlen,
                      .seqlen_k = seqlen, .headdim = 128, .headdim_v = 128};
  m.kernel = "sdpa_cudnn";
  m.source = "peer:torch-cudnn";
  m.device = "NVIDIA H200";
  m.median_s = m.p25_s = m.p75_s = m.min_s = m.max_s = 1e-3;
  m.tflops = tflops;
  m.samples_s = {1e-3, 1e-3};
  m.import_key = key;
  return m;
}

ImportedRun imported(std::vector<Measurement> measurements) {
  ImportedRun run;
  run.info = testing::run_info(RunKind::import, "abc123");
  run.measurements = std::move(measurements);
  return run;
}

TEST(ImportRuns, AddsEachKeyOnceAndCountsTheRest) {
  Store store = memory_store();
  const std::vector<ImportedRun> file = {
      imported({peer("run1/a", 4096, 600), peer("run1/b", 8192, 610)})};
  const auto first = store.import_runs(file);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(first->runs, 1);
  EXPECT_EQ(first->added, 2);
  EXPECT_EQ(first->already_present, 0);
  const auto again = store.import_runs(file);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->runs, 0);
  EXPECT_EQ(again->added, 0);
  EXPECT_EQ(again->already_present, 2);
  EXPECT_EQ(first_integer(store, "SELECT COUNT(*) FROM measurements"), 2);
  EXPECT_EQ(first_integer(store, "SELECT COUNT(*) FROM runs WHERE kind = 'import'"), 1);
  EXPECT_EQ(first_integer(store, "SELECT COUNT(*) FROM samples"), 4);
}

TEST(ImportRuns, OneBadMeasurementLoadsNothing) {
  Store store = memory_store();
  Measurement bad = peer("run1/c", 1024, 1);
  bad.status = MeasurementStatus::failed;  // a failed measurement needs a reason
  const auto result = store.import_runs({imported({peer("run1/a", 4096, 600)}),
                                         imported({bad})});
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.error().message, ::testing::HasSubstr("needs a reason"));
  EXPECT_EQ(first_integer(store, "SELECT COUNT(*) FROM measurements"), 0);
  EXPECT_EQ(first_integer(store, "SELECT COUNT(*) FROM runs"), 0);
}

TEST(MeasurementsForReport, KeepsTheLatestOfEachProblem) {
  Store store = memory_store();
  ASSERT_TRUE(store.import_runs({imported({peer("r1/a", 4096, 500)})}).ok());
  Measurement b = peer("r2/b", 8192, 600);
  b.samples_s = {1.2e-3, 0.9e-3, 1.1e-3};
  ASSERT_TRUE(store.import_runs({imported({peer("r2/a", 4096, 590), b})}).ok());
  const auto rows = store.measurements_for_report();
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ(rows->at(0).shape.seqlen_q, 4096);
  EXPECT_DOUBLE_EQ(rows->at(0).tflops, 590);
  EXPECT_EQ(rows->at(0).source, "peer:torch-cudnn");
  EXPECT_EQ(rows->at(1).shape.seqlen_q, 8192);
  // Each row carries its own samples, in the order taken (the report checks them for drift).
  EXPECT_EQ(rows->at(0).samples_s, (std::vector<double>{1e-3, 1e-3}));
  EXPECT_EQ(rows->at(1).samples_s, (std::vector<double>{1.2e-3, 0.9e-3, 1.1e-3}));
}

Ceiling ceiling(const std::string& unit, double value) {
  return Ceiling{.device = "NVIDIA H200", .unit = unit, .value = value, .value_unit = "TFLOP/s",
                 .per_sm_per_clk = 2048, .sm_clock_mhz = 1980, .median_s = 1e-3,
                 .samples_s = {1e-3, 1.1e-3, 0.9e-3}, .method = "probe"};
}

TEST(RecordCeilings, TheLatestOfEachUnitWins) {
  Store store = memory_store();
  const auto one = store.begin_run(testing::run_info(RunKind::ceilings, "r1"));
  ASSERT_TRUE(store.record_ceilings(*one, {ceiling("wgmma_bf16", 600), ceiling("fma_fp32", 60)})
                  .ok());
  const auto two = store.begin_run(testing::run_info(RunKind::ceilings, "r2"));
  ASSERT_TRUE(store.record_ceilings(*two, {ceiling("wgmma_bf16", 650)}).ok());
  const auto latest = store.latest_ceilings();
  ASSERT_TRUE(latest.ok()) << latest.error().message;
  ASSERT_EQ(latest->size(), 2u);
  EXPECT_EQ(latest->at(0).ceiling.unit, "fma_fp32");
  EXPECT_EQ(latest->at(1).ceiling.unit, "wgmma_bf16");
  EXPECT_DOUBLE_EQ(latest->at(1).ceiling.value, 650);
  EXPECT_EQ(latest->at(1).run_id, *two);
  EXPECT_EQ(first_integer(store, "SELECT COUNT(*) FROM ceiling_samples"), 9);
  EXPECT_EQ(first_integer(store, "SELECT ceilings FROM v_runs WHERE id = 1"), 2);
}

TEST(RecordCeilings, ANonPositiveValueRecordsNone) {
  Store store = memory_store();
  const auto run = store.begin_run(testing::run_info(RunKind::ceilings, "r1"));
  const Status done = store.record_ceilings(*run, {ceiling("fma_fp32", 60), ceiling("smem", 0)});
  ASSERT_FALSE(done.ok());
  EXPECT_THAT(done.error().message, ::testing::HasSubstr("smem"));
  EXPECT_EQ(first_integer(store, "SELECT COUNT(*) FROM ceilings"), 0);
}

}  // namespace
}  // namespace fa4::store
