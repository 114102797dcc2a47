// `model` and `predict` with --ceilings measured: the latest ceilings recorded for the GPU
// replace the datasheet's rates; without them, a clear error that says how to measure them.
#include <gmock/gmock.h>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "store/store.hpp"

namespace fa4::testing {
namespace {

using ::testing::HasSubstr;

class CeilingsOption : public CliTest {
 protected:
  // Records H200 ceilings in r.db; the MUFU figure is a quarter of the datasheet's.
  void record_h200_ceilings() {
    auto db = store::Store::open((dir_ / "r.db").string()).value();
    store::RunInfo info;
    info.kind = store::RunKind::ceilings;
    info.revision = "test";
    info.host = "test";
    info.command_line = "fa4-analyze ceilings";
    const auto run = db.begin_run(info).value();
    std::vector<store::Ceiling> ceilings;
    for (auto [unit, value, per_clk] : {std::tuple{"wgmma_bf16", 660.0, 2525.0},
                                        {"mufu_ex2", 2.0, 4.0},
                                        {"fma_fp32", 63.5, 121.4},
                                        {"smem_read", 31.0, 118.6},
                                        {"hbm_copy", 4.25, 0.0}})
      ceilings.push_back({.device = "NVIDIA H200", .unit = unit, .value = value,
                          .value_unit = "x", .per_sm_per_clk = per_clk, .sm_clock_mhz = 1980,
                          .median_s = 1e-3, .samples_s = {1e-3}, .method = "test"});
    ASSERT_TRUE(db.record_ceilings(run, ceilings).ok());
  }
  double tflops(const std::string& extra) {
    const Outcome o =
        run("--db r.db model --gpu h200 --kernel fa4 --seqlen 8192 --json " + extra);
    EXPECT_EQ(o.code, 0) << o.err;
    return nlohmann::json::parse(o.out).at("predicted").at("tflops").get<double>();
  }
};

TEST_F(CeilingsOption, MeasuredRatesChangeThePrediction) {
  record_h200_ceilings();
  const double datasheet = tflops("");
  const double measured = tflops("--ceilings measured");
  EXPECT_LT(measured, datasheet * 0.75) << "a quarter of the exp2 rate must slow FA4 down";
  const Outcome p = run("--db r.db predict --gpu h200 --kernel fa2 --pass fwd --ceilings measured "
                        "--sweep " FA4_SOURCE_DIR "/data/sweeps/ladder-h128.json");
  EXPECT_EQ(p.code, 0) << p.err;
  EXPECT_THAT(run("--db r.db runs").out, HasSubstr("--ceilings measured"));
}

TEST_F(CeilingsOption, WithoutMeasuredCeilingsSaysHowToMeasureThem) {
  record_h200_ceilings();
  const Outcome o = run("--db r.db model --gpu h100 --ceilings measured");
  EXPECT_EQ(o.code, 1);
  EXPECT_THAT(o.err, HasSubstr("no ceilings measured on a h100-sxm"));
  EXPECT_THAT(o.err, HasSubstr("run 'fa4-analyze ceilings' on that GPU first"));
}

TEST_F(CeilingsOption, AnUnknownModeIsRefused) {
  const Outcome o = run("model --ceilings guessed");
  EXPECT_NE(o.code, 0);
  EXPECT_THAT(o.err, HasSubstr("guessed"));
}

}  // namespace
}  // namespace fa4::testing
