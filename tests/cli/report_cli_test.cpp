// fa4-analyze report: its charts beside the markdown, the shipped reference runs by default, and
// without gnuplot the markdown still written, naming each skipped chart and why.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli_runner.hpp"

namespace fa4::testing {
namespace {

class ReportCli : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    const Outcome p =
        run("--db t.db predict --gpu h200,b200 --kernel fa2,fa3,fa4 --sweep '" FA4_SOURCE_DIR
            "/data/sweeps/ladder-h128.json'");
    ASSERT_EQ(p.code, 0) << p.err;
  }
};

TEST_F(ReportCli, WithoutGnuplotTheMarkdownIsWrittenAndNamesEachSkippedChart) {
  ::setenv("FA4_GNUPLOT", "/nonexistent/gnuplot", 1);
  const Outcome o = run("--db t.db report --out out/r.md");
  ::unsetenv("FA4_GNUPLOT");
  ASSERT_EQ(o.code, 0) << o.err;
  const std::string md = slurp(dir_ / "out/r.md");
  EXPECT_NE(md.find("- Charts: none drawn (gnuplot ('/nonexistent/gnuplot') could not be run"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("*Chart \"Roofline of attention on h200 (bf16)\" skipped: "),
            std::string::npos);
  EXPECT_EQ(md.find("![", 0), std::string::npos) << "no image is embedded";
  EXPECT_TRUE(std::filesystem::exists(dir_ / "out/r/roofline-h200.gp"));
  EXPECT_TRUE(std::filesystem::exists(dir_ / "out/r/roofline-h200.dat"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "out/r/roofline-h200.svg"));
}

TEST_F(ReportCli, ShowsTheReferenceRunsUnlessToldNot) {
  ::setenv("FA4_GNUPLOT", "/nonexistent/gnuplot", 1);  // the charts do not matter here
  const Outcome with = run("--db t.db report --out with.md");
  const Outcome without = run("--db t.db report --no-reference-runs --out without.md");
  ::unsetenv("FA4_GNUPLOT");
  ASSERT_EQ(with.code, 0) << with.err;
  ASSERT_EQ(without.code, 0) << without.err;
  const std::string a = slurp(dir_ / "with.md"), b = slurp(dir_ / "without.md");
  EXPECT_NE(a.find("from `data/runs/2026-11-23-h200-final.db`: NVIDIA H200"), std::string::npos);
  EXPECT_NE(a.find("### NVIDIA H200"), std::string::npos);
  EXPECT_EQ(b.find("data/runs/"), std::string::npos);
  EXPECT_NE(b.find("Nothing is measured yet"), std::string::npos);
}

// A report killed before its cleanup leaves its private copies of the reference runs in the temp
// folder; the next report removes those whose process is gone and leaves a running one's.
TEST_F(ReportCli, RemovesTheCopiesThatAKilledReportLeftBehind) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) ::_exit(0);
  ASSERT_EQ(::waitpid(child, nullptr, 0), child);  // a process id no process has now
  const auto temp = std::filesystem::temp_directory_path();
  const std::string tag = "-fa4-report-cli-test.db";
  const auto gone = temp / ("fa4-reference-" + std::to_string(child) + tag);
  const auto alive = temp / ("fa4-reference-" + std::to_string(::getpid()) + tag);
  for (const auto& file : {gone, std::filesystem::path(gone.string() + "-wal"), alive})
    std::ofstream(file) << "a copy";
  ::setenv("FA4_GNUPLOT", "/nonexistent/gnuplot", 1);
  const Outcome o = run("--db t.db report --out r.md");
  ::unsetenv("FA4_GNUPLOT");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_FALSE(std::filesystem::exists(gone));
  EXPECT_FALSE(std::filesystem::exists(gone.string() + "-wal"));
  EXPECT_TRUE(std::filesystem::exists(alive)) << "a running process's copy stays";
  std::filesystem::remove(alive);
}

}  // namespace
}  // namespace fa4::testing
