// Black-box tests of what must survive: a predict killed with SIGKILL mid-write leaves the
// database intact with every committed row; two predicts writing one database at once lose no
// rows while a reader running `query` only ever sees whole runs; on a CUDA GPU, a real `bench`
// sweep stopped by SIGINT keeps what it measured and `bench --resume` finishes it (skipped,
// saying so, where there is no device).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>
#include <vector>

#include "cli_runner.hpp"

namespace {

namespace fs = std::filesystem;
using fa4::testing::Outcome;

class Reliability : public fa4::testing::CliTest {
 protected:
  // A sweep of `count` explicit shapes, written in the test's folder.
  void write_sweep(const std::string& name, int count) {
    nlohmann::json shapes = nlohmann::json::array();
    for (int i = 0; i < count; ++i)
      shapes.push_back({{"batch", 1 + i % 4},
                        {"heads", 16},
                        {"seqlen", 256 * (1 + i % 64)},
                        {"headdim", i % 3 == 0 ? 64 : 128},
                        {"causal", i % 2 == 1}});
    std::ofstream(dir_ / name) << nlohmann::json{{"name", name}, {"shapes", shapes}}.dump();
  }
  // Starts `fa4-analyze ARGS` in the test's folder without waiting for it: once (the pid is
  // fa4-analyze's own), or `times` times one after the other, stopping at the first failure.
  pid_t spawn(const std::string& args, const std::string& log, int times = 1) {
    const std::string cli = std::string("'" FA4_CLI "' ") + args;
    const std::string body = times == 1 ? "exec " + cli
                                        : "for i in $(seq " + std::to_string(times) + "); do " +
                                              cli + " || exit 1; done";
    const std::string command =
        "cd '" + dir_.string() + "' && " + body + " >'" + log + ".out' 2>'" + log + ".err'";
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    return pid;
  }
  static int wait_exit(pid_t pid) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  }
  std::string scalar(const std::string& sql) {
    const Outcome r = run("--db t.db query \"" + sql + "\" --format csv");
    EXPECT_EQ(r.code, 0) << r.err;
    const std::size_t newline = r.out.find('\n');  // skip the header line
    std::string value = r.out.substr(newline + 1);
    while (!value.empty() && (value.back() == '\n' || value.back() == '\r')) value.pop_back();
    return value;
  }
};

TEST_F(Reliability, PredictKilledMidWriteKeepsTheDatabaseIntact) {
  write_sweep("small.json", 3);
  ASSERT_EQ(run("--db t.db predict --sweep small.json").code, 0);
  const std::string before = scalar("SELECT COUNT(*) FROM predictions");
  ASSERT_NE(before, "0");
  const std::string checksum_sql =
      "SELECT SUM(time_s * id) || ' ' || SUM(flops) FROM predictions WHERE run_id = 1";
  const std::string checksum = scalar(checksum_sql);

  write_sweep("big.json", 600);  // about 23,000 predictions: over a second of writing
  const pid_t writer = spawn("--db t.db predict --sweep big.json", "big");
  const fs::path wal = dir_ / "t.db-wal";
  const std::uintmax_t baseline = fs::exists(wal) ? fs::file_size(wal) : 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  // Kill it once its transaction has started spilling pages into the WAL file.
  while (std::chrono::steady_clock::now() < deadline &&
         (!fs::exists(wal) || fs::file_size(wal) < baseline + (2u << 20)))
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  ::kill(writer, SIGKILL);
  ASSERT_EQ(wait_exit(writer), -SIGKILL) << "predict finished before it could be killed";

  EXPECT_EQ(scalar("PRAGMA integrity_check"), "ok");
  EXPECT_EQ(scalar("SELECT COUNT(*) FROM predictions"), before);
  EXPECT_EQ(scalar(checksum_sql), checksum);
  EXPECT_EQ(scalar("SELECT COUNT(*) FROM runs"), "1");  // the killed run left nothing behind
  // And the database takes new runs.
  ASSERT_EQ(run("--db t.db predict --sweep small.json").code, 0);
  EXPECT_EQ(scalar("SELECT COUNT(*) FROM runs"), "2");
}

// Processes that open a database that does not exist yet at the same moment race on creating it,
// switching it to WAL and migrating it; SQLite answers some of those collisions with SQLITE_BUSY
// without waiting for the lock. Every writer must wait its turn and succeed.
TEST_F(Reliability, WritersCreatingOneDatabaseTogetherAllSucceed) {
  write_sweep("tiny.json", 1);
  constexpr int kRounds = 16, kWriters = 4;
  // Appended piece by piece: g++ 12 warns (-Wrestrict, a false positive) on "r" + std::string.
  const auto writer = [](int round, int w) {
    std::string name = "r";
    name += std::to_string(round);
    name += 'w';
    name += std::to_string(w);
    return name;
  };
  for (int round = 0; round < kRounds; ++round) {
    const std::string db = "new" + std::to_string(round) + ".db";
    std::vector<pid_t> writers;
    for (int w = 0; w < kWriters; ++w)
      writers.push_back(spawn("--db " + db + " predict --sweep tiny.json", writer(round, w)));
    for (int w = 0; w < kWriters; ++w) {
      const std::string log = writer(round, w) + ".err";
      EXPECT_EQ(wait_exit(writers[std::size_t(w)]), 0) << fa4::testing::slurp(dir_ / log);
    }
    const Outcome runs = run("--db " + db + " query \"SELECT COUNT(*) FROM runs\" --format csv");
    EXPECT_EQ(runs.out, "COUNT(*)\n" + std::to_string(kWriters) + "\n") << runs.err;
  }
}

