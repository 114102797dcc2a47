// fa4-analyze roofline: the roofs and points it prints (JSON and CSV, the same numbers), where the
// regimes land, the measured points from the shipped reference runs, the chart's files, and its
// refusals.
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.hpp"

namespace fa4::testing {
namespace {

using nlohmann::json;

class RooflineCli : public CliTest {};

double roof(const json& doc, const std::string& name) {
  for (const json& r : doc["roofs"])
    if (r["name"] == name) return r["tflops"].get<double>();
  ADD_FAILURE() << "no roof " << name << " in " << doc["roofs"].dump();
  return 0;
}

TEST_F(RooflineCli, B200ForwardIsExpBoundAtTheTensorCorePeakAndRegimesLandApart) {
  const Outcome o = run("roofline --gpu b200 --kernel fa4 --json");
  ASSERT_EQ(o.code, 0) << o.err;
  const json doc = json::parse(o.out);
  const double peak = roof(doc, "dense bf16 peak");
  EXPECT_NEAR(peak, 8192.0 * 148 * 1.85e9 / 1e12, 30);  // FA4 §2.2: 2.25 PFLOP/s
  // FA4's Table 1: at hd128 the MUFU exp2 takes as many cycles as the MMA.
  EXPECT_NEAR(roof(doc, "exp2 on MUFU, hd128"), peak, 0.01 * peak);
  const double ridge = peak / doc["hbm_tb_s"].get<double>();
  ASSERT_EQ(doc["points"].size(), 4u);  // the reference shapes: one per regime
  for (const json& p : doc["points"]) {
    const double x = p["flop_per_byte"].get<double>();
    if (p["regime"] == "decode")
      EXPECT_LT(x, ridge) << p.dump();
    else
      EXPECT_GT(x, ridge) << p.dump();
    EXPECT_LE(p["tflops"].get<double>(), peak) << p.dump();
  }
}

TEST_F(RooflineCli, CsvHoldsTheJsonsPoints) {
  const Outcome j = run("roofline --gpu h100 --kernel fa2,fa3 --json");
  const Outcome c = run("roofline --gpu h100 --kernel fa2,fa3 --csv");
  ASSERT_EQ(j.code, 0) << j.err;
  ASSERT_EQ(c.code, 0) << c.err;
  const json doc = json::parse(j.out);
  std::istringstream lines(c.out);
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line.rfind("kernel,origin,regime,", 0), 0u) << line;
  std::size_t n = 0;
  for (; std::getline(lines, line); ++n) {
    ASSERT_LT(n, doc["points"].size());
    const json& p = doc["points"][n];
    EXPECT_EQ(line.rfind(p["kernel"].get<std::string>() + ",predicted,", 0), 0u) << line;
  }
  EXPECT_EQ(n, doc["points"].size());
}

TEST_F(RooflineCli, MeasuredPointsComeFromTheReferenceRuns) {
  const Outcome o = run("roofline --gpu h200 --measured --headdim 128 --csv");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find(",peer:torch-cudnn,"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("fa3,ours,prefill"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("NVIDIA H200, run "), std::string::npos) << o.out;
  const Outcome without = run("roofline --gpu h200 --measured --no-reference-runs --csv");
  ASSERT_EQ(without.code, 0) << without.err;
  EXPECT_EQ(without.out.find(",ours,"), std::string::npos) << without.out;
}

TEST_F(RooflineCli, WritesTheSvgWithItsScriptAndData) {
  if (std::system("gnuplot --version >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "skipped: gnuplot is not installed (scripts/setup.sh installs gnuplot-nox)";
  const Outcome o = run("roofline --gpu b300 --out charts/b300.svg");
  ASSERT_EQ(o.code, 0) << o.err;
  for (const char* file : {"charts/b300.svg", "charts/b300.gp", "charts/b300.dat"})
    EXPECT_TRUE(std::filesystem::exists(dir_ / file)) << file;
  EXPECT_NE(slurp(dir_ / "charts/b300.svg").find("exp2 on MUFU, hd128"), std::string::npos);
}

TEST_F(RooflineCli, WithoutGnuplotTheScriptAndDataStayAndTheErrorSaysHowToInstallIt) {
  ::setenv("FA4_GNUPLOT", "/nonexistent/gnuplot", 1);
  const Outcome o = run("roofline --gpu b200 --out b200.svg");
  ::unsetenv("FA4_GNUPLOT");
  EXPECT_EQ(o.code, 1);
  EXPECT_NE(o.err.find("gnuplot-nox"), std::string::npos) << o.err;
  EXPECT_TRUE(std::filesystem::exists(dir_ / "b200.gp"));
  EXPECT_TRUE(std::filesystem::exists(dir_ / "b200.dat"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "b200.svg"));
}

// With every kernel, the decode shape is drawn as our decode kernel too, on Hopper, and it sits
// near the HBM slope (at least 80% of the bandwidth) where the padded prefill kernels sit far
// below it; on Blackwell the model prices no decode kernel, so none is drawn.
TEST_F(RooflineCli, DecodeIsDrawnAsOurDecodeKernelOnTheHbmSlope) {
  const Outcome h200 = run("roofline --gpu h200 --json");
  ASSERT_EQ(h200.code, 0) << h200.err;
  const json doc = json::parse(h200.out);
  int decode_kernels = 0;
  for (const json& p : doc["points"]) {
    if (p["regime"] != "decode") continue;
    const double tb_s = p["tflops"].get<double>() / p["flop_per_byte"].get<double>();
    if (p["kernel"] == "fa3_decode") {
      ++decode_kernels;
      EXPECT_GE(tb_s, 0.8 * doc["hbm_tb_s"].get<double>()) << p.dump();
    } else {
      EXPECT_LT(tb_s, 0.5 * doc["hbm_tb_s"].get<double>()) << p.dump();
    }
  }
  EXPECT_EQ(decode_kernels, 1);
  EXPECT_EQ(run("roofline --gpu b200 --json").out.find("fa3_decode"), std::string::npos);
  EXPECT_EQ(run("roofline --gpu h200 --kernel fa3 --json").out.find("fa3_decode"),
            std::string::npos);
}

TEST_F(RooflineCli, RefusesWhatItCannotDraw) {
  const auto refused = [&](const std::string& args, const std::string& words) {
    const Outcome o = run(args);
    EXPECT_EQ(o.code, 1) << args;
    EXPECT_NE(o.err.find(words), std::string::npos) << args << ": " << o.err;
  };
  refused("roofline --gpu b200", "--out FILE.svg");
  refused("roofline --gpu b200 --out chart.png", "name an .svg file");
  refused("roofline --gpu b200 --kernel fa3 --json", "fa3 is built on Hopper");
  refused("roofline --gpu h200 --seqlen 4096 --sweep x.json --json", "not both");
  refused("roofline --gpu z900 --json", "z900");
}

}  // namespace
}  // namespace fa4::testing
