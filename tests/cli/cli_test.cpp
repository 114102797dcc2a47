// Runs the real executable with arguments and checks its exit code, stdout and stderr.
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

namespace {

namespace fs = std::filesystem;

using fa4::testing::Outcome;
using fa4::testing::slurp;
using Cli = fa4::testing::CliTest;

TEST_F(Cli, NoSubcommandIsAnError) {
  const Outcome r = run("");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("error: "), std::string::npos);
}

TEST_F(Cli, UnknownSubcommandIsAnError) {
  const Outcome r = run("frobnicate");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
}

TEST_F(Cli, ModelPrintsTheTileTableAndPrediction) {
  const Outcome r = run("model --gpu b200 --kernel fa4 --seqlen 16384 --tile 128x128 --exp-emulation 0");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("mma"), std::string::npos);
  EXPECT_NE(r.out.find("1024"), std::string::npos);
  EXPECT_NE(r.out.find("TFLOP/s"), std::string::npos);
  EXPECT_NE(r.out.find("bound by"), std::string::npos);
}

// On Blackwell Ultra FA4's forward takes each row's max from the tensor-memory load by default;
// --software-row-max models it without, a slower softmax where that stream binds (hd64).
TEST_F(Cli, ModelSaysWhereTheRowMaxComesFromTheLoad) {
  const Outcome loaded = run("model --gpu gb300 --kernel fa4 --headdim 64 --json");
  const Outcome computed =
      run("model --gpu gb300 --kernel fa4 --headdim 64 --software-row-max --json");
  ASSERT_EQ(loaded.code, 0) << loaded.err;
  ASSERT_EQ(computed.code, 0) << computed.err;
  const auto with = nlohmann::json::parse(loaded.out);
  const auto without = nlohmann::json::parse(computed.out);
  EXPECT_EQ(with["options"]["row_max_on_load"], true);
  EXPECT_EQ(without["options"]["row_max_on_load"], false);
  EXPECT_GT(with["predicted"]["tflops"].get<double>(),
            without["predicted"]["tflops"].get<double>());
  const Outcome text = run("model --gpu gb300 --kernel fa4");
  EXPECT_NE(text.out.find("row max from the tensor-memory load"), std::string::npos) << text.out;
  EXPECT_EQ(run("model --gpu gb200 --kernel fa4").out.find("row max"), std::string::npos);
}

TEST_F(Cli, ModelJsonHasTheDocumentedFields) {
  const Outcome r = run("model --gpu h100-sxm --kernel fa3 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* unit : {"mma", "exp_mufu", "exp_fma", "smem"})
    EXPECT_TRUE(j["tile"]["cycles"].contains(unit)) << unit;
  EXPECT_EQ(j["tile"]["bottleneck"], "mma");
  EXPECT_GT(j["predicted"]["tflops"].get<double>(), 100);
  EXPECT_GT(j["predicted"]["time_ms"].get<double>(), 0);
  EXPECT_GT(j["predicted"]["fraction_of_peak"].get<double>(), 0);
}

TEST_F(Cli, UnknownGpuListsTheKnownOnes) {
  const Outcome r = run("model --gpu h900 --kernel fa3");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("h900"), std::string::npos);
  EXPECT_NE(r.err.find("b200"), std::string::npos);
  EXPECT_NE(r.err.find("h100-sxm"), std::string::npos);
}

TEST_F(Cli, ImpossibleShapesAreRefusedWithTheReason) {
  Outcome r = run("model --gpu h100-sxm --kernel fa3 --seqlen 0");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("seqlen-q = 0"), std::string::npos) << r.err;
  r = run("model --gpu h100-sxm --kernel fa3 --heads 16 --heads-kv 5");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("not divisible"), std::string::npos) << r.err;
  r = run("model --gpu h100-sxm --kernel fa3 --headdim 256 --tile 256x256");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("shared memory"), std::string::npos) << r.err;
  r = run("model --gpu h100-sxm --kernel fa3 --batch -2");
  EXPECT_EQ(r.code, 1);
}

TEST_F(Cli, UnknownKernelAndDtypeAreRefused) {
  Outcome r = run("model --gpu h100-sxm --kernel fa9");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("fa9"), std::string::npos);
  r = run("model --gpu h100-sxm --kernel fa3 --dtype fp32");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("fp32"), std::string::npos);
}

