// fa4-analyze compare: two shipped runs of one revision (SAME or UNSURE, the unmatched listed),
// every output (table, JSON, CSV, markdown, the chart's files), kernel against kernel and against
// a peer, --fail-on's exit code, two prediction runs with the largest moves first, and bad input:
// a run that does not exist, runs with nothing in common, another program's database, a ceilings
// run, measurements against predictions, a contender with too few samples, a bad threshold.
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.hpp"

namespace fa4::testing {
namespace {

using nlohmann::json;

class CompareCli : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    copy_shipped_db("2026-11-23-h200.db", "a.db");        // run 2: fa3, fa4 (684356b-dirty)
    copy_shipped_db("2026-11-23-h200-final.db", "b.db");  // run 2: naive, fa2, fa3, fa4 (same)
  }
  // Runs `sql` on the test folder's database `name`.
  void sql(const std::string& name, const std::string& statement) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((dir_ / name).string().c_str(), &db), SQLITE_OK);
    char* message = nullptr;
    const int rc = sqlite3_exec(db, statement.c_str(), nullptr, nullptr, &message);
    const std::string error = message ? message : "";
    sqlite3_free(message);
    sqlite3_close(db);
    ASSERT_EQ(rc, SQLITE_OK) << error;
  }
};

TEST_F(CompareCli, TwoRunsOfOneRevisionAreSameOrUnsureAndTheUnmatchedAreListed) {
  const Outcome o = run("compare a.db:2 b.db:2 --fail-on slower,faster");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("72 compared: 0 faster, 0 slower, "), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("72 unmatched"), std::string::npos);  // b.db's naive and fa2
  EXPECT_NE(o.out.find("only in the contender b.db:2: naive fwd b32 h32 s512 d64 bf16 on NVIDIA "
                       "H200\n"),
            std::string::npos);
  EXPECT_EQ(o.out.find("only in the baseline"), std::string::npos);
}

TEST_F(CompareCli, JsonRowsHoldTheirIntervalAndTheSummaryCountsThem) {
  const Outcome o = run("compare a.db:2 b.db:2 --json");
  ASSERT_EQ(o.code, 0) << o.err;
  const json doc = json::parse(o.out);
  ASSERT_EQ(doc["rows"].size(), 72u);
  std::size_t same = 0;
  for (const json& r : doc["rows"]) {
    same += r["verdict"] == "SAME";
    EXPECT_LE(r["95_percent_lo"].get<double>(), r["ratio"].get<double>()) << r.dump();
    EXPECT_GE(r["95_percent_hi"].get<double>(), r["ratio"].get<double>()) << r.dump();
    EXPECT_GT(r["p"].get<double>(), 0) << r.dump();
    EXPECT_EQ(r["baseline_n"].get<int>() + r["contender_n"].get<int>() >= 20, true) << r.dump();
  }
  EXPECT_EQ(doc["summary"]["same"].get<std::size_t>(), same);
  EXPECT_EQ(doc["summary"]["slower"], 0);
  EXPECT_EQ(doc["summary"]["faster"], 0);
  EXPECT_EQ(doc["only_contender"].size(), 72u);
  EXPECT_EQ(doc["threshold"], 0.05);
  EXPECT_NEAR(doc["summary"]["geometric_mean_ratio"].get<double>(), 1.0, 0.02);
}

TEST_F(CompareCli, CsvIsTheRowsAloneAndTheSummaryGoesToStandardError) {
  const Outcome o = run("compare a.db:2 b.db:2 --csv");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.out.rfind("#,device,kernel,source,pass,problem,baseline ms,baseline n,contender "
                        "ms,contender n,ratio,"
                        "95% lo,95% hi,p,in cycles,verdict,why\n",
                        0),
            0u)
      << o.out.substr(0, 200);
  EXPECT_EQ(std::count(o.out.begin(), o.out.end(), '\n'), 73);
  EXPECT_NE(o.err.find("72 compared"), std::string::npos);
}

TEST_F(CompareCli, MarkdownForAPullRequest) {
  const Outcome o = run("compare a.db:2 b.db:2 --markdown");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.out.rfind("### compare: `a.db:2` (baseline) against `b.db:2` (contender)", 0), 0u);
  EXPECT_NE(o.out.find("**72 compared:"), std::string::npos);
  EXPECT_NE(o.out.find("| # | device | kernel |"), std::string::npos);
  EXPECT_NE(o.out.find("<summary>72 unmatched configurations</summary>"), std::string::npos)
      << o.out.substr(o.out.size() - 600);
}

TEST_F(CompareCli, TheChartIsDrawnWithItsScriptAndData) {
  const Outcome o = run("compare a.db:2 b.db:2 --chart out/ratios.svg");
  EXPECT_TRUE(std::filesystem::exists(dir_ / "out/ratios.gp"));
  const std::string data = slurp(dir_ / "out/ratios.dat");
  EXPECT_NE(data.find("/ 95% interval"), std::string::npos);
  EXPECT_NE(data.find("/ no change\n0\t1\t-"), std::string::npos) << data.substr(0, 300);
  if (o.code == 0) {
    EXPECT_NE(slurp(dir_ / "out/ratios.svg").find("<svg"), std::string::npos);
  } else {
    EXPECT_NE(o.err.find("but not the SVG"), std::string::npos) << o.err;  // no gnuplot here
  }
  const Outcome bad = run("compare a.db:2 b.db:2 --chart ratios.png");
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("--chart ratios.png: name an .svg file"), std::string::npos) << bad.err;
}

