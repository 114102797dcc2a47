// `fa4-analyze bench --kernel A,B --ab` on a GPU: two forward kernels, two backward kernels and,
// where python3 has PyTorch, a kernel against a peer, each timed in alternating rounds on a small
// shape; then the rows recorded (every sample with its round, the statistics of the rounds'
// medians) and compare's verdict on the run, which must be the one bench printed. Without a
// usable CUDA device (or a CUDA build), or for the peer without PyTorch, it skips, saying so.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.hpp"

namespace {

using fa4::testing::Outcome;

class BenchAbGpuCli : public fa4::testing::CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    const Outcome kernels = run("kernels");
    if (kernels.out.find("no CUDA") != std::string::npos)
      GTEST_SKIP() << "skipped: no CUDA device or no CUDA build here (" << kernels.out.substr(0, 80)
                   << "): bench --ab needs a GPU";
  }
  std::string cell(const std::string& sql) {
    const Outcome r = run("query \"" + sql + "\" --format csv");
    EXPECT_EQ(r.code, 0) << r.err;
    const std::size_t newline = r.out.find('\n');
    if (newline == std::string::npos) return "";
    std::string value = r.out.substr(newline + 1);
    while (!value.empty() && (value.back() == '\n' || value.back() == '\r')) value.pop_back();
    return value;
  }
  // bench --ab of `a` against `b`, then the checks every run must pass; returns bench's output.
  std::string ab(const std::string& a, const std::string& b, const std::string& more) {
    const Outcome r = run("bench --kernel " + a + "," + b + " --ab --rounds 6 " + more);
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("A/B: " + a + " (A) against " + b + " (B), 6 rounds a shape"),
              std::string::npos)
        << r.out;
    // One row per side, all of this run.
    EXPECT_EQ(cell("SELECT COUNT(*) FROM measurements WHERE kernel IN ('" + a + "', '" + b + "')"),
              "2");
    // An ok side: 6 rounds, every sample with its round, its median the rounds' median.
    EXPECT_EQ(cell("SELECT COUNT(*) FROM measurements m WHERE status = 'ok' AND (SELECT "
                   "COUNT(DISTINCT round_index) FROM samples s WHERE s.measurement_id = m.id) "
                   "<> 6"),
              "0");
    EXPECT_EQ(cell("SELECT COUNT(*) FROM samples WHERE round_index IS NULL"), "0");
    // compare on the recorded run gives the verdict bench printed.
    const Outcome c = run("compare 1 --kernel " + a + " --against " + b + " --threshold 2% --json");
    EXPECT_EQ(c.code, 0) << c.err;
    const auto json = nlohmann::json::parse(c.out, nullptr, false);
    EXPECT_FALSE(json.is_discarded()) << c.out;
    if (!json.is_discarded() && json["rows"].size() == 1) {
      const std::string verdict = json["rows"][0]["verdict"].get<std::string>();
      EXPECT_NE(r.out.find(b + " against " + a + ": " + verdict), std::string::npos)
          << verdict << "\n"
          << r.out;
      EXPECT_EQ(json["rows"][0]["baseline_n"], 6);
    }
    return r.out;
  }
};

TEST_F(BenchAbGpuCli, TwoForwardKernelsInAlternatingRounds) {
  const std::string out = ab("fa2", "naive", "--batch 1 --heads 8 --seqlen 2048 --headdim 64");
  EXPECT_NE(out.find("both kernels on the same inputs"), std::string::npos) << out;
  EXPECT_EQ(cell("SELECT COUNT(*) FROM measurements WHERE status = 'ok'"), "2");
  // fa2 is far faster than naive's three launches at this shape.
  EXPECT_NE(out.find("naive against fa2: SLOWER"), std::string::npos) << out;
}

TEST_F(BenchAbGpuCli, TwoBackwardKernelsInAlternatingRounds) {
  const std::string out =
      ab("fa2_bwd", "fa3_bwd", "--pass bwd --batch 1 --heads 4 --seqlen 384 --headdim 128");
  EXPECT_NE(out.find("O and LSE come from one untimed forward"), std::string::npos) << out;
  EXPECT_EQ(cell("SELECT COUNT(*) FROM measurements WHERE pass = 'bwd' AND kernel = 'fa2_bwd' AND "
                 "status = 'ok'"),
            "1");
  // fa3_bwd: timed on Hopper, else skipped with the reason (and the verdict UNSURE).
  EXPECT_EQ(cell("SELECT COUNT(*) FROM measurements WHERE kernel = 'fa3_bwd' AND (status = 'ok' "
                 "OR (status = 'skipped' AND reason LIKE '%compute capability 9.0%'))"),
            "1");
}

TEST_F(BenchAbGpuCli, AKernelAgainstAPeerInAlternatingRounds) {
  const std::string check = std::string("python3 '") + FA4_SOURCE_DIR +
                            "/scripts/peers/torch_peers.py' --check-environment >/dev/null 2>&1";
  if (std::system(check.c_str()) != 0)
    GTEST_SKIP() << "skipped: python3 has no PyTorch with a CUDA device (torch_peers.py "
                    "--check-environment): the peer side of bench --ab needs it";
  const std::string out = ab("fa2", "sdpa_flash", "--batch 1 --heads 4 --seqlen 1024 --headdim 64");
  EXPECT_NE(out.find("the peer's inputs drawn by PyTorch"), std::string::npos) << out;
  EXPECT_EQ(cell("SELECT source FROM measurements WHERE kernel = 'sdpa_flash'"),
            "peer:torch-flash");
}

}  // namespace
