// Recording runs, predictions and published figures, and reading them back.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <regex>

#include "store/store.hpp"
#include "test_support.hpp"

namespace fa4::store {
namespace {

using testing::memory_store;

using ::testing::HasSubstr;
using testing::raw_exec;
using testing::raw_open;
using testing::sample_prediction;
using testing::TempDir;

std::int64_t count(const Store& store, const std::string& table) {
  return std::get<std::int64_t>(store.query("SELECT COUNT(*) FROM " + table)->rows.at(0).at(0));
}

// The one row of `sql` as column name -> value.
std::map<std::string, Value> single_row(const Store& store, const std::string& sql) {
  auto table = store.query(sql);
  EXPECT_TRUE(table.ok()) << table.error().message;
  EXPECT_EQ(table->rows.size(), 1u);
  std::map<std::string, Value> row;
  for (std::size_t c = 0; c < table->columns.size(); ++c)
    row[table->columns[c]] = table->rows.at(0)[c];
  return row;
}

TEST(StoreRecord, BeginRunStampsUtcTimeAndKeepsEveryField) {
  Store store = memory_store();
  auto id = store.begin_run({.kind = RunKind::bench,
                             .revision = "v0.1-3-gabc",
                             .host = "lab1",
                             .command_line = "fa4-analyze bench --kernel fa3",
                             .device = "NVIDIA H200",
                             .driver = "570.86",
                             .cuda_version = "12.8",
                             .notes = "first light"});
  ASSERT_TRUE(id.ok()) << id.error().message;
  auto runs = store.list_runs();
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1u);
  const RunRow& run = runs->front();
  EXPECT_EQ(run.id, *id);
  EXPECT_TRUE(std::regex_match(run.started_at, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")))
      << run.started_at;
  EXPECT_EQ(run.kind, "bench");
  EXPECT_EQ(run.revision, "v0.1-3-gabc");
  EXPECT_EQ(run.host, "lab1");
  EXPECT_EQ(run.command_line, "fa4-analyze bench --kernel fa3");
  EXPECT_EQ(run.device, "NVIDIA H200");
  EXPECT_EQ(run.driver, "570.86");
  EXPECT_EQ(run.cuda_version, "12.8");
  EXPECT_EQ(run.notes, "first light");
  EXPECT_EQ(run.predictions, 0);
  EXPECT_EQ(run.measurements, 0);
}

TEST(StoreRecord, EmptyOptionalRunFieldsAreNull) {
  Store store = memory_store();
  ASSERT_TRUE(store.begin_run(testing::run_info(RunKind::predict, "r")).ok());
  auto row = single_row(store, "SELECT kind, device, driver, cuda_version, notes FROM runs");
  EXPECT_EQ(std::get<std::string>(row["kind"]), "predict");
  for (const char* column : {"device", "driver", "cuda_version", "notes"})
    EXPECT_TRUE(std::holds_alternative<std::monostate>(row[column])) << column;
}

TEST(StoreRecord, ARerunIsANewRun) {
  Store store = memory_store();
  const std::vector<model::Prediction> predictions = {sample_prediction()};
  auto first = store.begin_run({});
  ASSERT_TRUE(first.ok() && store.record_predictions(*first, predictions).ok());
  auto second = store.begin_run({});
  ASSERT_TRUE(second.ok() && store.record_predictions(*second, predictions).ok());
  EXPECT_GT(*second, *first);
  EXPECT_EQ(count(store, "predictions"), 2);
  auto runs = store.list_runs();
  ASSERT_EQ(runs->size(), 2u);
  EXPECT_EQ((*runs)[0].predictions, 1);
  EXPECT_EQ((*runs)[1].predictions, 1);
}

TEST(StoreRecord, RecordPredictionsReturnsTheIdsInTheOrderGiven) {
  Store store = memory_store();
  model::Prediction later = sample_prediction();
  later.shape.seqlen_k *= 2;
  auto run = store.begin_run({});
  ASSERT_TRUE(run.ok());
  ASSERT_TRUE(store.record_predictions(*run, {sample_prediction()}).ok());
  auto ids = store.record_predictions(*run, {sample_prediction(), later});
  ASSERT_TRUE(ids.ok()) << ids.error().message;
  ASSERT_EQ(ids->size(), 2u);
  for (std::size_t i = 0; i < ids->size(); ++i) {
    auto row = single_row(store, fmt::format("SELECT seqlen_k, (SELECT COUNT(*) FROM "
                                             "prediction_factors WHERE prediction_id = {0}) AS "
                                             "factors FROM predictions WHERE id = {0}",
                                             (*ids)[i]));
    EXPECT_EQ(std::get<std::int64_t>(row["seqlen_k"]),
              i == 0 ? sample_prediction().shape.seqlen_k : later.shape.seqlen_k);
    EXPECT_EQ(std::get<std::int64_t>(row["factors"]),
              std::int64_t(sample_prediction().factors.size()));
  }
  EXPECT_EQ(count(store, "predictions"), 3);
}

// Inf or NaN would be stored (NaN as NULL) and printed by every report after: refused, with
// nothing of the batch recorded.
TEST(StoreRecord, ANonFinitePredictionIsRefusedAndNothingOfItsBatchRecorded) {
  Store store = memory_store();
  auto run = store.begin_run({});
  ASSERT_TRUE(run.ok());
  for (const auto& [time_s, tflops] :
       {std::pair{std::numeric_limits<double>::infinity(), 0.0},
        std::pair{std::numeric_limits<double>::quiet_NaN(), 1.0}, std::pair{1e-3, 0.0}}) {
    model::Prediction bad = sample_prediction();
    bad.time_s = time_s;
    bad.tflops = tflops;
    const auto ids = store.record_predictions(*run, {sample_prediction(), bad});
    ASSERT_FALSE(ids.ok());
    EXPECT_NE(ids.error().message.find("prediction 2 (fa3 bwd"), std::string::npos)
        << ids.error().message;
    EXPECT_NE(ids.error().message.find("not a finite positive time"), std::string::npos)
        << ids.error().message;
  }
  EXPECT_EQ(count(store, "predictions"), 0);
}

TEST(StoreRecord, APredictionRoundTripsEveryField) {
  Store store = memory_store();
  model::Prediction p = sample_prediction();
  p.shape.window = 512;
  p.shape.page_size = 64;
  p.shape.seqlens_k = {3072, 0};
  p.shape.splits = 3;
  auto run = store.begin_run({});
  ASSERT_TRUE(run.ok());
  auto recorded = store.record_predictions(*run, {p});
  ASSERT_TRUE(recorded.ok()) << recorded.error().message;

  auto row = single_row(store, "SELECT * FROM predictions");
  const auto integer = [&](const char* column) { return std::get<std::int64_t>(row.at(column)); };
  const auto real = [&](const char* column) { return std::get<double>(row.at(column)); };
  const auto text = [&](const char* column) { return std::get<std::string>(row.at(column)); };
  EXPECT_EQ(integer("run_id"), *run);
  EXPECT_EQ(integer("batch"), 2);
  EXPECT_EQ(integer("heads_q"), 32);
  EXPECT_EQ(integer("heads_kv"), 8);
  EXPECT_EQ(integer("seqlen_q"), 1024);
  EXPECT_EQ(integer("seqlen_k"), 3072);
  EXPECT_EQ(integer("headdim"), 128);
  EXPECT_EQ(integer("headdim_v"), 64);
  EXPECT_EQ(integer("causal"), 1);
  EXPECT_EQ(integer("sliding_window"), 512);
  EXPECT_EQ(integer("page_size"), 64);
  EXPECT_EQ(text("seqlens_k"), "3072,0");
  EXPECT_EQ(integer("splits"), 3);
  EXPECT_EQ(text("dtype"), "fp16");
  EXPECT_EQ(text("pass"), "bwd");
  EXPECT_EQ(text("gpu"), "b200");
  EXPECT_EQ(text("algorithm"), "fa3");
  EXPECT_EQ(integer("tile_m"), 192);
  EXPECT_EQ(integer("tile_n"), 96);
  EXPECT_EQ(real("exp_emulation"), 0.125);
  EXPECT_EQ(integer("conditional_rescale"), 1);
  EXPECT_EQ(integer("two_cta"), 1);
  EXPECT_EQ(real("cycles_mma"), 1.5);
  EXPECT_EQ(real("cycles_exp_mufu"), 2.5);
  EXPECT_EQ(real("cycles_exp_fma"), 3.5);
  EXPECT_EQ(real("cycles_fma"), 4.5);
  EXPECT_EQ(real("cycles_smem"), 5.5);
  EXPECT_EQ(real("cycles_tmem"), 6.5);
  EXPECT_EQ(real("tile_tmem_bytes"), 7.5);
  EXPECT_EQ(real("cycles_hbm"), 8.5);
  EXPECT_EQ(text("tile_bottleneck"), "smem");
  EXPECT_EQ(real("tile_time_cycles"), 9.5);
  EXPECT_EQ(real("tensor_stream_cycles"), 10.5);
  EXPECT_EQ(real("softmax_stream_cycles"), 11.5);
  EXPECT_EQ(real("ctas"), 12.5);
  EXPECT_EQ(real("tiles"), 13.5);
  EXPECT_EQ(real("waves"), 14.5);
  EXPECT_EQ(real("time_s"), 15.5e-3);
  EXPECT_EQ(real("flops"), 16.5e12);
  EXPECT_EQ(real("tflops"), 17.5);
  EXPECT_EQ(real("fraction_of_peak"), 0.185);
  EXPECT_EQ(text("bottleneck"), "hbm");
  EXPECT_EQ(text("model_version"), "test-7");
  EXPECT_EQ(row.size(), 44u) << "a new column needs a line in this test";

  auto factors = store.query(
      "SELECT position, name, value, meaning, fitted_to FROM prediction_factors ORDER BY "
      "position");
  ASSERT_TRUE(factors.ok());
  ASSERT_EQ(factors->rows.size(), 2u);
  EXPECT_EQ(std::get<std::string>(factors->rows[0][1]), "overlap");
  EXPECT_EQ(std::get<double>(factors->rows[0][2]), 0.75);
  EXPECT_EQ(std::get<std::string>(factors->rows[0][3]), "share of the shorter stream hidden");
  EXPECT_EQ(std::get<std::string>(factors->rows[0][4]), "H200 hd128 8k");
  EXPECT_EQ(std::get<std::int64_t>(factors->rows[1][0]), 1);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(factors->rows[1][4]));  // derived, not fitted
}

TEST(StoreRecord, ReportRowsCarryThePrediction) {
  Store store = memory_store();
  const model::Prediction p = sample_prediction();
  auto run = store.begin_run(testing::run_info(RunKind::predict, "rev1"));
  ASSERT_TRUE(run.ok() && store.record_predictions(*run, {p}).ok());
  auto rows = store.predictions_for_report();
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows->size(), 1u);
  const ReportRow& r = rows->front();
  EXPECT_EQ(r.run_id, *run);
  EXPECT_EQ(r.revision, "rev1");
  EXPECT_FALSE(r.started_at.empty());
  EXPECT_EQ(r.gpu, "b200");
  EXPECT_EQ(r.algorithm, model::Algorithm::fa3);
  EXPECT_EQ(r.pass, Pass::bwd);
  EXPECT_EQ(r.shape, p.shape);
  EXPECT_EQ(r.tile, p.tile);
  EXPECT_EQ(r.exp_emulation, 0.125);
  EXPECT_TRUE(r.conditional_rescale);
  EXPECT_TRUE(r.two_cta);
  EXPECT_EQ(r.cycles.mma, 1.5);
  EXPECT_EQ(r.cycles.exp_mufu, 2.5);
  EXPECT_EQ(r.cycles.exp_fma, 3.5);
  EXPECT_EQ(r.cycles.fma, 4.5);
  EXPECT_EQ(r.cycles.smem, 5.5);
  EXPECT_EQ(r.cycles.tmem, 6.5);
  EXPECT_EQ(r.cycles.hbm, 8.5);
  EXPECT_EQ(r.tile_bottleneck, "smem");
  EXPECT_EQ(r.tile_time_cycles, 9.5);
  EXPECT_EQ(r.time_s, 15.5e-3);
  EXPECT_EQ(r.flops, 16.5e12);
  EXPECT_EQ(r.tflops, 17.5);
  EXPECT_EQ(r.fraction_of_peak, 0.185);
  EXPECT_EQ(r.bottleneck, "hbm");
  EXPECT_EQ(r.model_version, "test-7");
}

TEST(StoreRecord, TheReportTakesTheLatestRunOfEachProblem) {
  Store store = memory_store();
  model::Prediction a = sample_prediction();
  model::Prediction b = sample_prediction();
  b.shape.seqlen_k = 8192;
  model::Prediction a_other_tile = a;
  a_other_tile.tile = {.m = 128, .n = 128};
  auto old_run = store.begin_run({});
  ASSERT_TRUE(store.record_predictions(*old_run, {a, b}).ok());
  auto new_run = store.begin_run({});
  a.tflops = a_other_tile.tflops = 99.0;
  ASSERT_TRUE(store.record_predictions(*new_run, {a, a_other_tile}).ok());

  auto rows = store.predictions_for_report();
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows->size(), 3u);
  // Ordered by seqlen_k within the problem: a's two tiles from the new run, then b.
  EXPECT_EQ((*rows)[0].run_id, *new_run);
  EXPECT_EQ((*rows)[0].tile.m, 192);
  EXPECT_EQ((*rows)[1].run_id, *new_run);
  EXPECT_EQ((*rows)[1].tile.m, 128);
  EXPECT_EQ((*rows)[0].tflops, 99.0);
  EXPECT_EQ((*rows)[2].run_id, *old_run);
  EXPECT_EQ((*rows)[2].shape.seqlen_k, 8192);
}

