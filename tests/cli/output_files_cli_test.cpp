// Black-box tests of the files the tool writes (report --out): a report the user already has stays
// whole when the new one cannot be written (a full disk, a SIGKILL mid-write), the error says what
// happened, and "-" is standard output. The full disk is a small tmpfs in a private mount namespace
// (unshare -rm); where the machine does not allow one, that test says skipped.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <string_view>
#include <thread>

#include "cli_runner.hpp"

namespace {

namespace fs = std::filesystem;
using fa4::testing::kCannotSetUp;
using fa4::testing::Outcome;
using fa4::testing::slurp;

// The last line that is not empty, with the newlines after it.
// The last line but a closing "</details>" (the report ends with its sources folded: their last
// line, which names the database, tells one report from another).
std::string last_line_of(std::string text) {
  text.resize(text.find_last_not_of('\n') + 1);  // npos + 1: empty
  if (text.ends_with("</details>"))
    text.resize(text.size() - std::string_view("</details>").size());
  const std::size_t end = text.find_last_not_of('\n');
  if (end == std::string::npos) return "";
  const std::size_t start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1);
}

class OutputFiles : public fa4::testing::CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    copy_shipped_db("2026-11-23-h200-final.db", "t.db");
  }
};

TEST_F(OutputFiles, ReportToDashGoesToStandardOutput) {
  const Outcome r = run("--db t.db report --out -");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("# ", 0), 0u) << r.out.substr(0, 200);
  EXPECT_NE(r.err.find("wrote -: "), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "-"));
}

// A full disk: the new report (its charts, then its markdown) cannot be written beside the old
// one. The error says "disk full", the old report is whole, and no temporary file is left.
TEST_F(OutputFiles, ReportOnAFullDiskSaysSoAndKeepsTheOldReport) {
  const Outcome r = run_script(R"sh(
mkdir full && mount -t tmpfs -o size=1m tmpfs full || exit 77
printf 'my old report\n' > full/r.md
dd if=/dev/zero of=full/filler bs=4k 2>/dev/null
truncate -s -16K full/filler
"$CLI" --db t.db report --out full/r.md
echo "exit $?" >&2
[ "$(cat full/r.md)" = "my old report" ] && echo "old report whole" >&2
find full -name '*.tmp-*' >&2
)sh",
                               "unshare -rm");
  if (r.code == kCannotSetUp) GTEST_SKIP() << "cannot mount a tmpfs here (unshare -rm): " << r.err;
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err.rfind("error: cannot write full/", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(": disk full (no space left on the device)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("exit 1\nold report whole\n"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(".tmp-"), std::string::npos) << "a stray temporary file: " << r.err;
}

// SIGKILL at random moments of `report --out r.md` over an existing, different report: after each,
// r.md is the old report, or the new one whole (same first and last line), never a part.
TEST_F(OutputFiles, ReportKilledAtAnyMomentLeavesAWholeReport) {
  // The markdown is what this test watches: no gnuplot (it would take most of each run's time).
  ::setenv("FA4_GNUPLOT", "/nonexistent", 1);
  copy_shipped_db("2026-11-23-h200.db", "old.db");
  ASSERT_EQ(run("--db old.db report --out old.md").code, 0);
  const std::string old_report = slurp(dir_ / "old.md");
  const auto started = std::chrono::steady_clock::now();
  ASSERT_EQ(run("--db t.db report --out new.md").code, 0);
  const auto one_run = std::chrono::steady_clock::now() - started;
  const std::string new_report = slurp(dir_ / "new.md");
  ASSERT_NE(old_report, new_report);
  const std::string first_line = new_report.substr(0, new_report.find('\n'));
  const std::string last_line = last_line_of(new_report);
  ASSERT_GT(last_line.size(), 20u) << last_line;

  std::mt19937 random(20261123);
  int replaced = 0;
  for (int attempt = 0; attempt < 25; ++attempt) {
    fs::copy_file(dir_ / "old.md", dir_ / "r.md", fs::copy_options::overwrite_existing);
    const pid_t pid = ::fork();
    if (pid == 0) {
      if (::chdir(dir_.c_str()) != 0 || !std::freopen("/dev/null", "w", stdout)) ::_exit(127);
      ::execl(FA4_CLI, FA4_CLI, "--db", "t.db", "report", "--out", "r.md",
              static_cast<char*>(nullptr));
      ::_exit(127);
    }
    std::this_thread::sleep_for(one_run * std::uniform_real_distribution<>(0.3, 1.3)(random));
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    const std::string now = slurp(dir_ / "r.md");
    if (now == old_report) continue;
    ++replaced;
    EXPECT_EQ(now.substr(0, now.find('\n')), first_line) << "attempt " << attempt;
    EXPECT_EQ(last_line_of(now), last_line) << "attempt " << attempt << ": " << now.size();
  }
  std::printf("%d of 25 killed runs had replaced the report\n", replaced);
  ::unsetenv("FA4_GNUPLOT");
}

}  // namespace
