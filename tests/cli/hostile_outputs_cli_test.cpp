// Black-box tests of hostile outputs, each named after what it attacks: text from a database or a
// model file that would run a command from a chart's gnuplot script (a newline, then `!touch`),
// links planted where report and roofline write (the report, a chart, gnuplot's drawing, the chart
// folder), concurrent reports to one path, --out values that are no file name, figures that are
// not finite, and published figures no GPU could reach. Nothing planted runs or is written
// through; every refusal is one line that names the input.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.hpp"

namespace fa4::testing {
namespace {

namespace fs = std::filesystem;

// The shipped run whose measurements and ceilings the planted databases start from.
constexpr const char* kShippedRun = "2026-11-23-h200.db";

class HostileOutputs : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    copy_shipped_db(kShippedRun, "t.db");
  }

  // What a planted text tries to run: a file created in the test's folder.
  fs::path planted_file() const { return dir_ / "PWN"; }

  // A name that ends a gnuplot script's line and runs a shell command on the next.
  std::string payload(const std::string& name) const {
    return name + "\n!touch " + planted_file().string() + "\n#";
  }

  // Runs `sql` on the database `name` in the test's folder.
  void plant(const std::string& name, const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((dir_ / name).c_str(), &db), SQLITE_OK);
    char* message = nullptr;
    const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
    const std::string why = message ? message : "";
    sqlite3_free(message);
    sqlite3_close(db);
    ASSERT_EQ(rc, SQLITE_OK) << why;
  }

  // `sql` with each ? replaced by the payload, as an SQL string, around `name`.
  std::string with_payload(const std::string& sql, const std::string& name) const {
    std::string quoted = "'";
    for (char c : payload(name)) quoted += c == '\'' ? std::string("''") : std::string(1, c);
    quoted += "'";
    std::string out;
    for (char c : sql) out += c == '?' ? quoted : std::string(1, c);
    return out;
  }

  // A copy of the shipped models in models/, with h200.json edited by `edit` and saved as
  // `file_name`.
  template <class Edit>
  void models_with_h200(Edit edit, const std::string& file_name = "h200.json") {
    fs::create_directories(dir_ / "models");
    for (const auto& entry : fs::directory_iterator(fs::path(FA4_SOURCE_DIR) / "models"))
      if (entry.path().filename() != "h200.json")
        fs::copy_file(entry.path(), dir_ / "models" / entry.path().filename());
    nlohmann::json model =
        nlohmann::json::parse(slurp(fs::path(FA4_SOURCE_DIR) / "models/h200.json"));
    edit(model);
    std::ofstream(dir_ / "models" / file_name) << model.dump(1);
  }

  // The published figures and reference runs of the source tree, for --models elsewhere.
  static std::string shipped_data() {
    return " --published '" FA4_SOURCE_DIR "/data/published' --reference-runs '" FA4_SOURCE_DIR
           "/data/runs'";
  }

  void put(const std::string& name, const std::string& text) { std::ofstream(dir_ / name) << text; }

  // Whether the planted command ran; the charts' scripts must have been run for it to mean
  // anything, so a machine without gnuplot skips.
  static bool gnuplot_missing() { return std::system("gnuplot --version >/dev/null 2>&1") != 0; }

  // `roofline --measured --out` and `report` on t.db and the reference runs `runs` (an option):
  // each draws its charts (exit 0, an SVG written) and the planted command never runs.
  void expect_nothing_runs(const std::string& runs) {
    const Outcome roofline =
        run("--db t.db roofline --gpu h200 --measured --out chart/roofline.svg " + runs);
    EXPECT_EQ(roofline.code, 0) << roofline.err;
    EXPECT_TRUE(fs::exists(dir_ / "chart/roofline.svg")) << roofline.err;
    const Outcome report = run("--db t.db report --out r.md " + runs);
    EXPECT_EQ(report.code, 0) << report.err;
    EXPECT_TRUE(fs::exists(dir_ / "r/roofline-h200.svg")) << report.err;
    EXPECT_FALSE(fs::exists(planted_file())) << "a planted command ran";
  }

  // A file a planted link points to, and what it must still hold.
  void put_victim() { put("victim", "not yours\n"); }
  std::string victim() { return slurp(dir_ / "victim"); }
};

// --- Text that reaches a gnuplot script -------------------------------------------------------

TEST_F(HostileOutputs, PeerImportWithANewlineInSourceRunsNothing) {
  if (gnuplot_missing()) GTEST_SKIP() << "no gnuplot: the scripts are not run";
  std::ifstream sample(FA4_TEST_DATA "/peers-sample.jsonl");
  std::string line;
  std::getline(sample, line);
  nlohmann::json record = nlohmann::json::parse(line);
  record["source"] = payload("peer:torch-cudnn");
  put("e.jsonl", record.dump() + "\n");
  run("--db t.db import e.jsonl");  // refused or stored: either way nothing may run from it
  expect_nothing_runs("--no-reference-runs");
}