TEST(StoreRecord, ABatchIsAllOrNothing) {
  Store store = memory_store();
  auto run = store.begin_run({});
  ASSERT_TRUE(run.ok());
  model::Prediction nan = sample_prediction();
  nan.time_s = std::numeric_limits<double>::quiet_NaN();
  auto failed = store.record_predictions(*run, {sample_prediction(), nan, sample_prediction()});
  ASSERT_FALSE(failed.ok());
  EXPECT_THAT(failed.error().message, HasSubstr("recorded none of the 3 predictions"));
  EXPECT_THAT(failed.error().message, HasSubstr("prediction 2 (fa3 bwd"));
  EXPECT_THAT(failed.error().message, HasSubstr("not a finite positive time"));
  EXPECT_THAT(failed.error().message, HasSubstr("NaN"));
  EXPECT_EQ(count(store, "predictions"), 0);
  EXPECT_EQ(count(store, "prediction_factors"), 0);

  model::Prediction negative = sample_prediction();
  negative.tile_cycles.mma = -1;
  failed = store.record_predictions(*run, {sample_prediction(), negative});
  ASSERT_FALSE(failed.ok());
  EXPECT_THAT(failed.error().message, HasSubstr("CHECK constraint failed"));
  EXPECT_EQ(count(store, "predictions"), 0);
  EXPECT_EQ(count(store, "prediction_factors"), 0);

  EXPECT_TRUE(store.record_predictions(*run, {sample_prediction()}).ok());
  EXPECT_EQ(count(store, "predictions"), 1);
}

