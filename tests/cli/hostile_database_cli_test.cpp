// Black-box tests of hostile databases, queries and peer records, each named after what it
// attacks: a query that hands fts3_tokenizer a pointer or asks it for one, a recursive query that
// never ends, triggers and views planted in a results database (or one of its own views
// rewritten), a damaged index under `runs`, a negative --limit, a peer device spelled another way
// or unknown, and control characters in every string of a peer record. Each is refused with one
// line that names the input and how to fix it, leaving the database as it was, or handled as the
// message says; commands that could hang run under `timeout`, so a hang fails the test instead of
// stopping the suite.
#include <sqlite3.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_runner.hpp"

namespace fa4::testing {
namespace {

namespace fs = std::filesystem;

// Longer than any of these commands takes; `timeout` exits 124 past it.
constexpr const char* kTimeout = "timeout 20 ";

const std::string kRealDb = "2026-11-23-h200.db";
const std::string kSweep = "--sweep '" FA4_SOURCE_DIR "/data/sweeps/llama3.json'";
const std::string kSample = FA4_TEST_DATA "/peers-sample.jsonl";

// Runs `sql` on `file` with SQLite directly (the attacker's side); "" or SQLite's message.
std::string sqlite_exec(const fs::path& file, const std::string& sql) {
  sqlite3* db = nullptr;
  sqlite3_open(file.c_str(), &db);
  char* message = nullptr;
  sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
  std::string result = message ? message : "";
  sqlite3_free(message);
  sqlite3_close(db);
  return result;
}

// The first column of the first row of `sql` on `file`, as text.
std::string sqlite_value(const fs::path& file, const std::string& sql) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* stmt = nullptr;
  std::string value;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK &&
      sqlite3_step(stmt) == SQLITE_ROW)
    value = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return value;
}

class HostileDatabase : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    copy_shipped_db(kRealDb, "t.db");
  }

  // Runs `fa4-analyze ARGS` under timeout, in the test's folder.
  Outcome run_bounded(const std::string& args) {
    return run_script(std::string(kTimeout) + "\"$CLI\" " + args);
  }

  std::string count(const std::string& table) {
    return sqlite_value(dir_ / "t.db", "SELECT COUNT(*) FROM " + table);
  }
};

// --- Queries ------------------------------------------------------------------------------

// Debian's SQLite enables FTS3 tokenizers: fts3_tokenizer('simple') returns the address of a
// tokenizer table in the library, and fts3_tokenizer('simple', x'41...') makes the next FTS3 use
// call 0x4141414141414141.
TEST_F(HostileDatabase, Fts3TokenizerNeitherTakesNorGivesAPointer) {
  for (const std::string call :
       {"fts3_tokenizer('simple')", "FTS3_Tokenizer('simple', x'4141414141414141')"}) {
    const Outcome r = run_bounded("--db t.db query \"SELECT " + call + "\"");
    expect_refusal(r, "query does not run fts3_tokenizer()");
    EXPECT_EQ(r.out, "") << call;
  }
}

TEST_F(HostileDatabase, Fts3TokenizerOnADatabaseWithAnFts3TableNeitherCrashesNorPrintsAnAddress) {
  ASSERT_EQ(sqlite_exec(dir_ / "t.db",
                        "CREATE VIRTUAL TABLE notes USING fts3(content);"
                        "INSERT INTO notes VALUES ('hello')"),
            "");
  const std::string before = slurp(dir_ / "t.db");
  for (const std::string sql :
       {"SELECT fts3_tokenizer('simple', x'4141414141414141'), content FROM notes WHERE notes "
        "MATCH 'hello'",
        "SELECT fts3_tokenizer('simple')", "SELECT content FROM notes"}) {
    const Outcome r = run_bounded("--db t.db query \"" + sql + "\"");
    expect_refusal(r, "holds 4 schema objects fa4-analyze did not create: table notes, ");
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err.find("x'"), std::string::npos) << r.err;
  }
  EXPECT_TRUE(slurp(dir_ / "t.db") == before);
}

TEST_F(HostileDatabase, NeverEndingRecursiveQueryStopsAtTheTimeLimit) {
  const auto start = std::chrono::steady_clock::now();
  const Outcome r = run_bounded(
      "--db t.db query \"WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) "
      "SELECT COUNT(*) FROM r\" --timeout 1");
  const auto took = std::chrono::steady_clock::now() - start;
  expect_refusal(r,
                 "query stopped after 1 s, its time limit (--timeout 1): narrow the query, or "
                 "pass --timeout S for a longer limit (--timeout 0: none)");
  EXPECT_LT(took, std::chrono::seconds(5));
}

