// Black-box tests of input the tool used to accept and misread: sweep files with unknown or
// repeated keys, the same shape given twice, and options that no kernel can honour. Each is refused
// with one "error: ..." line (exit 1, nothing recorded) or handled and said so.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.hpp"

namespace fa4::testing {
namespace {

namespace fs = std::filesystem;

class Input : public CliTest {
 protected:
  static void expect_error(const Outcome& r, const std::string& text) {
    EXPECT_EQ(r.code, 1) << r.out;
    EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(text), std::string::npos) << r.err;
  }
  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }
  // Runs `fa4-analyze ARGS` under a pseudo-terminal (util-linux script) and returns what the
  // terminal showed; "" when script is not installed (the caller skips, saying kNoTerminal).
  std::string run_on_terminal(const std::string& args) {
    if (std::system("script --version >/dev/null 2>&1") != 0) return "";
    const std::string command = "cd '" + dir_.string() +
                                "' && script -qec \"FA4_DB= '" FA4_CLI "' " + args +
                                "\" /dev/null > tty.txt";
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
    return slurp(dir_ / "tty.txt");
  }
  static constexpr const char* kNoTerminal =
      "skipped: util-linux script (a pseudo-terminal) is not installed";
  std::string csv(const std::string& sql) {
    const Outcome o = run("--db t.db query --format csv \"" + sql + "\"");
    EXPECT_EQ(o.code, 0) << o.err;
    return o.out.substr(o.out.find('\n') + 1);
  }
};

constexpr const char* kShape = R"({"batch": 1, "heads": 8, "seqlen": 1024, "headdim": 64)";

TEST_F(Input, AnUnknownSweepKeyIsRefusedWithItsPointerAndTheNearestKey) {
  write("typo.json", std::string(R"({"name": "t", "shapes": [)") + kShape + "}, " + kShape +
                         R"(, "casual": true}]})");
  const Outcome r = run("--db t.db predict --sweep typo.json --gpu h100 --kernel fa3");
  expect_error(r, "typo.json: /shapes/1/casual: unknown key; did you mean \"causal\"?");
  EXPECT_FALSE(fs::exists(dir_ / "t.db"));
  write("grid.json", R"({"name": "g", "grid": {"total_tokens": 16384, "hiden": 2048,
                         "headdims": [64], "seqlens": [512], "causal": [false]}})");
  expect_error(run("--db t.db predict --sweep grid.json"),
               "grid.json: /grid/hiden: unknown key; did you mean \"hidden\"?");
  write("top.json", std::string(R"({"name": "t", "shape": [)") + kShape + "}]}");
  expect_error(run("--db t.db predict --sweep top.json"),
               "top.json: /shape: unknown key; did you mean \"shapes\"?");
}

TEST_F(Input, ADuplicateSweepKeyIsRefusedWithItsPointer) {
  write("dup.json", std::string(R"({"name": "t", "shapes": [)") + kShape +
                        R"(, "causal": true, "causal": false}]})");
  const Outcome r = run("--db t.db predict --sweep dup.json --gpu h100 --kernel fa3");
  expect_error(r, "dup.json: /shapes/0/causal: duplicate key");
  EXPECT_FALSE(fs::exists(dir_ / "t.db"));
}

// The other JSON inputs are as strict as sweeps: a hardware model, a published-figures file and a
// peer results file each refuse a key given twice (file, pointer and key) and a key they do not
// know, and record nothing.
TEST_F(Input, ADuplicateKeyInAHardwareModelIsRefusedWithFilePointerAndKey) {
  fs::create_directories(dir_ / "models");
  std::string model = slurp(fs::path(FA4_SOURCE_DIR) / "models/h100-sxm.json");
  const std::string sms = "\"sms\": {";
  ASSERT_NE(model.find(sms), std::string::npos);
  model.insert(model.find(sms) + sms.size(), R"("value": 1, )");
  std::ofstream(dir_ / "models/h100-sxm.json") << model;
  expect_error(run("--models models gpus"),
               "models/h100-sxm.json: /sms/value: duplicate key \"value\"");
}