TEST(StoreRecord, APredictionRunIsRecordedWholeOrNotAtAll) {
  Store store = memory_store();
  model::Prediction nan = sample_prediction();
  nan.time_s = std::numeric_limits<double>::quiet_NaN();
  const RunInfo info = testing::run_info(RunKind::predict, "r");
  auto failed = store.record_prediction_run(info, {sample_prediction(), nan});
  ASSERT_FALSE(failed.ok());
  EXPECT_THAT(failed.error().message, HasSubstr("recorded none of the 2 predictions"));
  EXPECT_EQ(count(store, "runs"), 0);  // no run without its predictions
  EXPECT_EQ(count(store, "predictions"), 0);
  auto run = store.record_prediction_run(info, {sample_prediction(), sample_prediction()});
  ASSERT_TRUE(run.ok()) << run.error().message;
  EXPECT_EQ(count(store, "runs"), 1);
  EXPECT_EQ(count(store, "predictions"), 2);
}

TEST(StoreRecord, ARunWrittenInBatchesIsKeptOnlyWhenCommitted) {
  Store store = memory_store();
  const RunInfo info = testing::run_info(RunKind::predict, "r");
  {
    auto abandoned = store.begin_prediction_run(info);
    ASSERT_TRUE(abandoned.ok()) << abandoned.error().message;
    const std::vector<model::Prediction> batch{sample_prediction(), sample_prediction()};
    ASSERT_TRUE(abandoned->add(batch).ok());
    EXPECT_EQ(abandoned->recorded(), 2u);
  }  // destroyed uncommitted: rolled back
  EXPECT_EQ(count(store, "runs"), 0);
  EXPECT_EQ(count(store, "predictions"), 0);
  auto writer = store.begin_prediction_run(info);
  ASSERT_TRUE(writer.ok()) << writer.error().message;
  const std::vector<model::Prediction> batch{sample_prediction(), sample_prediction()};
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(writer->add(batch).ok());
  auto run = writer->commit();
  ASSERT_TRUE(run.ok()) << run.error().message;
  EXPECT_EQ(count(store, "predictions"), 6);
  EXPECT_EQ(count(store, "prediction_factors"),
            6 * std::int64_t(sample_prediction().factors.size()));
}