TEST_F(HostileDatabase, NeverEndingQueryPrintingRowsStopsAtTheTimeLimit) {
  const Outcome r = run_bounded(
      "--db t.db query \"WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) "
      "SELECT x FROM r\" --format csv --limit 0 --timeout 1 >/dev/null");
  expect_refusal(r, "query stopped after 1 s, its time limit (--timeout 1)");
}

TEST_F(HostileDatabase, NegativeLimitOrTimeoutIsRefused) {
  for (const std::string option : {"--limit", "--timeout"}) {
    const Outcome r = run("--db t.db query \"SELECT 1\" " + option + " -1");
    expect_refusal(r, option + ": '-1' is negative: give 0 or more");
    EXPECT_EQ(r.out, "");
  }
}

// --- Schema objects the tool did not create ------------------------------------------------

TEST_F(HostileDatabase, PlantedTriggerMakesPredictRefuseAndKeepsEveryRow) {
  ASSERT_EQ(sqlite_exec(dir_ / "t.db",
                        "CREATE TRIGGER wipe AFTER INSERT ON runs BEGIN DELETE FROM predictions; "
                        "END"),
            "");
  const std::string predictions = count("predictions"), runs = count("runs");
  ASSERT_NE(predictions, "0");
  const std::string before = slurp(dir_ / "t.db");
  const Outcome r = run("--db t.db predict " + kSweep + " --gpu h100 --kernel fa3");
  expect_refusal(r,
                 "results database t.db holds 1 schema object fa4-analyze did not create: "
                 "trigger wipe (on runs); a trigger or a view runs its SQL when the tool writes "
                 "or reads the tables, so nothing was written: see what they do with 'sqlite3 "
                 "t.db .schema', remove them with sqlite3 t.db 'DROP TRIGGER IF EXISTS \"wipe\";' "
                 "and run the command again");
  EXPECT_EQ(count("predictions"), predictions);
  EXPECT_EQ(count("runs"), runs);
  EXPECT_TRUE(slurp(dir_ / "t.db") == before);
}

TEST_F(HostileDatabase, PlantedObjectsAreRemovedByTheCommandTheMessageGives) {
  ASSERT_EQ(sqlite_exec(dir_ / "t.db",
                        "CREATE TRIGGER wipe AFTER INSERT ON runs BEGIN DELETE FROM predictions; "
                        "END; CREATE VIEW \"it's \"\"odd\"\"\" AS SELECT 1;"
                        "CREATE TABLE extra (x); CREATE INDEX extra_x ON extra (x)"),
            "");
  const Outcome refused = run("--db t.db predict " + kSweep + " --gpu h100 --kernel fa3");
  ASSERT_EQ(refused.code, 1);
  const std::string from = "remove them with ", to = " and run the command again";
  const auto begin = refused.err.find(from), end = refused.err.find(to);
  ASSERT_NE(end, std::string::npos) << refused.err;
  const std::string command = refused.err.substr(begin + from.size(), end - begin - from.size());
  const Outcome removed = run_script("command -v sqlite3 >/dev/null || exit 77\n" + command);
  if (removed.code == kCannotSetUp) GTEST_SKIP() << "no sqlite3 here to run: " << command;
  ASSERT_EQ(removed.code, 0) << command << ": " << removed.err;
  const std::string predictions = count("predictions");
  const Outcome r = run("--db t.db predict " + kSweep + " --gpu h100 --kernel fa3");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_GT(std::stoll(count("predictions")), std::stoll(predictions));
}

// A planted view replacing the tool's own never ends: each reader would hang in it.
TEST_F(HostileDatabase, RewrittenViewIsNotRunByAnyReader) {
  ASSERT_EQ(sqlite_exec(dir_ / "t.db",
                        "DROP VIEW v_runs; CREATE VIEW v_runs AS WITH RECURSIVE r(x) AS (SELECT 1 "
                        "UNION ALL SELECT x + 1 FROM r) SELECT * FROM runs, r"),
            "");
  const std::string before = slurp(dir_ / "t.db");
  for (const std::string command :
       {"runs", "report --out r.md --no-reference-runs", "query \"SELECT COUNT(*) FROM runs\""}) {
    const Outcome r = run_bounded("--db t.db " + command);
    expect_refusal(r,
                   "results database t.db does not hold the schema fa4-analyze writes (version "
                   "4): view v_runs differs from fa4-analyze's; it was changed outside "
                   "fa4-analyze, so nothing was read");
    EXPECT_EQ(r.out, "") << command;
  }
  EXPECT_FALSE(fs::exists(dir_ / "r.md"));
  EXPECT_TRUE(slurp(dir_ / "t.db") == before);
}