constexpr const char* kPublishedFigure =
    R"({"gpu": "h100-sxm", "kernel": "fa3", "pass": "fwd", "shape": {"batch": 4, "heads": 16,
       "seqlen": 8448, "headdim": 128, "causal": false, "dtype": "fp16"}, "tflops": 661)";

TEST_F(Input, APublishedFileRefusesDuplicateAndUnknownKeys) {
  const std::string head = R"({"source": "s", "citation": "c", "figures": [)";
  write("dup.json", head + kPublishedFigure + R"(, "tflops": 600}]})");
  expect_error(run("--db t.db import dup.json"),
               "dup.json: /figures/0/tflops: duplicate key \"tflops\"");
  write("typo.json", head + kPublishedFigure + R"(, "rol": "target"}]})");
  expect_error(run("--db t.db import typo.json"),
               "typo.json: /figures/0/rol: unknown key; did you mean \"role\"?");
  write("top.json", head + kPublishedFigure + R"(}], "citaton": "c"})");
  expect_error(run("--db t.db import top.json"),
               "top.json: /citaton: unknown key; did you mean \"citation\"?");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "t.db")) << "a refused file creates no database";
  // The shipped files pass.
  const Outcome shipped = run("--db t.db import '" FA4_SOURCE_DIR "/data/published/papers.json'");
  EXPECT_EQ(shipped.code, 0) << shipped.err;
}

TEST_F(Input, APeerResultsFileRefusesDuplicateAndUnknownKeysNamingTheLine) {
  const std::string sample = slurp(FA4_TEST_DATA "/peers-sample.jsonl");
  const std::string first = sample.substr(0, sample.find('\n'));
  std::string dup = first;
  dup.insert(dup.find("\"batch\": "), R"("batch": 2, )");
  write("dup.jsonl", first + "\n" + dup + "\n");
  expect_error(run("--db t.db import dup.jsonl"),
               "dup.jsonl:2: /shape/batch: duplicate key \"batch\"");
  std::string typo = first;
  typo.insert(typo.find("\"median_s\": "), R"("medain_s": 1, )");
  write("typo.jsonl", typo + "\n");
  expect_error(run("--db t.db import typo.jsonl"),
               "typo.jsonl:1: /medain_s: unknown key; did you mean \"median_s\"?");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "t.db")) << "a refused file creates no database";
}

TEST_F(Input, TheSameShapeGivenTwiceIsModelledOnceAndSaysSo) {
  write("s.json", std::string(R"({"name": "t", "shapes": [)") + kShape + "}, " + kShape + "}]}");
  const Outcome r =
      run("--db t.db predict --sweep s.json --sweep s.json --gpu h100 --kernel fa3 --pass fwd");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("recorded 1 prediction "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("3 repeated shapes modelled once"), std::string::npos) << r.out;
  EXPECT_EQ(csv("SELECT COUNT(*) FROM predictions"), "1\n");
}

TEST_F(Input, ASweepThatIsAFolderIsNamedAsOne) {
  fs::create_directories(dir_ / "sweeps");
  expect_error(run("--db t.db predict --sweep sweeps"), "sweeps: is a folder, not a sweep file");
}

TEST_F(Input, APredictThatModelsNothingIsRefusedNamingThePairs) {
  write("s.json", std::string(R"({"name": "t", "shapes": [)") + kShape + "}]}");
  const Outcome r = run("--db t.db predict --sweep s.json --gpu a100-sxm --kernel fa4,fa3");
  expect_error(r, "nothing to model: fa4 on a100-sxm: fa4 needs Hopper (wgmma) or Blackwell");
  EXPECT_NE(r.err.find("; fa3 on a100-sxm: fa3 is built on Hopper's wgmma"), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "t.db"));
  // A pair that cannot run beside one that can is named, and the rest recorded.
  const Outcome some = run("--db t.db predict --sweep s.json --gpu a100-sxm --kernel fa2,fa4");
  ASSERT_EQ(some.code, 0) << some.err;
  EXPECT_NE(some.out.find("skipped fa4 on a100-sxm: fa4 needs Hopper"), std::string::npos)
      << some.out;
}