TEST_F(HostileOutputs, KernelOfAPlantedMeasurementRunsNothing) {
  if (gnuplot_missing()) GTEST_SKIP() << "no gnuplot: the scripts are not run";
  plant("t.db", with_payload("UPDATE measurements SET kernel = ? WHERE kernel = 'sdpa_cudnn'",
                             "sdpa_cudnn"));
  expect_nothing_runs("--no-reference-runs");
}

TEST_F(HostileOutputs, SourceOfAPlantedMeasurementRunsNothing) {
  if (gnuplot_missing()) GTEST_SKIP() << "no gnuplot: the scripts are not run";
  plant("t.db", with_payload("UPDATE measurements SET source = ? WHERE source = 'peer:torch-flash'",
                             "peer:torch-flash"));
  expect_nothing_runs("--no-reference-runs");
}

TEST_F(HostileOutputs, DeviceOfAPlantedMeasurementRunsNothing) {
  if (gnuplot_missing()) GTEST_SKIP() << "no gnuplot: the scripts are not run";
  plant("t.db",
        with_payload("UPDATE measurements SET device = ? WHERE kernel = 'fa3'", "NVIDIA H200"));
  expect_nothing_runs("--no-reference-runs");
}

TEST_F(HostileOutputs, DatabaseDroppedIntoTheReferenceRunsRunsNothing) {
  if (gnuplot_missing()) GTEST_SKIP() << "no gnuplot: the scripts are not run";
  fs::create_directories(dir_ / "runs");
  copy_shipped_db(kShippedRun, "runs/planted.db");
  plant("runs/planted.db",
        with_payload("UPDATE measurements SET kernel = ? WHERE kernel = 'sdpa_flash';"
                     "UPDATE measurements SET source = ? WHERE source = 'ours'",
                     "x"));
  expect_nothing_runs("--reference-runs runs");
}

TEST_F(HostileOutputs, NameOfAModelFileRunsNothing) {
  if (gnuplot_missing()) GTEST_SKIP() << "no gnuplot: the scripts are not run";
  models_with_h200([&](nlohmann::json& m) { m["name"] = payload("NVIDIA H200"); });
  run("--db t.db --models models roofline --gpu h200 --out chart/roofline.svg");
  run("--db t.db --models models report --out r.md" + shipped_data());
  EXPECT_FALSE(fs::exists(planted_file())) << "a planted command ran";
}

TEST_F(HostileOutputs, ModelFileWhoseFileNameHoldsANewlineRunsNothing) {
  if (gnuplot_missing()) GTEST_SKIP() << "no gnuplot: the scripts are not run";
  // A file name holds no '/', so the planted command touches a relative path: it lands wherever
  // gnuplot runs (the chart's folder), and the whole test folder is searched for it.
  const std::string id = "h200\n!touch PWN\n#";
  models_with_h200([](nlohmann::json&) {}, id + ".json");
  ASSERT_TRUE(fs::exists(dir_ / "models" / (id + ".json")));
  run_script("\"$CLI\" --db t.db --models models roofline --out chart/roofline.svg --gpu '" + id +
             "'");
  run("--db t.db --models models report --out r.md" + shipped_data());
  for (const auto& entry : fs::recursive_directory_iterator(dir_))
    EXPECT_NE(entry.path().filename(), "PWN") << "a planted command ran: " << entry.path();
}

// --- Links where the outputs go ---------------------------------------------------------------

TEST_F(HostileOutputs, ReportPathThatIsALinkIsRefusedAndItsTargetKept) {
  put_victim();
  fs::create_symlink("victim", dir_ / "r.md");
  expect_refusal(run("--db t.db report --out r.md"),
                 "cannot write r.md: it is a symbolic link (to victim)");
  EXPECT_EQ(victim(), "not yours\n");
  EXPECT_FALSE(fs::exists(dir_ / "r")) << "no chart is written before the refusal";
}

TEST_F(HostileOutputs, ChartThatIsALinkIsRefusedAndItsTargetKept) {
  put_victim();
  fs::create_directories(dir_ / "r");
  fs::create_symlink("../victim", dir_ / "r/roofline-h200.gp");
  expect_refusal(run("--db t.db report --out r.md"),
                 "cannot write r/roofline-h200.gp: it is a symbolic link (to ../victim)");
  EXPECT_EQ(victim(), "not yours\n");
  EXPECT_FALSE(fs::exists(dir_ / "r.md"));
}

