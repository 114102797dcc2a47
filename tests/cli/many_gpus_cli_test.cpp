// Black-box tests of several GPUs in one command (`--gpu h100,h200,b200`, `--gpu all`) in model,
// whatif and roofline: one table with a column per GPU, the line on why each differs from the
// first, CSV and JSON with a row or object per GPU, the GPUs the model refuses listed, and the
// refusal of a bad list naming the bad entry and the known names.
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_runner.hpp"

namespace {

using fa4::testing::Outcome;
using fa4::testing::slurp;

class ManyGpus : public fa4::testing::CliTest {
 protected:
  // The lines of `text`.
  static std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }
  // The line of `text` that starts with `start`, or "".
  static std::string line_starting(const std::string& text, const std::string& start) {
    for (const std::string& line : lines(text))
      if (line.rfind(start, 0) == 0) return line;
    return "";
  }
};

TEST_F(ManyGpus, ModelPrintsOneColumnPerGpuInTheOrderGiven) {
  const Outcome r = run("model --gpu h100,h200,b200");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("fa4 fwd b2 h16 s8192 d128 bf16 on 3 GPUs\n", 0), 0u) << r.out;
  const std::string header = lines(r.out).at(2);
  const auto h100 = header.find("h100-sxm"), h200 = header.find("h200"), b200 = header.find("b200");
  ASSERT_NE(b200, std::string::npos) << header;
  EXPECT_LT(h100, h200);
  EXPECT_LT(h200, b200);
  for (const char* row : {"time (ms)", "TFLOP/s", "share of peak", "bound by", "tile bottleneck"})
    EXPECT_NE(line_starting(r.out, row), "") << row << " missing:\n" << r.out;
}

// H200 has H100's SMs, clock and MMA rate but a lower measured GEMM share: its MMA-bound forward
// predicts slower, and the line says why.
TEST_F(ManyGpus, ModelSaysWhyH200PredictsBelowH100) {
  const Outcome r = run("model --gpu h100,h200");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string why = line_starting(r.out, "h200 against h100-sxm: ");
  ASSERT_NE(why, "") << r.out;
  EXPECT_NE(why.find("both bound by mma"), std::string::npos) << why;
  EXPECT_NE(why.find("measured GEMM / peak (0.79 against 0.807)"), std::string::npos) << why;
  EXPECT_EQ(why.find("SMs ("), std::string::npos) << "the SMs are the same: " << why;
}

TEST_F(ManyGpus, ModelCsvHasARowPerGpuThatAgreesWithOneGpuJson) {
  const Outcome csv = run("model --gpu h100,b200 --csv");
  ASSERT_EQ(csv.code, 0) << csv.err;
  const auto rows = lines(csv.out);
  ASSERT_EQ(rows.size(), 3u) << csv.out;
  EXPECT_EQ(rows[0].rfind("gpu,kernel,pass,problem,tile,", 0), 0u) << rows[0];
  EXPECT_NE(rows[0].find(",time_ms,tflops,fraction_of_peak,bottleneck,why"), std::string::npos);
  EXPECT_EQ(rows[1].rfind("h100-sxm,fa4,fwd,", 0), 0u) << rows[1];
  EXPECT_EQ(rows[2].rfind("b200,fa4,fwd,", 0), 0u) << rows[2];
  EXPECT_NE(rows[2].find("b200 against h100-sxm: "), std::string::npos) << rows[2];
  const Outcome one = run("model --gpu b200 --json");
  ASSERT_EQ(one.code, 0) << one.err;
  const double tflops = nlohmann::json::parse(one.out)["predicted"]["tflops"].get<double>();
  const Outcome both = run("model --gpu h100,b200 --json");
  ASSERT_EQ(both.code, 0) << both.err;
  const auto j = nlohmann::json::parse(both.out);
  ASSERT_EQ(j["gpus"].size(), 2u);
  EXPECT_EQ(j["gpus"][1]["gpu"], "b200");
  EXPECT_DOUBLE_EQ(j["gpus"][1]["predicted"]["tflops"].get<double>(), tflops);
  ASSERT_EQ(j["differences"].size(), 1u);
  EXPECT_EQ(j["differences"][0]["against"], "h100-sxm");
}

TEST_F(ManyGpus, OneGpuCsvIsOneRow) {
  const Outcome r = run("model --gpu h200 --kernel fa3 --csv");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto rows = lines(r.out);
  ASSERT_EQ(rows.size(), 2u) << r.out;
  EXPECT_EQ(rows[1].rfind("h200,fa3,fwd,", 0), 0u) << rows[1];
  EXPECT_EQ(rows[1].back(), ',') << "no other GPU, no why: " << rows[1];
}