// The sample's first record (an H200 forward at 611 TFLOP/s) with `edit` applied, as a file.
std::string edited_sample(const fs::path& dir, const std::function<void(nlohmann::json&)>& edit) {
  std::ifstream in(FA4_TEST_DATA "/peers-sample.jsonl");
  std::string line;
  std::getline(in, line);
  nlohmann::json record = nlohmann::json::parse(line);
  edit(record);
  std::ofstream(dir / "edited.jsonl") << record.dump() << "\n";
  return (dir / "edited.jsonl").string();
}

TEST_F(Input, ImportRefusesStatisticsThatContradictThemselves) {
  const Outcome r = run("--db t.db import " +
                        edited_sample(dir_, [](nlohmann::json& j) { j["median_s"] = 1e-30; }));
  expect_error(r, "edited.jsonl:1: \"median_s\" = 1e-30 is below \"p25_s\"");
  EXPECT_NE(r.err.find("nothing was imported"), std::string::npos) << r.err;
  expect_error(run("--db t.db import " +
                   edited_sample(dir_, [](nlohmann::json& j) { j["samples_s"].push_back(0.5); })),
               "edited.jsonl:1: \"samples_s\" holds 0.5, outside [min_s, max_s]");
}

TEST_F(Input, ImportRefusesARateAboveTheGpusPeak) {
  // Self-consistent statistics, but 1 us for 0.55 TFLOP: 5.5e5 TFLOP/s on an H200.
  const Outcome r = run("--db t.db import " + edited_sample(dir_, [](nlohmann::json& j) {
                          for (const char* key : {"median_s", "p25_s", "p75_s", "min_s", "max_s"})
                            j[key] = 1e-6;
                          j["samples_s"] = {1e-6, 1e-6};
                        }));
  expect_error(r, "edited.jsonl:1: median_s = 1e-06 s gives 5.498e+05 TFLOP/s");
  EXPECT_NE(r.err.find("above the NVIDIA H200"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("by more than 10%"), std::string::npos) << r.err;
  // The sample as it is imports.
  EXPECT_EQ(run("--db t.db import " + edited_sample(dir_, [](nlohmann::json&) {})).code, 0);
}

TEST_F(Input, ImportOfAFolderSaysItIsAFolder) {
  fs::create_directories(dir_ / "peers");
  expect_error(run("--db t.db import peers"), "peers is a folder: give the files in it");
}

TEST_F(Input, IntegerOptionsTakeDecimalDigitsThatFit) {
  expect_error(run("model --gpu h100 --kernel fa3 --seqlen 0x100"),
               "--seqlen: '0x100' is not a whole number in decimal digits");
  expect_error(run("model --gpu h100 --kernel fa3 --seqlen 18446744073709551616"),
               "--seqlen: '18446744073709551616' is beyond a 64-bit integer");
  expect_error(run("--busy-timeout abc gpus"),
               "--busy-timeout: 'abc' is not a whole number in decimal digits");
  EXPECT_EQ(run("model --gpu h100 --kernel fa3 --seqlen 256").code, 0);
}

// --window is a causal sliding window the model predicts; the lab's kernels refuse it.
TEST_F(Input, ASlidingWindowIsModeledWithTheCausalMaskAndRefusedOtherwise) {
  expect_error(run("model --gpu h100 --kernel fa3 --causal --window -8"),
               "window = -8; give the keys each query sees");
  expect_error(run("model --gpu h100 --kernel fa3 --window 1024"),
               "window = 1024 needs the causal mask");
  const Outcome r = run("--db t.db model --gpu h100 --kernel fa3 --causal --window 1024");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("causal w1024"), std::string::npos) << r.out;
  expect_error(run("--db t.db bench --kernel fa3 --causal --window 1024"),
               "the lab's kernels and peers mask no sliding window");
}

TEST_F(Input, WhatifScalesStayWithinWhatIsPhysical) {
  expect_error(run("whatif --gpu b200 --scale mma=1e-300"),
               "--scale 'mma=1e-300': the factor must be a number from 1/64 (0.015625) to 64");
  expect_error(run("whatif --gpu b200 --scale sms=0.001"), "--scale 'sms=0.001'");
  expect_error(run("whatif --gpu b200 --scale hbm=65"), "--scale 'hbm=65'");
  const Outcome r = run("whatif --gpu b200 --scale sms=0.5");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("sms x0.5: 74 SMs"), std::string::npos) << r.out;
}

