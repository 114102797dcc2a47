// The serving fields (page size, a ragged batch's key counts, the split count) in the store:
// every table that holds a problem keeps them, a paged or ragged shape is a problem of its own,
// and databases of the schema before them open, migrated, with every row as it was.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <vector>

#include "store/migrations.hpp"
#include "store/peer_records.hpp"
#include "store/store.hpp"
#include "test_support.hpp"

namespace fa4::store {
namespace {

using testing::first_cell;
using testing::first_integer;
using testing::memory_store;
using testing::raw_open_at_version;

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::raw_exec;
using testing::raw_open;
using testing::sample_prediction;
using testing::TempDir;

// Decode on a paged cache, a ragged batch of four (one empty), four splits forced.
AttnShape serving_shape() {
  return {.batch = 4,
          .heads_q = 32,
          .heads_kv = 8,
          .seqlen_q = 1,
          .seqlen_k = 8192,
          .headdim = 128,
          .headdim_v = 128,
          .page_size = 16,
          .seqlens_k = {8192, 100, 0, 4097},
          .splits = 4};
}

Measurement measured(const AttnShape& shape) {
  Measurement m;
  m.shape = shape;
  m.kernel = "fa3_decode";
  m.device = "NVIDIA H200";
  m.median_s = m.p25_s = m.p75_s = m.min_s = m.max_s = 1e-4;
  m.tflops = 1;
  m.samples_s = {1e-4};
  return m;
}

TEST(StoreServing, APredictionKeepsPagesRaggedKeysAndSplits) {
  Store store = memory_store();
  model::Prediction p = sample_prediction();
  p.shape = serving_shape();
  auto run = store.begin_run(testing::run_info(RunKind::predict, "rev"));
  ASSERT_TRUE(run.ok());
  ASSERT_TRUE(store.record_predictions(*run, {p}).ok());
  EXPECT_EQ(std::get<std::string>(first_cell(store, "SELECT seqlens_k FROM predictions")),
            "8192,100,0,4097");
  EXPECT_EQ(first_integer(store, "SELECT page_size * 100 + splits FROM v_latest_predictions"),
            1604);
  auto rows = store.predictions_for_report();
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ(rows->front().shape, serving_shape());
}

TEST(StoreServing, AMeasurementKeepsThemForTheReportAndForResume) {
  Store store = memory_store();
  auto run = store.begin_run(testing::run_info(RunKind::bench, "rev"));
  ASSERT_TRUE(run.ok());
  ASSERT_TRUE(store.record_measurement(*run, measured(serving_shape())).ok());
  auto rows = store.measurements_for_report();
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ(rows->front().shape, serving_shape());
  auto done = store.measured_configurations("NVIDIA H200", "ours");
  ASSERT_TRUE(done.ok()) << done.error().message;
  ASSERT_EQ(done->size(), 1u);
  EXPECT_EQ(done->front().shape, serving_shape());
}

// The latest-row views tell a paged shape from the contiguous one, two ragged batches with other
// counts apart, and a forced split count from the heuristic's: each is its own problem.
TEST(StoreServing, EachServingFieldMakesAnotherProblem) {
  Store store = memory_store();
  const AttnShape contiguous = {.batch = 4,
                                .heads_q = 32,
                                .heads_kv = 8,
                                .seqlen_q = 1,
                                .seqlen_k = 8192,
                                .headdim = 128,
                                .headdim_v = 128};
  AttnShape paged = contiguous, ragged = contiguous, other_ragged = contiguous, split = contiguous;
  paged.page_size = 16;
  ragged.seqlens_k = {8192, 100, 100, 8192};
  other_ragged.seqlens_k = {100, 8192, 8192, 100};  // the same range and sum
  split.splits = 8;
  auto run = store.begin_run(testing::run_info(RunKind::bench, "rev"));
  ASSERT_TRUE(run.ok());
  std::vector<model::Prediction> predictions;
  for (const AttnShape& shape : {contiguous, paged, ragged, other_ragged, split}) {
    ASSERT_TRUE(store.record_measurement(*run, measured(shape)).ok());
    predictions.push_back(sample_prediction());
    predictions.back().shape = shape;
  }
  ASSERT_TRUE(store.record_predictions(*run, predictions).ok());
  EXPECT_EQ(first_integer(store, "SELECT COUNT(*) FROM v_latest_measurements"), 5);
  EXPECT_EQ(first_integer(store, "SELECT COUNT(*) FROM v_latest_predictions"), 5);
  auto rows = store.measurements_for_report();
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  EXPECT_EQ(rows->size(), 5u);
}

TEST(StoreServing, APagedPublishedFigureIsAnotherFigure) {
  Store store = memory_store();
  PublishedFigure contiguous{.source = "cudnn-frontend",
                             .citation = "decode sweep",
                             .gpu = "h200",
                             .kernel = "cudnn",
                             .shape = serving_shape(),
                             .pass = Pass::fwd,
                             .tflops = 17,
                             .notes = ""};
  contiguous.shape.page_size = 0;
  PublishedFigure paged = contiguous;
  paged.shape.page_size = 16;
  ASSERT_TRUE(store.record_published({contiguous, paged}).ok());
  paged.tflops = 18;
  ASSERT_TRUE(store.record_published({paged}).ok());
  EXPECT_EQ(first_integer(store, "SELECT COUNT(*) FROM published"), 2);
  EXPECT_EQ(
      std::get<double>(first_cell(store, "SELECT tflops FROM published WHERE page_size = 16")),
      18.0);
}

// A version-4 database (before the serving fields): every row keeps its fields and gets a
// contiguous, uniform, unsplit problem; the rebuilt published table keeps its figures.
TEST(StoreServing, MigratesAVersionFourDatabase) {
  TempDir dir;
  const std::string path = dir.file("v4.db");
  {
    Db db = raw_open_at_version(path, 4);
    raw_exec(db.get(), R"sql(
      INSERT INTO runs (revision, host, command_line, kind) VALUES ('v4', 'h', 'bench', 'bench');
      INSERT INTO measurements (run_id, batch, heads_q, heads_kv, seqlen_q, seqlen_k, headdim,
        headdim_v, causal, dtype, pass, kernel, source, device, status, time_median_s, tflops,
        sliding_window)
        VALUES (1, 8, 32, 8, 1, 32768, 128, 128, 1, 'bf16', 'fwd', 'fa3', 'ours', 'NVIDIA H200',
        'ok', 7.47e-4, 5.7, 0);
      INSERT INTO published (source, citation, gpu, kernel, batch, heads_q, heads_kv, seqlen_q,
        seqlen_k, headdim, headdim_v, causal, dtype, pass, tflops, notes, sliding_window)
        VALUES ('fa4-paper', 'Figure 5', 'b200', 'fa4', 1, 16, 16, 4096, 4096, 128, 128, 1,
        'bf16', 'fwd', 1200, 'n', 1024);
    )sql");
  }
  auto store = Store::open(path);
  ASSERT_TRUE(store.ok()) << store.error().message;
  EXPECT_EQ(first_integer(*store, "SELECT MAX(version) FROM schema_version"),
            latest_schema_version());
  EXPECT_EQ(first_integer(*store,
                          "SELECT COUNT(*) FROM v_latest_measurements WHERE page_size = 0 AND "
                          "seqlens_k = '' AND splits = 0 AND tflops = 5.7 AND seqlen_k = 32768"),
            1);
  EXPECT_EQ(
      first_integer(*store,
                    "SELECT COUNT(*) FROM published WHERE tflops = 1200 AND notes = 'n' AND "
                    "sliding_window = 1024 AND page_size = 0 AND seqlens_k = '' AND splits = 0"),
      1);
  auto rows = store->measurements_for_report();
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ(rows->front().shape.page_size, 0);
  EXPECT_TRUE(rows->front().shape.seqlens_k.empty());
}

// The shipped reference records (data/runs, schema 4) and the real runs kept as fixtures
// (tests/data/runs, schema 3 and 4), each copied first: every one opens, and its predictions and
// measurements read back contiguous and uniform.
TEST(StoreServing, EveryShippedRunOpensMigrated) {
  TempDir dir;
  int opened = 0;
  std::vector<fs::path> files;
  for (const char* folder : {"data/runs", "tests/data/runs"})
    for (const auto& entry : fs::directory_iterator(fs::path(FA4_SOURCE_DIR) / folder))
      if (entry.path().extension() == ".db") files.push_back(entry.path());
  for (const fs::path& file : files) {
    const std::string copy =
        dir.file(file.parent_path().filename().string() + "-" + file.filename().string());
    const auto& entry = file;
    fs::copy_file(entry, copy);
    auto store = Store::open(copy, {.create = false, .read_only = true});
    ASSERT_TRUE(store.ok()) << store.error().message;
    EXPECT_EQ(first_integer(*store, "SELECT MAX(version) FROM schema_version"),
              latest_schema_version());
    auto measurements = store->measurements_for_report();
    ASSERT_TRUE(measurements.ok()) << copy << ": " << measurements.error().message;
    auto predictions = store->predictions_for_report();
    ASSERT_TRUE(predictions.ok()) << copy << ": " << predictions.error().message;
    EXPECT_GT(measurements->size() + predictions->size(), 0u) << copy;
    for (const MeasurementRow& row : *measurements)
      EXPECT_TRUE(row.shape.page_size == 0 && row.shape.seqlens_k.empty() && row.shape.splits == 0)
          << copy;
    ++opened;
  }
  EXPECT_EQ(opened, 15);  // 2 records, 13 fixtures
}

// The schema's own checks, behind validate(): no negative page size, no key list but digits and
// commas (what read_problem can read back).
TEST(StoreServing, TheSchemaRefusesANegativePageSizeOrAKeyListOfOtherCharacters) {
  TempDir dir;
  const std::string path = dir.file("r.db");
  {
    Store store = std::move(Store::open(path)).value();
    auto run = store.begin_run(testing::run_info(RunKind::bench, "rev"));
    ASSERT_TRUE(run.ok());
    Measurement m = measured(serving_shape());
    m.shape.page_size = -1;
    auto refused = store.record_measurement(*run, m);
    ASSERT_FALSE(refused.ok());
    EXPECT_THAT(refused.error().message, HasSubstr("CHECK constraint failed"));
  }
  Db db = raw_open(path);
  EXPECT_THROW(raw_exec(db.get(),
                        "INSERT INTO measurements (run_id, batch, heads_q, heads_kv, seqlen_q, "
                        "seqlen_k, headdim, headdim_v, causal, dtype, pass, kernel, source, "
                        "device, status, reason, seqlens_k) VALUES (1, 2, 8, 8, 1, 64, 64, 64, 0, "
                        "'bf16', 'fwd', 'k', 'ours', 'd', 'skipped', 'r', '64, 1')"),
               std::exception);
  auto count = Statement::prepare(db.get(), "SELECT COUNT(*) FROM measurements");
  ASSERT_TRUE(count.ok() && *count->step());
  EXPECT_EQ(count->column_int(0), 0);
}

Result<std::vector<ImportedRun>> peer_line(const std::string& shape_fields) {
  std::istringstream in(
      R"({"schema": "fa4-peer/1", "run": "r1", "source": "peer:torch-cudnn", "kernel": )"
      R"("sdpa_cudnn", "device": "NVIDIA H200", "pass": "fwd", "status": "skipped", "reason": )"
      R"("no paged backend", "shape": {"batch": 2, "heads_q": 32, "heads_kv": 8, "seqlen_q": 1, )"
      R"("seqlen_k": 8192, "headdim": 128, "headdim_v": 128, "causal": false, "dtype": "bf16")" +
      shape_fields + "}}\n");
  return parse_peer_records(in, "peers.jsonl", "fa4-analyze import peers.jsonl", {});
}

TEST(StoreServing, PeerRecordsCarryTheServingFields) {
  auto runs = peer_line(R"(, "page_size": 16, "seqlens_k": [8192, 7], "splits": 0)");
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  const Measurement& m = runs->at(0).measurements.at(0);
  EXPECT_EQ(m.shape.page_size, 16);
  EXPECT_EQ(m.shape.seqlens_k, (std::vector<std::int64_t>{8192, 7}));
  EXPECT_EQ(m.shape.splits, 0);
  EXPECT_THAT(m.import_key, HasSubstr("paged16"));
  EXPECT_THAT(m.import_key, HasSubstr("keys 8192,7"));
  auto plain = peer_line("");
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_EQ(plain->at(0).measurements.at(0).shape.page_size, 0);
}

TEST(StoreServing, PeerRecordsRefuseBadServingFieldsByLine) {
  EXPECT_THAT(peer_line(R"(, "page_size": -16)").error().message,
              HasSubstr("peers.jsonl:1: \"shape\".\"page_size\" must be an integer, 0 or more"));
  EXPECT_THAT(peer_line(R"(, "seqlens_k": [8192, "7"])").error().message,
              HasSubstr("\"seqlens_k\" holds \"7\", not a key count"));
  EXPECT_THAT(peer_line(R"(, "seqlens_k": [8192])").error().message,
              HasSubstr("1 key counts for batch = 2"));
  EXPECT_THAT(peer_line(R"(, "seqlens_k": [8192, 9000])").error().message,
              HasSubstr("each count must be 0 to seqlen-k = 8192"));
  EXPECT_THAT(peer_line(R"(, "page_sizes": 16)").error().message, HasSubstr("page_size"));
}

}  // namespace
}  // namespace fa4::store
