// fa4-analyze report: its charts beside the markdown, the shipped reference runs by default, and
// without gnuplot the markdown still written, naming each skipped chart and why.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>

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
  // One line per device, folded after the last section: the H200's and the H100's records.
  const std::size_t sources = a.find("<details><summary>Where the ");
  ASSERT_NE(sources, std::string::npos) << a;
  EXPECT_GT(sources, a.find("## 1. Summary"));
  EXPECT_GT(sources, a.rfind("\n## "));
  EXPECT_NE(a.find("\n- NVIDIA H200: ", sources), std::string::npos) << a.substr(sources);
  EXPECT_NE(a.find(", from `data/runs/h200.db`\n", sources), std::string::npos);
  EXPECT_NE(a.find("\n- NVIDIA H100 80GB HBM3: ", sources), std::string::npos);
  EXPECT_NE(a.find(", from `data/runs/h100.db`\n", sources), std::string::npos);
  EXPECT_NE(a.find("### NVIDIA H200"), std::string::npos);
  EXPECT_EQ(b.find("data/runs/"), std::string::npos);
  EXPECT_NE(b.find("Nothing is measured yet"), std::string::npos);
}

// The serving section reads the decode runs of the database it is given: one line saying there
// are none, or each kernel's KV-read bandwidth (two peers imported here, run 2's H200 figures).
TEST_F(ReportCli, ServingSectionShowsTheDatabasesDecodeRunsOrSaysThereAreNone) {
  ::setenv("FA4_GNUPLOT", "/nonexistent/gnuplot", 1);  // the charts do not matter here
  const Outcome none = run("--db t.db report --no-reference-runs --out none.md");
  ASSERT_EQ(none.code, 0) << none.err;
  EXPECT_NE(slurp(dir_ / "none.md")
                .find("Serving: decode's KV-read bandwidth\n\nNo decode run "
                      "is in the results"),
            std::string::npos);
  std::ofstream peers(dir_ / "decode.jsonl");
  for (const auto& [source, kernel, seconds] :
       {std::tuple{"peer:torch-cudnn", "sdpa_cudnn", 0.0002561},
        {"peer:torch-flash", "sdpa_flash", 0.0002583}})
    peers << R"({"schema": "fa4-peer/1", "run": "d2", "device": "NVIDIA H200", "driver": "580", )"
          << R"("cuda": "13.0", "versions": {"torch": "2.11.0", "triton": null, "cudnn": "91900", )"
          << R"("python": "3.12.3"}, "revision": "abc", "host": "gpu-1", )"
          << R"("measured_at": "2026-12-01T02:00:00Z", "source": ")" << source
          << R"(", "kernel": ")" << kernel
          << R"(", "shape": {"batch": 8, "heads_q": 32, "heads_kv": 8, "seqlen_q": 1, )"
          << R"("seqlen_k": 32768, "headdim": 128, "headdim_v": 128, "causal": false, )"
          << R"("dtype": "bf16"}, "pass": "fwd", "status": "ok", "reason": null, "check": null, )"
          << R"("samples_s": [)" << seconds << ", " << seconds << ", " << seconds
          << R"(], "median_s": )" << seconds << R"(, "p25_s": )" << seconds << R"(, "p75_s": )"
          << seconds << R"(, "min_s": )" << seconds << R"(, "max_s": )" << seconds
          << R"(, "tflops": 0, "sm_clock_mhz": 1980})"
          << "\n";
  peers.close();
  const Outcome imported = run("--db t.db import decode.jsonl");
  ASSERT_EQ(imported.code, 0) << imported.err;
  const Outcome o = run("--db t.db report --no-reference-runs --out r.md");
  ::unsetenv("FA4_GNUPLOT");
  ASSERT_EQ(o.code, 0) << o.err;
  const std::string md = slurp(dir_ / "r.md");
  // 8 x 8 KV heads x 32768 keys x 2 x 128 x 2 bytes (and Q, O, LSE) over each median time.
  EXPECT_NE(md.find("| 32/8 hd128 | 1 | 8 | 32768 | 1.07 GB | 4.19 | 4.16 |"), std::string::npos)
      << md.substr(md.find("Serving:"), 3000);
  EXPECT_EQ(md.find("No decode run is in the results"), std::string::npos);
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