TEST_F(Input, OptionsNoKernelCanHonourAreRefusedWithTheReason) {
  expect_error(run("model --gpu b200 --kernel fa4 --exp-emulation nan"),
               "--exp-emulation nan is not a share: give a number from 0 to 1");
  expect_error(run("model --gpu gb300 --kernel fa4 --pass bwd --software-row-max"),
               "the row max from the tensor-memory load is a choice of FA4's forward softmax; fa4 "
               "bwd has none");
  expect_error(run("model --gpu h100 --kernel fa3 --headdim 7"),
               "headdim = 7: fa3 kernels take head dims that are multiples of 8 up to 256");
  expect_error(run("model --gpu h100 --kernel fa2 --headdim-v 7"), "headdim-v = 7: fa2 kernels");
  expect_error(run("model --gpu h100 --kernel fa3 --headdim 512"), "headdim = 512");
  expect_error(run("model --gpu h100 --kernel fa3 --tile 1x1"),
               "tile 1x1: fa3 on NVIDIA H100 SXM5 80 GB takes query rows in multiples of 64 "
               "(wgmma's 64 rows per warpgroup)");
  expect_error(run("model --gpu b200 --kernel fa4 --tile 100x100"),
               "tile 100x100: fa4 on NVIDIA B200 (HGX, SXM) takes query rows in multiples of 128");
  expect_error(run("model --gpu h100 --kernel fa2 --tile 512x64"), "each at most 256");
  expect_error(run("model --gpu h100 --kernel naive --tile 128x128"),
               "--tile: naive has no tile of its own");
  for (const char* where :
       {"--gpu h100 --kernel fa3 --pass bwd", "--gpu b200 --kernel fa2 --pass bwd",
        "--gpu b200 --kernel fa4 --pass fwd"})
    expect_error(run(std::string("model ") + where + " --two-cta"),
                 "--two-cta is FA4's backward on Blackwell");
  expect_error(run("model --gpu h100 --kernel fa4 --pass bwd --two-cta"), "on NVIDIA H100");
  // What kernels do run is still modelled: naive takes any head dim, fa4's 2-CTA backward.
  EXPECT_EQ(run("model --gpu h100 --kernel naive --headdim 7").code, 0);
  EXPECT_EQ(run("model --gpu b200 --kernel fa4 --pass bwd --two-cta").code, 0);
  EXPECT_EQ(run("model --gpu h100 --kernel fa3 --tile 192x176 --headdim 64").code, 0);
  // The checks are the model's: predict refuses a sweep shape the same way.
  write("d7.json", R"({"name": "t", "shapes": [{"batch": 1, "heads": 8, "seqlen": 1024,
                      "headdim": 7}]})");
  expect_error(run("--db t.db predict --sweep d7.json --gpu h100 --kernel fa3"),
               "nothing to model: headdim = 7: fa3 kernels take head dims");
}

// A grid of `seqlens` sequence lengths x 2 head dims x 2 masks.
std::string grid_sweep(int seqlens) {
  std::string list;
  for (int i = 1; i <= seqlens; ++i) list += (i > 1 ? ", " : "") + std::to_string(64 * i);
  return R"({"name": "big", "grid": {"total_tokens": 65536, "hidden": 2048, "headdims": [64, 128],
             "seqlens": [)" +
         list + R"(], "causal": [false, true]}})";
}

TEST_F(Input, ALongPredictShowsProgressOnlyOnATerminal) {
  write("big.json", grid_sweep(500));  // 2000 shapes: 16,000 combinations per GPU model
  const Outcome piped = run("--db t.db predict --sweep big.json");
  ASSERT_EQ(piped.code, 0) << piped.err;
  EXPECT_EQ(piped.err, "") << "no progress line when stderr is not a terminal";
  EXPECT_NE(piped.out.find("run 1: recorded "), std::string::npos) << piped.out;
  // Under a pseudo-terminal, the line appears and is erased at the end.
  const std::string tty = run_on_terminal("--db u.db predict --sweep big.json");
  if (tty.empty()) GTEST_SKIP() << kNoTerminal;
  // "N of 16000 x (GPU models) (shape, kernel, GPU, pass) combinations (P%), S s"
  EXPECT_NE(tty.find("000 (shape, kernel, GPU, pass) combinations ("), std::string::npos) << tty;
  EXPECT_NE(tty.find("\r\033[K"), std::string::npos) << tty;
}