TEST(StoreRecord, PredictionsNeedARun) {
  Store store = memory_store();
  auto failed = store.record_predictions(42, {sample_prediction()});
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().message, ":memory: has no run 42: start one with begin_run first");
}

// The same problem with a sliding window is another figure, replaced in its turn.
TEST(StoreRecord, ASlidingWindowMakesAnotherPublishedFigure) {
  Store store = memory_store();
  PublishedFigure figure{.source = "cudnn-frontend",
                         .citation = "gpt-oss CSV",
                         .gpu = "gb200",
                         .kernel = "cudnn",
                         .shape = sample_prediction().shape,
                         .pass = Pass::fwd,
                         .tflops = 600,
                         .notes = ""};
  PublishedFigure windowed = figure;
  windowed.shape.window = 1024;
  ASSERT_TRUE(store.record_published({figure, windowed}).ok());
  EXPECT_EQ(count(store, "published"), 2);
  windowed.tflops = 650;
  ASSERT_TRUE(store.record_published({windowed}).ok());
  EXPECT_EQ(count(store, "published"), 2);
  auto row =
      single_row(store, "SELECT tflops, sliding_window FROM published WHERE sliding_window > 0");
  EXPECT_EQ(std::get<double>(row["tflops"]), 650.0);
  EXPECT_EQ(std::get<std::int64_t>(row["sliding_window"]), 1024);
}

