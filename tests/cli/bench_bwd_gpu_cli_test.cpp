// `fa4-analyze bench --pass bwd` on a GPU: a tiny sweep (hd64 and hd128, seqlen 128 and 384,
// causal and not) for fa2_bwd and fa3_bwd, then the recorded rows: pass bwd, checked and timed,
// every sample kept, each linked to a backward prediction of the kernel's model algorithm whose
// FLOPs (2.5x forward) give the measured TFLOP/s. Without a usable CUDA device (or a CUDA build) it
// skips, saying so.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "cli_runner.hpp"

namespace {

using fa4::testing::Outcome;

class BenchBwdGpuCli : public fa4::testing::CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    const Outcome kernels = run("kernels");
    if (kernels.out.find("no CUDA") != std::string::npos)
      GTEST_SKIP() << "skipped: no CUDA device or no CUDA build here (" << kernels.out.substr(0, 80)
                   << "): bench --pass bwd needs a GPU";
  }
  // One CSV cell (the header line dropped) of a query on the test's database.
  std::string cell(const std::string& sql) {
    const Outcome r = run("query \"" + sql + "\" --format csv");
    EXPECT_EQ(r.code, 0) << r.err;
    const std::size_t newline = r.out.find('\n');
    if (newline == std::string::npos) return "";
    std::string value = r.out.substr(newline + 1);
    while (!value.empty() && (value.back() == '\n' || value.back() == '\r')) value.pop_back();
    return value;
  }
};

TEST_F(BenchBwdGpuCli, RecordsCheckedBackwardMeasurementsBesideBackwardPredictions) {
  std::ofstream(dir_ / "tiny.json")
      << R"({"name": "tiny-bwd", "grid": {"total_tokens": 768, "hidden": 256,
             "headdims": [64, 128], "seqlens": [128, 384], "causal": [false, true],
             "dtype": "bf16"}})";
  const Outcome r = run("bench --pass bwd --kernel fa2_bwd,fa3_bwd --sweep tiny.json");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("O and LSE"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fa2_bwd (O, LSE from fa"), std::string::npos) << r.out;

  // 2 head dims x 2 seqlens x 2 masks x 2 kernels, all of pass bwd.
  EXPECT_EQ(cell("SELECT COUNT(*) FROM measurements WHERE pass = 'bwd' AND source = 'ours'"), "16");
  EXPECT_EQ(cell("SELECT COUNT(*) FROM measurements WHERE pass <> 'bwd'"), "0");
  // fa2_bwd runs on every GPU from sm_80: every row checked and timed.
  EXPECT_EQ(cell("SELECT COUNT(*) FROM measurements WHERE kernel = 'fa2_bwd' AND status = 'ok'"),
            "8");
  // fa3_bwd: timed on Hopper, else skipped with the reason (compute capability 9.0), never failed.
  EXPECT_EQ(cell("SELECT COUNT(*) FROM measurements WHERE kernel = 'fa3_bwd' AND (status = 'ok' "
                 "OR (status = 'skipped' AND reason LIKE '%compute capability 9.0%'))"),
            "8");
  // Every ok row: samples kept, backward TFLOP/s from the median, a backward prediction of the
  // kernel's algorithm.
  EXPECT_EQ(cell("SELECT COUNT(*) FROM measurements m WHERE status = 'ok' AND (SELECT COUNT(*) "
                 "FROM samples s WHERE s.measurement_id = m.id) < 3"),
            "0");
  EXPECT_EQ(cell("SELECT COUNT(*) FROM v_measurements WHERE status = 'ok' AND (predicted_algorithm "
                 "IS NULL OR predicted_algorithm <> substr(kernel, 1, 3))"),
            "0");
  EXPECT_EQ(cell("SELECT COUNT(*) FROM measurements m JOIN predictions p ON p.id = m.prediction_id "
                 "WHERE p.pass <> 'bwd' OR abs(m.tflops * m.time_median_s * 1e12 / p.flops - 1) > "
                 "1e-6"),
            "0");
}

}  // namespace
