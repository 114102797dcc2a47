// Black-box tests of `fa4-analyze whatif`: the side-by-side prediction with the bottleneck shift,
// --sensitivity, --json, and the refusals of a bad --scale.
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

namespace {

using fa4::testing::Outcome;
using Whatif = fa4::testing::CliTest;

TEST_F(Whatif, DoubledMufuOnB200AtHd64MovesTheBottleneckOffExp) {
  // hd64 on B200 is exp-bound (FA4 §3.1.1: exp 2x MMA per tile); with MUFU x2 and no emulation
  // the tile is no longer bound by exp and the workload runs faster.
  const Outcome r = run("whatif --gpu b200 --scale mufu=2 --exp-emulation 0 --headdim 64 "
                        "--heads 32 --seqlen 8192 --batch 4");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("(mufu x2)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the bottleneck moves from exp_mufu"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("best exp emulation share"), std::string::npos) << r.out;
}

TEST_F(Whatif, JsonHasBothPredictionsTheSpeedupAndTheRanking) {
  const Outcome r = run("whatif --gpu h200 --kernel fa3 --scale clock=1.1 --sensitivity --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["changed"], "h200 (clock x1.1)");
  EXPECT_GT(j["speedup"].get<double>(), 1.0);
  EXPECT_GT(j["what_if"]["tflops"].get<double>(), j["base"]["tflops"].get<double>());
  ASSERT_EQ(j["sensitivity"].size(), 7u);
  for (std::size_t i = 1; i < j["sensitivity"].size(); ++i)
    EXPECT_GE(j["sensitivity"][i - 1]["speedup"].get<double>(),
              j["sensitivity"][i]["speedup"].get<double>());
  EXPECT_FALSE(j.contains("best_exp_emulation")) << "fa3 has no exp emulation";
}

TEST_F(Whatif, BadScaleIsRefusedWithTheFix) {
  for (const char* scale : {"tensor=2", "mufu", "mufu=0", "mufu=two"}) {
    const Outcome r = run(std::string("whatif --gpu b200 --scale ") + scale);
    EXPECT_EQ(r.code, 1) << scale;
    EXPECT_EQ(r.err.rfind("error: --scale", 0), 0u) << scale << ": " << r.err;
  }
  const Outcome none = run("whatif --gpu b200");
  EXPECT_EQ(none.code, 1);
  EXPECT_NE(none.err.find("--scale UNIT=FACTOR"), std::string::npos) << none.err;
}

}  // namespace