TEST_F(Cli, PredictRecordsASweepAndQuerySeesIt) {
  std::ofstream(dir_ / "sweep.json")
      << R"({"name": "t", "shapes": [{"batch": 2, "heads": 16, "seqlen": 4096, "headdim": 128}]})";
  Outcome r = run("--db t.db predict --sweep sweep.json --gpu h100-sxm,b200 --kernel fa2,fa3,fa4");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("recorded"), std::string::npos);
  r = run("--db t.db query \"SELECT count(*) AS n FROM predictions\" --format csv");
  ASSERT_EQ(r.code, 0) << r.err;
  // h100: fa2, fa3, fa4 x fwd, bwd = 6; b200: fa2, fa4 x 2 = 4 (fa3 needs wgmma)
  EXPECT_NE(r.out.find("10"), std::string::npos) << r.out;
  r = run("--db t.db runs");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("predict"), std::string::npos);
}

TEST_F(Cli, MalformedSweepNamesFileAndField) {
  std::ofstream(dir_ / "bad.json") << R"({"name": "t", "shapes": [{"batch": 0, "heads": 16, "seqlen": 64, "headdim": 64}]})";
  Outcome r = run("--db t.db predict --sweep bad.json --gpu h100-sxm");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("bad.json"), std::string::npos);
  EXPECT_NE(r.err.find("/shapes/0/batch"), std::string::npos) << r.err;
  std::ofstream(dir_ / "trunc.json") << R"({"name": "t", "shapes": [)";
  r = run("--db t.db predict --sweep trunc.json --gpu h100-sxm");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("not valid JSON"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "t.db"));  // nothing is recorded from a bad sweep
}

TEST_F(Cli, NonDatabaseFileIsRefusedAndLeftUntouched) {
  std::ofstream(dir_ / "notes.db") << "these are my notes, not a database\n";
  const std::string before = slurp(dir_ / "notes.db");
  std::ofstream(dir_ / "sweep.json")
      << R"({"name": "t", "shapes": [{"batch": 1, "heads": 8, "seqlen": 1024, "headdim": 64}]})";
  const Outcome r = run("--db notes.db predict --sweep sweep.json --gpu h100-sxm --kernel fa3");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("notes.db"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(dir_ / "notes.db"), before);
}

TEST_F(Cli, GpusListsEveryModel) {
  const Outcome r = run("gpus");
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* id : {"a100-sxm", "h100-sxm", "h200", "b200", "gb200", "b300", "gb300"})
    EXPECT_NE(r.out.find(id), std::string::npos) << id;
  // A figure a model file leaves out says why: measured shares "not measured", the sustained clock
  // "not fitted" (Hopper keeps the peak clock).
  const auto row = [&](std::string_view label) {
    const auto at = r.out.find(label);
    return at == std::string::npos ? std::string() : r.out.substr(at, r.out.find('\n', at) - at);
  };
  EXPECT_NE(row("measured copy / HBM").find("not measured"), std::string::npos) << r.out;
  EXPECT_NE(row("sustained clock / boost").find("not fitted"), std::string::npos) << r.out;
  EXPECT_NE(row("sustained clock / boost").find("0.86"), std::string::npos) << r.out;
}

TEST_F(Cli, PublishedListsTheRecordWithThePredictionBesideEachFigure) {
  const Outcome r = run("published --gpu sm100 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\"modeled_on\": \"b200\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"modeled_as\": \"fa4 2-CTA single-tile grid deterministic\""),
            std::string::npos)
      << r.out;
  const Outcome hopper = run("published --gpu h200 --json");
  ASSERT_EQ(hopper.code, 0) << hopper.err;
  EXPECT_NE(hopper.out.find("\"modeled_as\": \"fa3 fixed tile order\""), std::string::npos);
  EXPECT_NE(hopper.out.find("\"modeled_as\": \"fa3 group-reduced dK dV dQ adds in HBM\""),
            std::string::npos);
  const Outcome gb300 = run("published --gpu gb300 --json");
  ASSERT_EQ(gb300.code, 0) << gb300.err;
  EXPECT_NE(gb300.out.find("\"modeled_as\": \"fa4 deterministic fixed step cost\""),
            std::string::npos);
  EXPECT_NE(gb300.out.find("\"modeled_as\": \"fa4 fixed step cost\""), std::string::npos);
  EXPECT_NE(gb300.out.find("\"modeled_as\": \"fa4 row max from the load\""), std::string::npos);
  const Outcome none = run("published --gpu no-such-gpu");
  EXPECT_EQ(none.code, 1);
  EXPECT_NE(none.err.find("error: no published figure"), std::string::npos) << none.err;
}

}  // namespace