TEST_F(CompareCli, TwoKernelsOfOneRunAndAKernelAgainstAPeer) {
  const Outcome kernels = run("compare b.db:2 --kernel fa3 --against naive --json");
  ASSERT_EQ(kernels.code, 0) << kernels.err;
  const json k = json::parse(kernels.out);
  ASSERT_EQ(k["rows"].size(), 36u);
  for (const json& r : k["rows"]) {
    EXPECT_EQ(r["kernel"], "fa3 vs naive");
    EXPECT_EQ(r["verdict"], "SLOWER") << r.dump();  // naive is 2-7x fa3's time
  }
  // The whole database: our run and the peers' import, fa3 against PyTorch's cuDNN backend.
  const Outcome peer = run("compare a.db --kernel fa3 --against sdpa_cudnn --json");
  ASSERT_EQ(peer.code, 0) << peer.err;
  const json p = json::parse(peer.out);
  EXPECT_EQ(p["rows"].size(), 36u);
  EXPECT_EQ(p["baseline"], "fa3 of a.db");
  EXPECT_EQ(p["contender"], "sdpa_cudnn of a.db");
  const Outcome alone = run("compare a.db:2 --kernel fa3");
  EXPECT_EQ(alone.code, 1);
  EXPECT_NE(alone.err.find("name a CONTENDER"), std::string::npos) << alone.err;
}

TEST_F(CompareCli, FailOnSlowerExitsOneForCi) {
  const Outcome o = run("compare b.db:2 --kernel fa3 --against naive --fail-on slower");
  EXPECT_EQ(o.code, 1);
  EXPECT_NE(o.err.find("compare: 36 configurations SLOWER (--fail-on slower)"), std::string::npos)
      << o.err;
  EXPECT_NE(o.out.find("36 compared: 0 faster, 36 slower"), std::string::npos);  // printed first
  EXPECT_EQ(run("compare b.db:2 --kernel naive --against fa3 --fail-on slower").code, 0);
}

TEST_F(CompareCli, ARunThatDoesNotExistIsNamedWithTheRunsThere) {
  const Outcome o = run("compare a.db:9 b.db:2");
  EXPECT_EQ(o.code, 1);
  EXPECT_NE(o.err.find("BASELINE 'a.db:9': a.db has no run 9; its runs are 1 (ceilings), 2 "
                       "(bench), 3 (import)"),
            std::string::npos)
      << o.err;
  const Outcome bad = run("compare a.db:two b.db:2");
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("'two' is not a run id"), std::string::npos) << bad.err;
  const Outcome ceilings = run("compare a.db:1 b.db:2");
  EXPECT_EQ(ceilings.code, 1);
  EXPECT_NE(ceilings.err.find("is a ceilings run with no measurements or predictions"),
            std::string::npos)
      << ceilings.err;
  const Outcome missing = run("compare nothing.db:2 b.db:2");
  EXPECT_EQ(missing.code, 1);
  EXPECT_NE(missing.err.find("nothing.db"), std::string::npos) << missing.err;
}

TEST_F(CompareCli, RunsWithNothingInCommonAreRefusedSayingWhatEachHas) {
  copy_shipped_db("2026-11-23-h200-bwd.db", "bwd.db");  // run 1: hd64-128, run 2: hd256
  const Outcome o = run("compare bwd.db:1 bwd.db:2");
  EXPECT_EQ(o.code, 1);
  EXPECT_NE(o.err.find("'bwd.db:1' and 'bwd.db:2' have no configurations in common"),
            std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("(86 configurations)"), std::string::npos) << o.err;
}

TEST_F(CompareCli, AnotherProgramsDatabaseIsRefused) {
  sql("other.db", "CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)");
  const Outcome o = run("compare other.db b.db:2");
  EXPECT_EQ(o.code, 1);
  EXPECT_NE(o.err.find("other.db is an SQLite database but not an fa4-analyze results database"),
            std::string::npos)
      << o.err;
}

TEST_F(CompareCli, AContenderWithTooFewSamplesIsUnsureAndSaysSo) {
  copy_shipped_db("2026-11-23-h200.db", "few.db");
  // fa3's first configuration keeps 3 of its samples.
  sql("few.db",
      "DELETE FROM samples WHERE measurement_id = (SELECT MIN(id) FROM measurements WHERE run_id "
      "= 2 AND kernel = 'fa3') AND sample_index >= 3");
  const Outcome o = run("compare a.db:2 few.db:2 --kernel fa3 --json");
  ASSERT_EQ(o.code, 0) << o.err;
  const json doc = json::parse(o.out);
  const json& first = doc["rows"][0];
  EXPECT_EQ(first["verdict"], "UNSURE");
  EXPECT_EQ(first["why"], "the contender has 3 samples; a verdict needs 5 a side");
  EXPECT_TRUE(first["ratio"].is_null());
}

