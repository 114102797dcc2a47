// Store::open: new databases, migration, and every refusal leaving the file as it was.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "store/migrations.hpp"
#include "store/store.hpp"
#include "test_support.hpp"

namespace fa4::store {
namespace {

using testing::first_integer;
using ::testing::HasSubstr;
using testing::raw_exec;
using testing::raw_open;
using testing::raw_open_at_version;
using testing::read_bytes;
using testing::TempDir;
using testing::write_bytes;

constexpr OpenOptions kQuick{.create = true, .busy_timeout = std::chrono::milliseconds(50)};

std::string refusal(const std::string& path, const OpenOptions& options = kQuick) {
  auto store = Store::open(path, options);
  EXPECT_FALSE(store.ok()) << path << " was accepted";
  return store.ok() ? "" : store.error().message;
}

TEST(StoreOpen, InMemoryHasTheLatestSchema) {
  auto store = Store::open(":memory:");
  ASSERT_TRUE(store.ok()) << store.error().message;
  EXPECT_EQ(first_integer(*store, "SELECT MAX(version) FROM schema_version"),
            latest_schema_version());
  EXPECT_EQ(first_integer(*store, "SELECT COUNT(*) FROM schema_version"), latest_schema_version());
  for (const char* name :
       {"runs", "predictions", "prediction_factors", "measurements", "samples", "published",
        "v_predictions", "v_latest_predictions", "v_runs", "v_measurements"}) {
    EXPECT_EQ(
        first_integer(
            *store, std::string("SELECT COUNT(*) FROM sqlite_master WHERE name = '") + name + "'"),
        1)
        << name;
  }
}

TEST(StoreOpen, NewFileIsVersionedAndInWalMode) {
  TempDir dir;
  const std::string path = dir.file("results.db");
  ASSERT_TRUE(Store::open(path).ok());
  Db db = raw_open(path);
  auto mode = Statement::prepare(db.get(), "PRAGMA journal_mode");
  ASSERT_TRUE(mode.ok() && *mode->step());
  EXPECT_EQ(mode->column_text(0), "wal");
  EXPECT_EQ(*read_schema_version(db.get()), latest_schema_version());
}

TEST(StoreOpen, ReopeningKeepsTheRuns) {
  TempDir dir;
  const std::string path = dir.file("results.db");
  {
    auto store = Store::open(path);
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE(store->begin_run(testing::run_info(RunKind::predict, "abc")).ok());
  }
  auto store = Store::open(path, {.create = false});
  ASSERT_TRUE(store.ok()) << store.error().message;
  EXPECT_EQ(store->list_runs()->size(), 1u);
}

TEST(StoreOpen, AnEmptyFileBecomesANewDatabase) {
  TempDir dir;
  const std::string path = dir.file("touched.db");
  write_bytes(path, "");
  auto store = Store::open(path);
  ASSERT_TRUE(store.ok()) << store.error().message;
  EXPECT_EQ(first_integer(*store, "SELECT MAX(version) FROM schema_version"),
            latest_schema_version());
}

TEST(StoreOpen, MigratesAVersionOneDatabaseForward) {
  TempDir dir;
  const std::string path = dir.file("v1.db");
  {
    Db db = raw_open(path);
    ASSERT_TRUE(apply_migration(db.get(), 1).ok());
    raw_exec(db.get(), R"sql(
      INSERT INTO runs (revision, host, command_line, kind)
        VALUES ('v0.1', 'h', 'predict', 'predict');
      INSERT INTO predictions VALUES (NULL, 1, 1, 16, 16, 4096, 4096, 128, 128, 0, 'bf16', 'fwd',
        'b200', 'fa4', 128, 128, 0.125, 1, 0, 1, 2, 0, 3, 4, 0, 5, 0, 'fma', 5, 4, 3, 32, 1024,
        0.5, 0.001, 1e12, 1000, 0.5, 'fma', '1');
    )sql");
    EXPECT_EQ(*read_schema_version(db.get()), 1);
  }
  auto store = Store::open(path);
  ASSERT_TRUE(store.ok()) << store.error().message;
  EXPECT_EQ(first_integer(*store, "SELECT MAX(version) FROM schema_version"),
            latest_schema_version());
  EXPECT_EQ(first_integer(*store, "SELECT COUNT(*) FROM measurements"), 0);
  auto runs = store->list_runs();
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ((*runs)[0].revision, "v0.1");
  EXPECT_EQ((*runs)[0].predictions, 1);
  EXPECT_EQ((*runs)[0].measurements, 0);
}

// Version 4 adds the sliding window: earlier rows keep every field and get none (0), and the
// rebuilt published table keeps its figures.
TEST(StoreOpen, MigratesAVersionThreeDatabaseToTheSlidingWindow) {
  TempDir dir;
  const std::string path = dir.file("v3.db");
  {
    Db db = raw_open_at_version(path, 3);
    raw_exec(db.get(), R"sql(
      INSERT INTO runs (revision, host, command_line, kind)
        VALUES ('v0.3', 'h', 'predict', 'predict');
      INSERT INTO predictions VALUES (NULL, 1, 1, 16, 16, 4096, 4096, 128, 128, 1, 'bf16', 'fwd',
        'b200', 'fa4', 128, 128, 0.125, 1, 0, 1, 2, 0, 3, 4, 0, 5, 0, 'fma', 5, 4, 3, 32, 1024,
        0.5, 0.001, 1e12, 1000, 0.5, 'fma', '1');
      INSERT INTO published (source, citation, gpu, kernel, batch, heads_q, heads_kv, seqlen_q,
        seqlen_k, headdim, headdim_v, causal, dtype, pass, tflops, notes)
        VALUES ('fa4-paper', 'Figure 5', 'b200', 'fa4', 1, 16, 16, 4096, 4096, 128, 128, 1,
        'bf16', 'fwd', 1200, 'n');
    )sql");
  }
  auto store = Store::open(path);
  ASSERT_TRUE(store.ok()) << store.error().message;
  EXPECT_EQ(first_integer(*store, "SELECT MAX(version) FROM schema_version"),
            latest_schema_version());
  EXPECT_EQ(first_integer(*store, "SELECT sliding_window FROM predictions"), 0);
  EXPECT_EQ(first_integer(*store, "SELECT COUNT(*) FROM v_latest_predictions"), 1);
  EXPECT_EQ(first_integer(*store,
                          "SELECT COUNT(*) FROM published WHERE tflops = 1200 AND "
                          "sliding_window = 0 AND notes = 'n'"),
            1);
}

// A reader of an older database reads it as the latest schema through a copy migrated in memory,
// and leaves the file byte for byte (no migration, no -wal file), read-only or not.
// A version-5 database (before the samples' rounds): its samples get no round and read back as
// they were taken.
TEST(StoreOpen, MigratesAVersionFiveDatabaseItsSamplesWithoutRounds) {
  TempDir dir;
  const std::string path = dir.file("v5.db");
  {
    Db db = raw_open_at_version(path, 5);
    raw_exec(db.get(), R"sql(
      INSERT INTO runs (revision, host, command_line, kind) VALUES ('v5', 'h', 'bench', 'bench');
      INSERT INTO measurements (run_id, batch, heads_q, heads_kv, seqlen_q, seqlen_k, headdim,
        headdim_v, causal, dtype, pass, kernel, source, device, status, time_median_s, tflops)
        VALUES (1, 2, 16, 16, 8192, 8192, 128, 128, 0, 'bf16', 'fwd', 'fa3', 'ours',
        'NVIDIA H200', 'ok', 2e-3, 550);
      INSERT INTO samples VALUES (1, 0, 3e-3), (1, 1, 1e-3), (1, 2, 2e-3);
    )sql");
  }
  auto store = Store::open(path, {.create = false, .read_only = true});
  ASSERT_TRUE(store.ok()) << store.error().message;
  EXPECT_EQ(first_integer(*store, "SELECT COUNT(*) FROM samples WHERE round_index IS NULL"), 3);
  auto rows = store->measurements_for_report();
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ(rows->front().samples_s, (std::vector<double>{3e-3, 1e-3, 2e-3}));
}

TEST(StoreOpen, AReaderOfAnOlderDatabaseNeverWritesIt) {
  TempDir dir;
  const std::string path = dir.file("v4.db");
  {
    Db db = raw_open_at_version(path, 4);
    raw_exec(db.get(), R"sql(
      INSERT INTO runs (revision, host, command_line, kind)
        VALUES ('v0.4', 'h', 'predict', 'predict');
    )sql");
  }
  const std::string before = read_bytes(path);
  for (const bool writable : {true, false}) {
    std::filesystem::permissions(
        path, writable ? std::filesystem::perms::owner_all : std::filesystem::perms::owner_read);
    auto store = Store::open(path, {.read_only = true});
    ASSERT_TRUE(store.ok()) << store.error().message;
    EXPECT_EQ(first_integer(*store, "SELECT MAX(version) FROM schema_version"),
              latest_schema_version());
    EXPECT_EQ(first_integer(*store, "SELECT COUNT(*) FROM runs WHERE revision = 'v0.4'"), 1);
  }
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  EXPECT_TRUE(read_bytes(path) == before);
  EXPECT_FALSE(std::filesystem::exists(path + "-wal"));
  auto writer = Store::open(path);  // a writer upgrades it in place
  ASSERT_TRUE(writer.ok()) << writer.error().message;
  EXPECT_FALSE(read_bytes(path) == before);
}

TEST(StoreOpen, MigrationsRefuseToSkipAVersion) {
  auto db = open_db(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  ASSERT_TRUE(db.ok());
  auto skipped = apply_migration(db->get(), 2);
  ASSERT_FALSE(skipped.ok());
  EXPECT_THAT(skipped.error().message, HasSubstr("apply 1 first"));
  ASSERT_TRUE(apply_migration(db->get(), 1).ok());
  EXPECT_TRUE(apply_migration(db->get(), 1).ok());  // already there: nothing to do
  EXPECT_EQ(*read_schema_version(db->get()), 1);
}

// A reader's integrity check is bounded in time: on a database it cannot check within its budget
// (40 MB here) it stops and says so; without a budget it checks every page.
TEST(StoreOpen, AReadersIntegrityCheckStopsAtItsBudget) {
  TempDir dir;
  const std::string path = dir.file("big.db");
  ASSERT_TRUE(Store::open(path));
  {
    Db db = raw_open(path);
    raw_exec(db.get(),
             "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40000) "
             "INSERT INTO runs (revision, host, command_line, kind, notes) "
             "SELECT 'r', 'h', 'c', 'predict', randomblob(1000) FROM n");
  }
  auto reader = Store::open(path, {.read_only = true});
  ASSERT_TRUE(reader) << reader.error().message;
  const auto bounded = reader->check_integrity(std::chrono::milliseconds(1));
  ASSERT_TRUE(bounded) << bounded.error().message;
  EXPECT_EQ(*bounded, IntegrityCheck::cut_short);
  const auto whole = reader->check_integrity();
  ASSERT_TRUE(whole) << whole.error().message;
  EXPECT_EQ(*whole, IntegrityCheck::whole);
}

TEST(StoreOpen, RefusesAFileThatIsNotSqliteAndLeavesIt) {
  TempDir dir;
  for (const std::string bytes : {"batch,heads\n1,16\n2,32\n", "hi"}) {
    const std::string path = dir.file("sweep.csv");
    write_bytes(path, bytes);
    const std::string message = refusal(path);
    EXPECT_THAT(message, HasSubstr(path + " is not an SQLite database"));
    EXPECT_THAT(message, HasSubstr("--db"));
    EXPECT_EQ(read_bytes(path), bytes);
  }
  EXPECT_FALSE(std::filesystem::exists(dir.file("sweep.csv-wal")));
}

TEST(StoreOpen, RefusesAnotherProgramsDatabaseAndLeavesIt) {
  TempDir dir;
  const std::string path = dir.file("other.db");
  raw_exec(raw_open(path).get(), "CREATE TABLE users (name TEXT); INSERT INTO users VALUES ('x')");
  const std::string before = read_bytes(path);
  const std::string message = refusal(path);
  EXPECT_THAT(message, HasSubstr(path + " is an SQLite database but not an fa4-analyze results "
                                        "database"));
  EXPECT_THAT(message, HasSubstr("pass another --db"));
  EXPECT_EQ(read_bytes(path), before);
}

TEST(StoreOpen, RefusesANewerSchemaAndLeavesIt) {
  TempDir dir;
  const std::string path = dir.file("newer.db");
  ASSERT_TRUE(Store::open(path).ok());
  const int newer = latest_schema_version() + 1;
  raw_exec(raw_open(path).get(),
           "INSERT INTO schema_version VALUES (" + std::to_string(newer) + ", 'later')");
  const std::string before = read_bytes(path);
  EXPECT_THAT(refusal(path),
              HasSubstr(path + " was written by a newer fa4-analyze (schema " +
                        std::to_string(newer) + " > " + std::to_string(latest_schema_version()) +
                        "): upgrade fa4-analyze or use another --db"));
  EXPECT_EQ(read_bytes(path), before);
}

TEST(StoreOpen, RefusesAReadOnlyFileAndLeavesIt) {
  TempDir dir;
  const std::string path = dir.file("frozen.db");
  ASSERT_TRUE(Store::open(path).ok());
  ASSERT_EQ(::chmod(path.c_str(), 0444), 0);
  const std::string before = read_bytes(path);
  const std::string message = refusal(path);
  EXPECT_THAT(message, HasSubstr("results database " + path + " is read-only"));
  EXPECT_THAT(message, HasSubstr("chmod u+w"));
  EXPECT_EQ(read_bytes(path), before);
}

TEST(StoreOpen, RefusesALockedDatabase) {
  TempDir dir;
  const std::string path = dir.file("busy.db");
  ASSERT_TRUE(Store::open(path).ok());
  {
    Db holder = raw_open(path);
    raw_exec(holder.get(), "PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE");
    const std::string message = refusal(path);
    EXPECT_THAT(message, HasSubstr("results database " + path + " is locked by another process"));
    EXPECT_THAT(message, HasSubstr("pass another --db"));
  }
  EXPECT_TRUE(Store::open(path, kQuick).ok());
}

TEST(StoreOpen, RefusesPathsItCannotCreate) {
  TempDir dir;
  const std::string missing = dir.file("no/such/folder/results.db");
  EXPECT_THAT(refusal(missing), HasSubstr("folder " + dir.file("no/such/folder") +
                                          " does not exist; create it or pass another --db"));
  EXPECT_THAT(refusal(dir.file("")), HasSubstr("is a folder, not a results database"));
}

TEST(StoreOpen, WithoutCreateAMissingFileIsAnErrorAndStaysMissing) {
  TempDir dir;
  const std::string path = dir.file("results.db");
  EXPECT_EQ(refusal(path, {.create = false}),
            "no results database at " + path + ": run 'fa4-analyze predict' first or pass --db");
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace fa4::store