TEST_F(HostileOutputs, PlantedDrawingIntermediateIsNotWrittenThrough) {
  if (gnuplot_missing()) GTEST_SKIP() << "no gnuplot: nothing is drawn";
  put_victim();
  fs::create_directories(dir_ / "r");
  fs::create_symlink("../victim", dir_ / "r/roofline-h200.svg.drawing");
  const Outcome r = run("--db t.db report --out r.md");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(victim(), "not yours\n");
  EXPECT_NE(slurp(dir_ / "r/roofline-h200.svg").find("</svg>"), std::string::npos);
}

TEST_F(HostileOutputs, ChartFolderThatIsALinkIsRefusedAndNothingWrittenThere) {
  fs::create_directories(dir_ / "elsewhere");
  fs::create_symlink("elsewhere", dir_ / "r");
  expect_refusal(run("--db t.db report --out r.md"),
                 "cannot write the charts into r: it is a symbolic link (to elsewhere)");
  EXPECT_TRUE(fs::is_empty(dir_ / "elsewhere"));
  EXPECT_FALSE(fs::exists(dir_ / "r.md"));
}

TEST_F(HostileOutputs, RooflineFilesThatAreLinksAreRefusedAndTheirTargetsKept) {
  put_victim();
  for (const char* file : {"a.svg", "b.gp", "c.dat"}) {
    fs::create_symlink("victim", dir_ / file);
    const std::string svg = fs::path(file).replace_extension(".svg").string();
    expect_refusal(run("roofline --gpu h200 --out " + svg),
                   std::string("cannot write ./") + file + ": it is a symbolic link (to victim)");
    EXPECT_EQ(victim(), "not yours\n") << file;
  }
  EXPECT_FALSE(fs::exists(dir_ / "b.dat")) << "nothing of a refused chart is written";
}

TEST_F(HostileOutputs, RooflineDrawingIntermediateIsNotWrittenThrough) {
  if (gnuplot_missing()) GTEST_SKIP() << "no gnuplot: nothing is drawn";
  put_victim();
  fs::create_symlink("victim", dir_ / "x.svg.drawing");
  const Outcome r = run("roofline --gpu h200 --out x.svg");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(victim(), "not yours\n");
  EXPECT_NE(slurp(dir_ / "x.svg").find("</svg>"), std::string::npos);
}

TEST_F(HostileOutputs, SixConcurrentReportsToOnePathAllSucceed) {
  const Outcome r = run_script(R"sh(
for i in 1 2 3 4 5 6; do
  ( "$CLI" --db t.db report --out r.md >out$i 2>err$i; echo $? >code$i ) &
done
wait
cat code1 code2 code3 code4 code5 code6 | tr -d '\n'; echo
cat err1 err2 err3 err4 err5 err6 >&2
)sh");
  EXPECT_EQ(r.out, "000000\n") << r.err;
  const std::string report = slurp(dir_ / "r.md");
  EXPECT_EQ(report.rfind("# ", 0), 0u);
  ASSERT_GT(report.size(), 1u);
  EXPECT_EQ(report.back(), '\n') << "the report is whole";
  for (const auto& entry : fs::directory_iterator(dir_ / "r")) {
    const std::string name = entry.path().filename().string();
    EXPECT_NE(name[0], '.') << "a temporary left behind: " << name;
    if (entry.path().extension() == ".svg") {
      EXPECT_NE(slurp(entry.path()).find("</svg>"), std::string::npos) << name << " is not whole";
    }
  }
}

// --- --out values that are no file name --------------------------------------------------------

TEST_F(HostileOutputs, ReportOutWithoutAnExtensionIsRefusedBeforeAnythingIsWritten) {
  expect_refusal(run("--db t.db report --out noext"),
                 "--out noext: name the markdown file with its extension (noext.md)");
  EXPECT_FALSE(fs::exists(dir_ / "noext"));
}

TEST_F(HostileOutputs, ReportOutThatNamesAFolderIsRefusedBeforeAnythingIsWritten) {
  fs::create_directories(dir_ / "d");
  expect_refusal(run("--db t.db report --out d/"), "--out d/: names a folder");
  EXPECT_TRUE(fs::is_empty(dir_ / "d"));
  expect_refusal(run("--db t.db report --out ."), "--out .: names a folder");
}

TEST_F(HostileOutputs, ReportOutEmptyIsRefused) {
  expect_refusal(run("--db t.db report --out ''"), "--out is empty");
}