TEST_F(CompareCli, MeasurementsAgainstPredictionsAreRefused) {
  ASSERT_EQ(run("--db m.db predict --sweep '" FA4_SOURCE_DIR
                "/data/sweeps/ladder-h128.json' --gpu h200 --kernel fa3")
                .code,
            0);
  const Outcome o = run("compare m.db:1 b.db:2");
  EXPECT_EQ(o.code, 1);
  EXPECT_NE(o.err.find("'m.db:1' holds predictions but 'b.db:2' holds measurements"),
            std::string::npos)
      << o.err;
}

TEST_F(CompareCli, TwoPredictionRunsShapeByShapeTheLargestMovesFirst) {
  // A what-if model: the H200 with half its HBM bandwidth, as a second prediction run.
  std::filesystem::copy(FA4_SOURCE_DIR "/models", dir_ / "models");
  json h200 = json::parse(slurp(dir_ / "models/h200.json"));
  h200["hbm_bytes_per_s"]["value"] = h200["hbm_bytes_per_s"]["value"].get<double>() / 2;
  std::ofstream(dir_ / "models/h200.json") << h200.dump(1);
  const std::string predict = " predict --sweep '" FA4_SOURCE_DIR
                              "/data/sweeps/ladder-h128.json' --gpu h200 --kernel fa3,fa4";
  ASSERT_EQ(run("--db m.db" + predict).code, 0);
  ASSERT_EQ(run("--db m.db --models models" + predict).code, 0);
  const Outcome o = run("--db m.db compare 1 2 --json");
  ASSERT_EQ(o.code, 0) << o.err;
  const json doc = json::parse(o.out);
  EXPECT_TRUE(doc["predicted"].get<bool>());
  const json& rows = doc["rows"];
  ASSERT_EQ(rows.size(), 48u);  // 12 shapes, 2 algorithms, 2 passes
  double previous = 1e9;
  for (const json& r : rows) {
    const double move = std::abs(std::log(r["ratio"].get<double>()));
    EXPECT_LE(move, previous + 1e-12) << r.dump();
    previous = move;
    EXPECT_GE(r["ratio"].get<double>(), 1.0) << r.dump();  // less bandwidth is never faster
  }
  EXPECT_EQ(rows[0]["verdict"], "SLOWER");
  std::size_t moved_to_hbm = 0;
  for (const json& r : rows) moved_to_hbm += r["bottleneck"] == "mma -> hbm";
  EXPECT_GT(moved_to_hbm, 0u);
}

// Each run one round (scripts/gpu-ab.sh --trees): the shipped databases hold one bench run each,
// so every configuration has one sample a side and is UNSURE, saying so; a run id or one side is
// refused.
TEST_F(CompareCli, RunsAsRoundsTakesOneSampleARunAndWantsTwoDatabases) {
  const Outcome o = run("compare a.db b.db --runs-as-rounds --json");
  ASSERT_EQ(o.code, 0) << o.err;
  const json doc = json::parse(o.out);
  EXPECT_EQ(doc["baseline"], "a.db (1 runs as rounds)");
  ASSERT_EQ(doc["rows"].size(), 144u);  // as the whole databases compare: ours and the peers'
  int one_sample = 0;
  for (const json& r : doc["rows"]) {
    EXPECT_EQ(r["verdict"], "UNSURE") << r.dump();
    if (r["baseline_n"] != 1) continue;  // a side that was skipped
    ++one_sample;
    EXPECT_NE(r["why"].get<std::string>().find("has 1 sample; a verdict needs 5 a side"),
              std::string::npos)
        << r.dump();
  }
  EXPECT_GE(one_sample, 72);
  expect_refusal(run("compare a.db --runs-as-rounds --kernel fa3 --against fa4"),
                 "--runs-as-rounds takes each run of a database as one round: name two "
                 "databases, BASELINE.db CONTENDER.db");
  expect_refusal(run("compare a.db:2 b.db --runs-as-rounds"),
                 "BASELINE 'a.db:2' names run 2; with each run one round a side is a whole "
                 "database: give FILE.db");
}

TEST_F(CompareCli, ThresholdAndAlphaAreChecked) {
  const Outcome percentless = run("compare a.db:2 b.db:2 --threshold 2");
  EXPECT_EQ(percentless.code, 1);
  EXPECT_NE(percentless.err.find("--threshold 2: give the smallest change worth a verdict as a "
                                 "percentage from 0.1% to 50%"),
            std::string::npos)
      << percentless.err;
  EXPECT_EQ(run("compare a.db:2 b.db:2 --alpha 2").code, 1);
  const Outcome two = run("compare a.db:2 b.db:2 --threshold 2% --json");
  ASSERT_EQ(two.code, 0) << two.err;
  EXPECT_EQ(json::parse(two.out)["threshold"], 0.02);
  const Outcome help = run("compare --help");
  EXPECT_NE(help.out.find("the GPU changed speed, not the code"), std::string::npos);
}

}  // namespace
}  // namespace fa4::testing