TEST_F(Reliability, TwoWritersLoseNoRowsAndAReaderSeesWholeRuns) {
  write_sweep("a.json", 40);
  ASSERT_EQ(run("--db t.db predict --sweep a.json").code, 0);
  const int per_run = std::stoi(scalar("SELECT COUNT(*) FROM predictions"));
  fs::remove(dir_ / "t.db");
  fs::remove(dir_ / "t.db-wal");
  fs::remove(dir_ / "t.db-shm");

  // Both start on a database that does not exist yet, then each records three runs.
  const std::string args = "--db t.db predict --sweep a.json";
  const pid_t first = spawn(args, "1", 3);
  const pid_t second = spawn(args, "2", 3);
  std::set<int> seen;
  for (int i = 0; i < 40; ++i) {
    const Outcome r = run("--db t.db query \"SELECT COUNT(*) FROM predictions\" --format csv");
    if (r.code != 0) {
      // Only before the first writer created the database.
      EXPECT_NE(r.err.find("no results database"), std::string::npos) << r.err;
      continue;
    }
    const int count = std::stoi(r.out.substr(r.out.find('\n') + 1));
    EXPECT_EQ(count % per_run, 0) << "a reader saw part of a run: " << count;
    seen.insert(count);
  }
  EXPECT_EQ(wait_exit(first), 0) << fa4::testing::slurp(dir_ / "1.err");
  EXPECT_EQ(wait_exit(second), 0) << fa4::testing::slurp(dir_ / "2.err");
  EXPECT_EQ(scalar("SELECT COUNT(*) FROM runs"), "6");
  EXPECT_EQ(scalar("SELECT COUNT(*) FROM predictions"), std::to_string(6 * per_run));
  EXPECT_EQ(scalar("SELECT MIN(n) || ' ' || MAX(n) FROM (SELECT COUNT(*) AS n FROM predictions "
                   "GROUP BY run_id)"),
            std::to_string(per_run) + " " + std::to_string(per_run));
  EXPECT_EQ(scalar("PRAGMA integrity_check"), "ok");
}

TEST_F(Reliability, BenchStoppedBySigintKeepsItsRowsAndResumeFinishesTheSweep) {
  if (run("kernels").out.find("no CUDA") != std::string::npos)
    GTEST_SKIP() << "no CUDA device here: a real bench cannot be interrupted";
  constexpr int kShapes = 24;
  write_sweep("gpu.json", kShapes);
  const pid_t bench = spawn("--db t.db bench --kernel fa2 --sweep gpu.json", "bench");
  // Interrupt once two measurements are committed (each one commits as it completes).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  int recorded = 0;
  while (std::chrono::steady_clock::now() < deadline && recorded < 2) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const Outcome r = run("--db t.db query \"SELECT COUNT(*) FROM measurements\" --format csv");
    if (r.code == 0) recorded = std::stoi(r.out.substr(r.out.find('\n') + 1));
  }
  ::kill(bench, SIGINT);
  const int code = wait_exit(bench);
  const std::string err = fa4::testing::slurp(dir_ / "bench.err");
  ASSERT_EQ(code, 130) << "bench did not stop as interrupted (exit " << code << "): " << err;
  EXPECT_NE(err.find("stopped by SIGINT"), std::string::npos) << err;
  const int kept = std::stoi(scalar("SELECT COUNT(*) FROM measurements"));
  EXPECT_GE(kept, 2);
  EXPECT_LT(kept, kShapes) << "the sweep finished before SIGINT reached it";
  EXPECT_EQ(scalar("PRAGMA integrity_check"), "ok");
  EXPECT_EQ(scalar("SELECT COUNT(*) FROM measurements WHERE status = 'ok'"), std::to_string(kept));

  const Outcome resumed = run("--db t.db bench --kernel fa2 --sweep gpu.json --resume");
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_NE(resumed.out.find("--resume: " + std::to_string(kept) + " of " +
                             std::to_string(kShapes) + " configurations were already recorded"),
            std::string::npos)
      << resumed.out;
  EXPECT_EQ(scalar("SELECT COUNT(*) FROM measurements"), std::to_string(kShapes));
  EXPECT_EQ(scalar("SELECT COUNT(DISTINCT batch || 'x' || seqlen_q || 'x' || headdim || 'x' || "
                   "causal) FROM measurements"),
            std::to_string(kShapes));
  EXPECT_EQ(scalar("PRAGMA integrity_check"), "ok");
}

}  // namespace