// fa4 has no Ampere kernel and --two-cta no Hopper one: those GPUs are listed as refused with why,
// the rest predicted.
TEST_F(ManyGpus, AllListsTheGpusTheModelRefuses) {
  const Outcome r = run("model --gpu all --pass bwd --two-cta");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("a100-sxm: refused: fa4 needs Hopper"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("h100-sxm: refused: --two-cta"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("on 4 GPUs"), std::string::npos) << r.out;
  const Outcome json = run("model --gpu all --pass bwd --two-cta --json");
  ASSERT_EQ(json.code, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["gpus"].size(), 4u);
  EXPECT_EQ(j["refused"].size(), 3u);
  const Outcome none = run("model --gpu a100,h100 --pass bwd --two-cta");
  expect_refusal(none, "the model refused every GPU of --gpu a100,h100: a100-sxm: ");
}

TEST_F(ManyGpus, ABadListNamesTheBadEntryAndTheKnownNames) {
  for (const std::string command : {"model", "whatif --scale mufu=2", "roofline --csv"}) {
    const Outcome unknown = run(command + " --gpu h100,h2000,b200");
    expect_refusal(unknown, "--gpu h100,h2000,b200: unknown GPU 'h2000': use one of a100-sxm, "
                            "h100-sxm, h200, b200");
    const Outcome empty = run(command + " --gpu h100,,b200");
    expect_refusal(empty, "--gpu 'h100,,b200': an empty entry");
    const Outcome twice = run(command + " --gpu h100,h100-sxm");
    expect_refusal(twice, "'h100-sxm' names h100-sxm, named already; name each GPU once");
    EXPECT_EQ(unknown.out + empty.out + twice.out, "") << command;
  }
}

TEST_F(ManyGpus, WhatifPutsTheGpusSideBySide) {
  const Outcome r = run("whatif --gpu h100,b200 --scale mufu=2 --sensitivity");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("fa4 fwd b2 h16 s8192 d128 bf16 with mufu=2 on 2 GPUs\n", 0), 0u) << r.out;
  for (const char* row : {"time (ms)", "what-if time (ms)", "speedup", "bound by", "mma 10% faster"})
    EXPECT_NE(line_starting(r.out, row), "") << row << " missing:\n" << r.out;
  const Outcome one = run("whatif --gpu b200 --scale mufu=2 --json");
  ASSERT_EQ(one.code, 0) << one.err;
  const auto single = nlohmann::json::parse(one.out);
  const Outcome both = run("whatif --gpu h100,b200 --scale mufu=2 --json");
  ASSERT_EQ(both.code, 0) << both.err;
  const auto j = nlohmann::json::parse(both.out);
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["gpu"], "h100-sxm");
  EXPECT_EQ(j[1], single) << "each GPU's object is what that GPU alone prints";
}

TEST_F(ManyGpus, WhatifCsvHasTheBaseTheWhatIfAndEachUnit) {
  const Outcome r = run("whatif --gpu h200,b200 --scale mufu=2 --sensitivity --csv");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto rows = lines(r.out);
  ASSERT_EQ(rows.size(), 1u + 2 * (2 + 7)) << r.out;
  EXPECT_EQ(rows[0], "gpu,case,time_ms,tflops,tile_bottleneck,bottleneck,speedup");
  EXPECT_EQ(rows[1].rfind("h200,base,", 0), 0u) << rows[1];
  EXPECT_EQ(rows[1].substr(rows[1].size() - 4), ",1.0") << rows[1];
  EXPECT_EQ(rows[2].rfind("h200,what-if,", 0), 0u) << rows[2];
  EXPECT_EQ(rows[10].rfind("b200,base,", 0), 0u) << rows[10];
  const Outcome a100 = run("whatif --gpu a100,h100 --scale mufu=2 --csv");
  ASSERT_EQ(a100.code, 0) << a100.err;
  EXPECT_NE(a100.err.find("whatif: a100-sxm refused: fa4 needs Hopper"), std::string::npos)
      << a100.err;
  EXPECT_EQ(lines(a100.out).size(), 3u) << a100.out;
  expect_refusal(run("whatif --gpu h100 --scale mufu=2 --csv --json"),
                 "choose one of --json and --csv");
}

TEST_F(ManyGpus, RooflineCsvAndJsonHaveEveryGpu) {
  const Outcome one = run("roofline --gpu b200 --csv");
  ASSERT_EQ(one.code, 0) << one.err;
  const Outcome r = run("roofline --gpu h100,b200 --csv");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto rows = lines(r.out);
  const auto single = lines(one.out);
  EXPECT_EQ(rows[0], "gpu," + single[0]);
  std::size_t b200 = 0;
  for (const std::string& row : rows)
    if (row.rfind("b200,", 0) == 0) {
      EXPECT_EQ(row, "b200," + single.at(1 + b200++));
    }
  EXPECT_EQ(b200, single.size() - 1) << r.out;
  const Outcome json = run("roofline --gpu h100,b200 --json");
  ASSERT_EQ(json.code, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["gpu"], "h100-sxm");
  EXPECT_EQ(j[1], nlohmann::json::parse(run("roofline --gpu b200 --json").out));
}

// fa4 runs on neither A100: its panel is left out with a note, the others drawn.
TEST_F(ManyGpus, RooflineLeavesOutAGpuWithoutTheKernel) {
  const Outcome r = run("roofline --gpu all --kernel fa4 --csv");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("roofline: fa4 left out of a100-sxm: "), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("\na100-sxm,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\ngb300,fa4,"), std::string::npos) << r.out;
  expect_refusal(run("roofline --gpu a100 --kernel fa4 --csv"), "--kernel fa4: fa4 needs Hopper");
}

TEST_F(ManyGpus, RooflineDrawsAPanelPerGpu) {
  const Outcome r = run("roofline --gpu h100,h200,b200 --out r.svg");
  // Without gnuplot the script and data are written and the command says so.
  ASSERT_TRUE(r.code == 0 || r.err.find("but not the SVG") != std::string::npos) << r.err;
  const std::string script = slurp(dir_ / "r.gp");
  for (const char* title : {"(h100-sxm), fwd", "(h200), fwd", "(b200), fwd"})
    EXPECT_NE(script.find(title), std::string::npos) << title;
  EXPECT_NE(script.find("Roofline of attention on h100-sxm, h200, b200"), std::string::npos);
  if (r.code == 0) {
    EXPECT_NE(r.out.find("3 GPUs"), std::string::npos) << r.out;
  }
}

}  // namespace
