// Black-box tests of bad input: each is refused with one "error: ..." line that names the input,
// what is wrong and how to fix it, exit status 1, and no recorded data changed.
#include <sqlite3.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "cli_runner.hpp"

namespace {

namespace fs = std::filesystem;
using fa4::testing::Outcome;
using fa4::testing::slurp;

class BadInput : public fa4::testing::CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    std::ofstream(dir_ / "sweep.json")
        << R"({"name": "t", "shapes": [{"batch": 1, "heads": 8, "seqlen": 1024, "headdim": 64}]})";
  }
  // A database with one recorded run.
  void make_db(const std::string& name) {
    ASSERT_EQ(run("--db " + name + " predict --sweep sweep.json --gpu h100 --kernel fa3").code, 0);
  }
  static void expect_error(const Outcome& r, const std::string& text) {
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(text), std::string::npos) << r.err;
  }
  void sql(const std::string& db, const std::string& statement) {
    sqlite3* handle = nullptr;
    ASSERT_EQ(sqlite3_open((dir_ / db).c_str(), &handle), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(handle, statement.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(handle);
  }
};

TEST_F(BadInput, UnknownGpuKernelOrSubcommandInPredict) {
  expect_error(run("--db t.db predict --sweep sweep.json --gpu h900"),
               "unknown GPU 'h900': use one of a100-sxm, h100-sxm");
  expect_error(run("--db t.db predict --sweep sweep.json --kernel fa9"),
               "unknown kernel 'fa9': the model knows naive, fa2, fa3 and fa4");
  expect_error(run("predikt --sweep sweep.json"),
               "unknown subcommand 'predikt': use one of gpus, model, ");
  EXPECT_FALSE(fs::exists(dir_ / "t.db"));
}

TEST_F(BadInput, ZeroNegativeAndAbsurdSizes) {
  expect_error(run("model --gpu h100 --kernel fa3 --headdim 0"),
               "impossible shape: headdim = 0; every size must be a positive integer");
  expect_error(run("model --gpu h100 --kernel fa3 --batch -2"), "batch = -2");
  expect_error(run("model --gpu h100 --kernel fa3 --batch 100000000 --seqlen 1000000"),
               "has a tensor of more than 2^40 elements; reduce batch, heads or seqlen");
  expect_error(run("model --gpu h100 --kernel fa3 --headdim 4096"), "exceeds 1024");
  expect_error(run("model --gpu h100 --kernel fa3 --seqlen 12abc"), "--seqlen");
}

TEST_F(BadInput, HeadsNotDivisibleByKvHeadsInFlagsAndSweeps) {
  expect_error(run("model --gpu h100 --kernel fa3 --heads 16 --heads-kv 5"),
               "heads = 16 is not divisible by heads-kv = 5");
  std::ofstream(dir_ / "gqa.json") << R"({"name": "g", "shapes": [
      {"batch": 1, "heads": 32, "heads_kv": 6, "seqlen": 1024, "headdim": 128}]})";
  expect_error(run("--db t.db predict --sweep gqa.json"), "gqa.json: /shapes/0: impossible shape");
  EXPECT_FALSE(fs::exists(dir_ / "t.db"));
}

TEST_F(BadInput, TruncatedModelFileNamesThePathAndLine) {
  fs::create_directories(dir_ / "models");
  const std::string full = slurp(fs::path(FA4_SOURCE_DIR) / "models/h100-sxm.json");
  std::ofstream(dir_ / "models/h100-sxm.json") << full.substr(0, full.size() / 2);
  const Outcome r = run("--models models gpus");
  expect_error(r, "models/h100-sxm.json: line ");
  EXPECT_NE(r.err.find("invalid JSON"), std::string::npos) << r.err;
  // A wrong field is named by its JSON pointer.
  std::string wrong = full;
  wrong.replace(wrong.find("\"sms\""), 5, "\"smz\"");
  std::ofstream(dir_ / "models/h100-sxm.json") << wrong;
  expect_error(run("--models models gpus"), "h100-sxm.json: /smz: unknown field");
}