TEST_F(HostileDatabase, PlantedViewAndTriggerAreNotRunByAnyReader) {
  ASSERT_EQ(sqlite_exec(dir_ / "t.db",
                        "CREATE VIEW v_forever AS WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL "
                        "SELECT x + 1 FROM r) SELECT x FROM r;"
                        "CREATE TRIGGER wipe AFTER INSERT ON runs BEGIN DELETE FROM predictions; "
                        "END"),
            "");
  for (const std::string command : {"runs", "report --out r.md --no-reference-runs",
                                    "query \"SELECT COUNT(*) FROM v_forever\""}) {
    const Outcome r = run_bounded("--db t.db " + command);
    expect_refusal(r,
                   "holds 2 schema objects fa4-analyze did not create: trigger wipe (on runs), "
                   "view v_forever; a trigger or a view runs its SQL when the tool writes or "
                   "reads the tables, so nothing was read");
    EXPECT_EQ(r.out, "") << command;
  }
}

// A reference run is read through a private copy; a planted one is refused with the command that
// removes the planted objects from the shipped file, never from the copy that is gone.
TEST_F(HostileDatabase, PlantedReferenceRunIsNamedByItsOwnPath) {
  fs::create_directories(dir_ / "runs");
  fs::copy_file(dir_ / "t.db", dir_ / "runs" / "planted.db");
  ASSERT_EQ(sqlite_exec(dir_ / "runs" / "planted.db",
                        "CREATE TRIGGER wipe AFTER INSERT ON runs BEGIN DELETE FROM runs; END"),
            "");
  const Outcome r =
      run_bounded("--db t.db report --out r.md --reference-runs runs");
  expect_refusal(r, "reference run runs/planted.db: ");
  EXPECT_NE(r.err.find("sqlite3 runs/planted.db 'DROP TRIGGER IF EXISTS \"wipe\";'"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("fa4-reference-"), std::string::npos) << "names the copy: " << r.err;
}

// ANALYZE's statistics run nothing: a database someone analyzed is still read and written.
TEST_F(HostileDatabase, AnalyzedDatabaseIsStillOurs) {
  ASSERT_EQ(sqlite_exec(dir_ / "t.db", "ANALYZE"), "");
  ASSERT_NE(sqlite_value(dir_ / "t.db", "SELECT COUNT(*) FROM sqlite_stat1"), "0");
  EXPECT_EQ(run("--db t.db runs").code, 0);
  EXPECT_EQ(run("--db t.db predict " + kSweep + " --gpu h100 --kernel fa3").code, 0);
}

// --- A damaged database under `runs` -------------------------------------------------------

// The index runs counts each run's predictions through, damaged (its root page inverted): runs
// warns and lists the same runs and counts, from the tables.
TEST_F(HostileDatabase, RunsOnADamagedIndexWarnsAndReads) {
  const Outcome whole = run("--db t.db runs");
  ASSERT_EQ(whole.code, 0) << whole.err;
  const long page_size = std::stol(sqlite_value(dir_ / "t.db", "PRAGMA page_size"));
  const long root = std::stol(sqlite_value(
      dir_ / "t.db", "SELECT rootpage FROM sqlite_master WHERE name = 'predictions_by_run'"));
  std::string bytes = slurp(dir_ / "t.db");
  for (long i = (root - 1) * page_size + 100; i < (root - 1) * page_size + 164; ++i)
    bytes[static_cast<std::size_t>(i)] = static_cast<char>(~bytes[static_cast<std::size_t>(i)]);
  std::ofstream(dir_ / "t.db", std::ios::binary | std::ios::trunc) << bytes;

  const Outcome r = run("--db t.db runs");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err.rfind("warning: results database t.db is damaged (", 0), 0u) << r.err;
  EXPECT_EQ(r.out, whole.out);
}

// --- Peer records -------------------------------------------------------------------------

