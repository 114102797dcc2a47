// Black-box tests of databases that cannot or must not be written: a damaged one (a copy of a real
// database with bytes flipped, failing PRAGMA integrity_check) is refused by the writers, byte for
// byte untouched, with how to recover, and read with a warning; a read-only one (a read-only
// mount, or a write-protected file of another user) is read by query, runs and report, and the
// writers say why they cannot write. The read-only mount needs a private mount namespace
// (unshare -rm) and the other user needs root to drop to (setpriv); where the machine allows
// neither, those tests say skipped.
#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "cli_runner.hpp"

namespace {

namespace fs = std::filesystem;
using fa4::testing::kCannotSetUp;
using fa4::testing::Outcome;
using fa4::testing::slurp;

// The first line of PRAGMA integrity_check (or the error that stopped it) on `file`.
std::string integrity_of(const fs::path& file) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* stmt = nullptr;
  std::string result;
  if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &stmt, nullptr) == SQLITE_OK &&
      sqlite3_step(stmt) == SQLITE_ROW)
    result = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
  else
    result = sqlite3_errmsg(db);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return result;
}

class DatabaseState : public fa4::testing::CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    copy_shipped_db(kRealDb, "t.db");
  }
  // t.db with 64 bytes inverted at `offset`; asserts that the copy fails integrity_check.
  void damage_at(std::size_t offset) {
    std::string bytes = slurp(dir_ / "t.db");
    ASSERT_LT(offset + 64, bytes.size());
    for (std::size_t i = offset; i < offset + 64; ++i) bytes[i] = static_cast<char>(~bytes[i]);
    std::ofstream(dir_ / "t.db", std::ios::binary | std::ios::trunc) << bytes;
    ASSERT_NE(integrity_of(dir_ / "t.db"), "ok");
  }
  static void expect_refused_as_damaged(const Outcome& r) {
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.err.rfind("error: results database t.db is damaged (", 0), 0u) << r.err;
    EXPECT_NE(r.err.find("'sqlite3 t.db .recover | sqlite3 recovered.db'"), std::string::npos)
        << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "not one line: " << r.err;
  }

  const std::string kRealDb = "2026-11-23-h200.db";
  const std::string kSweep = "--sweep '" FA4_SOURCE_DIR "/data/sweeps/llama3.json'";
};

// Offsets in the middle of the 270 KB file: a table page (found by quick_check as well) and an
// index page whose damage only integrity_check finds (the reader would silently miss a row).
TEST_F(DatabaseState, PredictRefusesADamagedDatabaseAndLeavesItByteForByte) {
  for (const std::size_t offset : {120832u, 147260u}) {
    copy_shipped_db(kRealDb, "t.db");
    damage_at(offset);
    const std::string before = slurp(dir_ / "t.db");
    expect_refused_as_damaged(run("--db t.db predict " + kSweep + " --gpu h100 --kernel fa3"));
    expect_refused_as_damaged(
        run("--db t.db import '" FA4_SOURCE_DIR "/data/published/papers.json'"));
    EXPECT_TRUE(slurp(dir_ / "t.db") == before) << "offset " << offset;
    EXPECT_FALSE(fs::exists(dir_ / "t.db-wal")) << "offset " << offset;
  }
}

TEST_F(DatabaseState, ReadersWarnAboutADamagedDatabase) {
  damage_at(147260);
  const std::string before = slurp(dir_ / "t.db");
  for (const std::string command :
       {"report --out r.md", "runs", "query \"SELECT COUNT(*) FROM runs\""}) {
    const Outcome r = run("--db t.db " + command);
    EXPECT_EQ(r.code, 0) << command << ": " << r.err;
    EXPECT_EQ(r.err.rfind("warning: results database t.db is damaged (PRAGMA integrity_check "
                          "found ",
                          0),
              0u)
        << command << ": " << r.err;
    EXPECT_NE(r.err.find(".recover"), std::string::npos) << r.err;
  }
  EXPECT_TRUE(slurp(dir_ / "t.db") == before);
}

TEST_F(DatabaseState, AWholeDatabaseGetsNoWarningAndNoLeftovers) {
  for (const std::string command : {"runs", "report --out r.md"}) {
    const Outcome r = run("--db t.db " + command);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err, "") << command;
  }
  // A reader of a writable database leaves no -wal or -shm file behind.
  EXPECT_FALSE(fs::exists(dir_ / "t.db-wal"));
  EXPECT_FALSE(fs::exists(dir_ / "t.db-shm"));
}

// A read-only bind mount of the database's folder: the readers read it (as immutable: SQLite
// cannot create the -shm file there), the writers say it is a read-only file system.
TEST_F(DatabaseState, OnAReadOnlyMountReadersWorkAndWritersSayWhy) {
  const Outcome r = run_script(R"sh(
mkdir ro && mv t.db ro/ || exit 78
mount --bind ro ro && mount -o remount,ro,bind ro || exit 77
touch ro/probe 2>/dev/null && exit 77
"$CLI" query "SELECT COUNT(*) FROM predictions" --db ro/t.db --format csv || echo "query failed" >&2
"$CLI" --db ro/t.db runs >/dev/null || echo "runs failed" >&2
"$CLI" --db ro/t.db report --out r.md >/dev/null || echo "report failed" >&2
"$CLI" --db ro/t.db predict --sweep "$SWEEP" --gpu h100 --kernel fa3
echo "predict exit $?" >&2
)sh",
                               "SWEEP='" FA4_SOURCE_DIR "/data/sweeps/llama3.json' unshare -rm");
  if (r.code == kCannotSetUp) GTEST_SKIP() << "cannot make a read-only mount here: " << r.err;
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "COUNT(*)\n72\n");
  EXPECT_EQ(r.err.find("failed"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("error: results database ro/t.db is on a read-only file system: the "
                       "commands that only read it (query, runs, report) work; to write, copy it "
                       "to a writable folder and pass the copy with --db\npredict exit 1"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(fs::exists(dir_ / "r.md"));
}

// chmod 444 binds only a user without root's override: the readers run as nobody, in a folder
// nobody cannot write (so no -shm file can be made) and then in one they can.
TEST_F(DatabaseState, AWriteProtectedDatabaseOfAnotherUserCanBeRead) {
  fs::permissions(dir_ / "t.db",
                  fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  const Outcome r = run_script(R"sh(
[ "$(id -u)" = 0 ] || exit 77
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
as_nobody true || exit 77
chmod 755 . && as_nobody "$CLI" --db t.db query "SELECT COUNT(*) FROM runs" --format csv
chmod 777 . && as_nobody "$CLI" --db t.db runs --json >/dev/null && echo "runs ok"
chmod 755 .
"$CLI" --db t.db predict --sweep "$SWEEP" --gpu h100 --kernel fa3
)sh",
                               "SWEEP='" FA4_SOURCE_DIR "/data/sweeps/llama3.json'");
  if (r.code == kCannotSetUp)
    GTEST_SKIP() << "not root, or setpriv cannot drop to nobody: " << r.err;
  EXPECT_EQ(r.out, "COUNT(*)\n3\nruns ok\n") << r.err;
  EXPECT_NE(r.err.find("error: results database t.db is read-only: make it writable (chmod u+w "
                       "t.db) or pass another --db"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.code, 1);
}

}  // namespace