TEST_F(BadInput, TruncatedSweepAndImportFilesNameThePathAndLine) {
  std::ofstream(dir_ / "cut.json") << R"({"name": "t", "shapes": [{"batch": 1, "hea)";
  expect_error(run("--db t.db predict --sweep cut.json"), "cut.json: not valid JSON");
  const std::string sample = slurp(FA4_TEST_DATA "/peers-sample.jsonl");
  const std::size_t second_line = sample.find('\n') + 1;
  std::ofstream(dir_ / "cut.jsonl") << sample.substr(0, second_line + 40);
  make_db("t.db");
  const Outcome r = run("--db t.db import cut.jsonl");
  expect_error(r, "cut.jsonl:2: not valid JSON");
  EXPECT_NE(r.err.find("nothing was imported"), std::string::npos);
  EXPECT_EQ(run("--db t.db query \"SELECT COUNT(*) FROM measurements\" --format csv").out,
            "COUNT(*)\n0\n");
}

TEST_F(BadInput, DatabaseFromANewerSchemaIsRefusedAndLeftUntouched) {
  make_db("new.db");
  sql("new.db", "PRAGMA wal_checkpoint(TRUNCATE); INSERT INTO schema_version VALUES (999, 'x')");
  sql("new.db", "PRAGMA wal_checkpoint(TRUNCATE)");
  const std::string before = slurp(dir_ / "new.db");
  expect_error(run("--db new.db predict --sweep sweep.json --gpu h100"),
               "new.db was written by a newer fa4-analyze (schema 999 > ");
  expect_error(run("--db new.db query \"SELECT 1\""), "upgrade fa4-analyze or use another --db");
  EXPECT_EQ(slurp(dir_ / "new.db"), before);
}

TEST_F(BadInput, ReadOnlyDatabaseIsRefusedAndLeftUntouched) {
  make_db("ro.db");
  sql("ro.db", "PRAGMA wal_checkpoint(TRUNCATE)");
  const std::string before = slurp(dir_ / "ro.db");
  fs::permissions(dir_ / "ro.db", fs::perms::owner_read | fs::perms::group_read);
  expect_error(run("--db ro.db predict --sweep sweep.json --gpu h100"),
               "results database ro.db is read-only: make it writable (chmod u+w ro.db)");
  EXPECT_EQ(slurp(dir_ / "ro.db"), before);
}

TEST_F(BadInput, LockedDatabaseWaitsThenSaysWhoToWaitFor) {
  make_db("busy.db");
  sqlite3* holder = nullptr;
  ASSERT_EQ(sqlite3_open((dir_ / "busy.db").c_str(), &holder), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(holder, "PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE", nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  const Outcome r = run("--db busy.db --busy-timeout 200 predict --sweep sweep.json --gpu h100");
  expect_error(r, "results database busy.db is locked by another process (waited 200 ms)");
  EXPECT_NE(r.err.find("pass another --db"), std::string::npos);
  sqlite3_exec(holder, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(holder);
  EXPECT_EQ(run("--db busy.db runs").code, 0);  // usable again, the one run still there
  EXPECT_NE(run("--db busy.db runs").out.find("predict"), std::string::npos);
}

TEST_F(BadInput, BadBusyTimeoutIsNamed) {
  const Outcome r = run("--busy-timeout -5 gpus");
  expect_error(r, "--busy-timeout");
  const Outcome e = run("gpus");  // sanity: the same command works
  EXPECT_EQ(e.code, 0);
}

TEST_F(BadInput, WithoutAGpuTheModelOnlyCommandsStillWork) {
  EXPECT_EQ(run("model --gpu b200 --kernel fa4").code, 0);
  EXPECT_EQ(run("--db t.db predict --sweep sweep.json").code, 0);
  EXPECT_EQ(run("--db t.db report --out r.md").code, 0) << run("--db t.db report --out r.md").err;
  EXPECT_TRUE(fs::exists(dir_ / "r.md"));
}

}  // namespace