class HostilePeerRecords : public CliTest {
 protected:
  static nlohmann::json sample_record() {
    std::ifstream in(kSample);
    std::string line;
    std::getline(in, line);
    return nlohmann::json::parse(line);
  }
  // An ok record whose median (and every statistic) is `seconds`.
  static nlohmann::json timed(nlohmann::json record, double seconds) {
    for (const char* key : {"median_s", "p25_s", "p75_s", "min_s", "max_s"}) record[key] = seconds;
    record["samples_s"] = {seconds};
    return record;
  }
  // Writes `records` as JSON Lines to `name`; its path.
  std::string write(const std::string& name, const std::vector<nlohmann::json>& records) {
    std::ofstream out(dir_ / name);
    for (const nlohmann::json& record : records) out << record.dump() << "\n";
    return (dir_ / name).string();
  }
  std::string csv(const std::string& sql) {
    return run("--db r.db query \"" + sql + "\" --format csv").out;
  }
};

// 1e-9 s for this shape is 549,755,814 TFLOP/s: over any H200's peak, however it is spelled.
TEST_F(HostilePeerRecords, DeviceInAnySpellingIsCheckedAgainstItsPeak) {
  for (const std::string device :
       {"nvidia h200", "NVIDIA H200 ", "  NVIDIA   H200", "Nvidia H200"}) {
    nlohmann::json record = timed(sample_record(), 1e-9);
    record["device"] = device;
    const Outcome r = run("--db r.db import '" + write("e.jsonl", {record}) + "'");
    EXPECT_EQ(r.code, 1) << device;
    EXPECT_NE(r.err.find("e.jsonl:1: median_s = 1e-09 s gives 5.498e+08 TFLOP/s"),
              std::string::npos)
        << device << ": " << r.err;
    EXPECT_NE(r.err.find("above the NVIDIA H200"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "r.db")) << device;
  }
}

TEST_F(HostilePeerRecords, DeviceInAnySpellingIsStoredAsItsModelSpellsIt) {
  nlohmann::json record = sample_record();
  record["device"] = " nvidia  h200 ";
  const Outcome r = run("--db r.db import '" + write("e.jsonl", {record}) + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(csv("SELECT DISTINCT device FROM measurements"), "device\nNVIDIA H200\n");
  EXPECT_EQ(csv("SELECT device FROM runs"), "device\nNVIDIA H200\n");
}

TEST_F(HostilePeerRecords, UnknownDeviceIsStoredUncheckedWithAWarning) {
  nlohmann::json record = timed(sample_record(), 1e-3);
  record["device"] = "NVIDIA Z100 ";
  const Outcome r = run("--db r.db import '" + write("e.jsonl", {record}) + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("e.jsonl: device 'NVIDIA Z100' matches no hardware model's device_names "
                       "in "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("its measurements are stored with their TFLOP/s checked against no peak"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(csv("SELECT device FROM measurements"), "device\nNVIDIA Z100\n");
}

// Every string a record has, and a key of its free-form objects: the second line names the field.
TEST_F(HostilePeerRecords, ControlCharacterInAnyStringFieldIsRefusedWithLineAndField) {
  const std::vector<std::string> fields = {
      "/schema",     "/run",    "/source",   "/kernel",         "/device",
      "/driver",     "/cuda",   "/revision", "/host",           "/measured_at",
      "/pass",       "/status", "/reason",   "/versions/torch", "/check/tolerance",
      "/shape/dtype"};
  const nlohmann::json first = sample_record();
  for (const std::string& field : fields) {
    for (const std::string& bad : {std::string("\n!touch PWN\n#"), std::string(1, '\0'),
                                  std::string("\x1b[2J"), std::string("\x7f")}) {
      nlohmann::json record = first;
      const nlohmann::json::json_pointer pointer(field);
      const std::string was = record[pointer].is_string() ? record[pointer].get<std::string>() : "";
      record[pointer] = was + bad;
      const Outcome r = run("--db r.db import '" + write("e.jsonl", {first, record}) + "'");
      EXPECT_EQ(r.code, 1) << field;
      EXPECT_NE(r.err.find("e.jsonl:2: " + field + " holds a control character at byte "),
                std::string::npos)
          << field << ": " << r.err;
      EXPECT_NE(r.err.find("nothing was imported"), std::string::npos) << r.err;
      EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
      EXPECT_FALSE(fs::exists(dir_ / "r.db")) << field;
    }
  }
  nlohmann::json record = first;
  record["versions"]["torch\nx"] = "2";
  const Outcome r = run("--db r.db import '" + write("e.jsonl", {record}) + "'");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("e.jsonl:1: /versions holds a key with a control character (\"torch\\nx\")"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "PWN"));
}

}  // namespace
}  // namespace fa4::testing