TEST(StoreRecord, PublishedFiguresAreReplacedNotDuplicated) {
  Store store = memory_store();
  PublishedFigure figure{.source = "fa4-paper",
                         .citation = "Figure 5",
                         .gpu = "b200",
                         .kernel = "fa4",
                         .shape = sample_prediction().shape,
                         .pass = Pass::fwd,
                         .tflops = 1200,
                         .notes = "read off the plot"};
  ASSERT_TRUE(store.record_published({figure}).ok());
  figure.tflops = 1250;
  figure.citation = "Figure 5 (v2)";
  ASSERT_TRUE(store.record_published({figure}).ok());
  EXPECT_EQ(count(store, "published"), 1);
  auto row = single_row(store, "SELECT * FROM published");
  EXPECT_EQ(std::get<double>(row["tflops"]), 1250.0);
  EXPECT_EQ(std::get<std::string>(row["citation"]), "Figure 5 (v2)");
  EXPECT_EQ(std::get<std::string>(row["notes"]), "read off the plot");
  EXPECT_EQ(std::get<std::int64_t>(row["seqlen_k"]), 3072);
  EXPECT_EQ(std::get<std::string>(row["dtype"]), "fp16");

  PublishedFigure backward = figure;
  backward.pass = Pass::bwd;
  PublishedFigure zero = figure;
  zero.kernel = "fa3";
  zero.tflops = 0;
  auto failed = store.record_published({backward, zero});
  ASSERT_FALSE(failed.ok());
  EXPECT_THAT(failed.error().message, HasSubstr("recorded none of the 2 published figures"));
  EXPECT_EQ(count(store, "published"), 1);
  ASSERT_TRUE(store.record_published({backward}).ok());
  EXPECT_EQ(count(store, "published"), 2);
}

TEST(StoreSchema, MeasurementsKeepTheirStatusHonest) {
  TempDir dir;
  const std::string path = dir.file("results.db");
  std::int64_t run = 0;
  {
    auto store = Store::open(path);
    ASSERT_TRUE(store.ok());
    run = *store->begin_run(testing::run_info(RunKind::bench, "r"));
  }
  Db db = raw_open(path);
  raw_exec(db.get(), "PRAGMA foreign_keys = ON");
  const std::string insert =
      "INSERT INTO measurements (run_id, batch, heads_q, heads_kv, seqlen_q, seqlen_k, headdim, "
      "headdim_v, causal, dtype, pass, kernel, source, device, status, reason, time_median_s, "
      "tflops) VALUES (" +
      std::to_string(run) +
      ", 1, 16, 16, 4096, 4096, 128, 128, 0, 'bf16', 'fwd', 'fa3', 'ours', "
      "'NVIDIA H200', ";
  EXPECT_FALSE(exec(db.get(), insert + "'ok', NULL, NULL, NULL)").ok());      // ok needs a time
  EXPECT_FALSE(exec(db.get(), insert + "'failed', NULL, NULL, NULL)").ok());  // and failed a why
  EXPECT_FALSE(exec(db.get(), insert + "'passed', NULL, 0.001, 500)").ok());  // no such status
  raw_exec(db.get(), insert + "'skipped', 'needs sm_90a', NULL, NULL)");
  raw_exec(db.get(), insert + "'ok', NULL, 0.001, 500)");
  raw_exec(db.get(),
           "INSERT INTO samples (measurement_id, sample_index, time_s) VALUES "
           "(last_insert_rowid(), 0, 0.0011), (last_insert_rowid(), 1, 0.0009)");

  auto store = Store::open(path);
  ASSERT_TRUE(store.ok());
  EXPECT_EQ(store->list_runs()->front().measurements, 2);
  EXPECT_EQ(count(*store, "samples"), 2);
  raw_exec(db.get(), "DELETE FROM runs");
  EXPECT_EQ(count(*store, "samples"), 0);  // a run takes its measurements and samples with it
}

}  // namespace
}  // namespace fa4::store