TEST_F(HostileOutputs, OutStartingWithADashIsAFileNotAGnuplotOption) {
  if (gnuplot_missing()) GTEST_SKIP() << "no gnuplot: nothing is drawn";
  const Outcome roofline = run("roofline --gpu h200 --out ./-i.svg");
  EXPECT_EQ(roofline.code, 0) << roofline.err;
  EXPECT_NE(slurp(dir_ / "-i.svg").find("</svg>"), std::string::npos);
  const Outcome report = run("--db t.db report --out ./-r.md");
  EXPECT_EQ(report.code, 0) << report.err;
  EXPECT_NE(slurp(dir_ / "-r/roofline-h200.svg").find("</svg>"), std::string::npos);
}

TEST_F(HostileOutputs, RooflineOutWithASpaceIsRefusedWithAMessage) {
  expect_refusal(run("roofline --gpu h200 --out 'a b.svg'"),
                 "--out a b.svg: the file's name may hold only letters, digits");
}

// --- Values that are not finite ----------------------------------------------------------------

TEST_F(HostileOutputs, InfiniteMeasuredCeilingIsRefusedBeforeAScript) {
  plant("t.db", "UPDATE ceilings SET value = 1e999 WHERE unit = 'gemm_bf16'");
  expect_refusal(run("--db t.db roofline --gpu h200 --measured --no-reference-runs --out x.svg"),
                 "the roof \"cuBLAS bf16 GEMM (measured)\" (TFLOP/s) is inf, not a finite "
                 "positive number");
  EXPECT_FALSE(fs::exists(dir_ / "x.gp"));
  const Outcome report = run("--db t.db report --out r.md --no-reference-runs");
  EXPECT_EQ(report.code, 0) << report.err;
  EXPECT_NE(slurp(dir_ / "r.md").find("No roofline: the roofline of h200: the roof"),
            std::string::npos);
}

TEST_F(HostileOutputs, InfiniteMeasurementIsRefusedBeforeAScript) {
  plant("t.db", "UPDATE measurements SET tflops = 1e999 WHERE kernel = 'fa3'");
  const Outcome r = run("--db t.db report --out r.md --no-reference-runs");
  expect_refusal(r, "is not a finite number");
  EXPECT_EQ(r.err.find("gnuplot failed"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "r.md"));
}

// --- Options taken together --------------------------------------------------------------------

TEST_F(HostileOutputs, ReferenceRunsAndNoReferenceRunsTogetherAreRefused) {
  for (const char* command : {"report --out r.md", "roofline --gpu h200 --measured --json"}) {
    const Outcome r =
        run(std::string("--db t.db ") + command + " --reference-runs runs --no-reference-runs");
    EXPECT_EQ(r.code, 1) << command;
    EXPECT_NE(r.err.find("--reference-runs excludes --no-reference-runs"), std::string::npos)
        << r.err;
  }
  EXPECT_FALSE(fs::exists(dir_ / "r.md"));
}

// --- Published figures no GPU could reach ------------------------------------------------------

class HostilePublished : public HostileOutputs {
 protected:
  // A published-figures folder p/ holding one figure, edited by `edit`.
  template <class Edit>
  void published_figure(Edit edit) {
    nlohmann::json figure = {{"gpu", "b200"},
                             {"kernel", "fa4"},
                             {"pass", "fwd"},
                             {"shape",
                              {{"batch", 2},
                               {"heads", 16},
                               {"seqlen", 16384},
                               {"headdim", 128},
                               {"causal", false},
                               {"dtype", "bf16"}}},
                             {"tflops", 1500}};
    edit(figure);
    fs::create_directories(dir_ / "p");
    put("p/hostile.json",
        nlohmann::json{{"source", "published:hostile"}, {"citation", "none"}, {"figures", {figure}}}
            .dump(1));
  }

  // published, report and import each refuse the file with `text`.
  void expect_refused_everywhere(const std::string& text) {
    expect_refusal(run("published --published p"), text);
    expect_refusal(run("--db t.db report --published p --out r.md"), text);
    EXPECT_FALSE(fs::exists(dir_ / "r.md"));
    expect_refusal(run("--db t.db import p/hostile.json"), text);
  }
};

TEST_F(HostilePublished, FigureAboveItsGpusPeakIsRefused) {
  published_figure([](nlohmann::json& f) { f["tflops"] = 1e300; });
  expect_refused_everywhere(
      "p/hostile.json: /figures/0/tflops: 1e+300 TFLOP/s is above the b200 dense bf16 peak at its "
      "boost clock (2382 TFLOP/s) by more than 10%");
}

TEST_F(HostilePublished, FigureOnAnUnknownGpuIsRefused) {
  published_figure([](nlohmann::json& f) { f["gpu"] = "z100"; });
  expect_refused_everywhere("p/hostile.json: /figures/0/gpu: unknown GPU 'z100'");
}

}  // namespace
}  // namespace fa4::testing