// report over 80k predictions runs over a second: a progress line on a terminal (the predictions
// read, the charts and the CSV rows written), erased before its summary; none when piped.
TEST_F(Input, ALongReportShowsProgressOnlyOnATerminal) {
  write("big.json", grid_sweep(500));
  ASSERT_EQ(run("--db t.db predict --sweep big.json").code, 0);
  const Outcome piped = run("--db t.db report --out r/r.md");
  ASSERT_EQ(piped.code, 0) << piped.err;
  EXPECT_EQ(piped.err, "") << "no progress line when stderr is not a terminal";
  const std::string tty = run_on_terminal("--db t.db report --out r/r.md");
  if (tty.empty()) GTEST_SKIP() << kNoTerminal;
  const bool counted = tty.find(" stored predictions read (two passes), ") != std::string::npos ||
                       tty.find(" charts written (") != std::string::npos ||
                       tty.find(" rows of CSV files written (") != std::string::npos;
  EXPECT_TRUE(counted) << tty;
  EXPECT_NE(tty.find("\r\033[Kwrote r/r.md: "), std::string::npos) << tty;
}

TEST_F(Input, QueryPrintsAThousandRowsUnlessToldAndSaysHowToSeeMore) {
  write("s.json", grid_sweep(30));  // 120 shapes: thousands of predictions
  ASSERT_EQ(run("--db t.db predict --sweep s.json").code, 0);
  const Outcome capped = run("--db t.db query \"SELECT id FROM predictions\" --format csv");
  ASSERT_EQ(capped.code, 0) << capped.err;
  EXPECT_EQ(std::count(capped.out.begin(), capped.out.end(), '\n'), 1 + 1000);
  EXPECT_EQ(capped.err,
            "query: printed the first 1000 rows; more remain: pass --limit N for more, --limit 0 "
            "for all (csv and json print them as they come), or narrow the query\n");
  const Outcome all = run("--db t.db query \"SELECT id FROM predictions\" --format csv --limit 0");
  EXPECT_EQ(all.err, "");
  EXPECT_EQ(std::to_string(std::count(all.out.begin(), all.out.end(), '\n') - 1) + "\n",
            csv("SELECT COUNT(*) FROM predictions"));
  const Outcome json =
      run("--db t.db query \"SELECT id FROM predictions ORDER BY id\" "
          "--format json --limit 2");
  EXPECT_EQ(json.out, "[\n  {\"id\": 1},\n  {\"id\": 2}\n]\n");
  EXPECT_EQ(run("--db t.db query \"SELECT id FROM predictions WHERE 0\" --format json").out,
            "[]\n");
  const Outcome table = run("--db t.db query \"SELECT id FROM predictions\" --limit 1");
  EXPECT_EQ(table.out, "id\n--\n 1\n(1 row)\n");
  EXPECT_NE(table.err.find("printed the first 1 row;"), std::string::npos) << table.err;
}

TEST_F(Input, QueryStreamsRowsAsTheyCome) {
  write("s.json", std::string(R"({"name": "t", "shapes": [)") + kShape + "}]}");
  ASSERT_EQ(run("--db t.db predict --sweep s.json --gpu h100 --kernel fa3").code, 0);
  // An endless query: only a printer that streams lets `head` end it (SIGPIPE) before the
  // timeout does; one that holds the rows prints nothing.
  const std::string command =
      "cd '" + dir_.string() + "' && timeout 60 '" FA4_CLI "' --db t.db query --limit 0 " +
      "--format csv \"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i " +
      "FROM n\" | head -n 3 > head.txt";
  EXPECT_EQ(std::system(command.c_str()), 0);  // head's status
  EXPECT_EQ(slurp(dir_ / "head.txt"), "i\n1\n2\n");
}

}  // namespace
}  // namespace fa4::testing
