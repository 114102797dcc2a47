// fa4-analyze import, black box: peer JSON Lines (good, imported twice, malformed) and published
// figures, and that a refused file leaves the database as it was.
#include <gmock/gmock.h>

#include <fstream>

#include "cli_runner.hpp"

namespace fa4::testing {
namespace {

using ::testing::HasSubstr;

const std::string kSample = FA4_TEST_DATA "/peers-sample.jsonl";

class Import : public CliTest {
 protected:
  std::string count(const std::string& sql) {
    const Outcome o = run("--db r.db query --format csv \"" + sql + "\"");
    EXPECT_EQ(o.code, 0) << o.err;
    return o.out.substr(o.out.find('\n') + 1);
  }
  // The sample with line `number` (1-based) replaced by `text`.
  std::string sample_with_line(int number, const std::string& text) {
    std::ifstream in(kSample);
    std::string line, out;
    for (int n = 1; std::getline(in, line); ++n) out += (n == number ? text : line) + "\n";
    const auto path = dir_ / "edited.jsonl";
    std::ofstream(path) << out;
    return path.string();
  }
};

TEST_F(Import, RecordsPeersWithTheirSourceAndRecomputedTflops) {
  const Outcome o = run("--db r.db import " + kSample);
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("3 measurements added in 1 new run, 0 already present"));
  EXPECT_EQ(count("SELECT COUNT(*) FROM measurements WHERE source = 'peer:torch-cudnn'"), "1\n");
  EXPECT_EQ(count("SELECT status || ' ' || reason FROM measurements WHERE kernel = 'triton_fa'"),
            "skipped no Triton backward kernel in this project\n");
  // 4 * 4 * 16 * 4096^2 * 128 FLOPs in 0.9 ms.
  EXPECT_EQ(count("SELECT ROUND(tflops, 1) FROM measurements WHERE kernel = 'sdpa_cudnn'"),
            "610.8\n");
  EXPECT_EQ(count("SELECT COUNT(*) FROM samples"), "6\n");
  EXPECT_EQ(count("SELECT kind || ' ' || revision || ' ' || device FROM runs"),
            "import 40100aa NVIDIA H200\n");
  EXPECT_THAT(count("SELECT notes FROM runs"), HasSubstr("torch 2.11.0"));
}

TEST_F(Import, TheSameFileTwiceAddsNothing) {
  ASSERT_EQ(run("--db r.db import " + kSample).code, 0);
  const Outcome again = run("--db r.db import " + kSample);
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_THAT(again.out, HasSubstr("0 measurements added in 0 new runs, 3 already present"));
  EXPECT_EQ(count("SELECT COUNT(*) FROM measurements"), "3\n");
  EXPECT_EQ(count("SELECT COUNT(*) FROM runs"), "1\n");
}

TEST_F(Import, AMalformedLineNamesItsNumberAndLoadsNothing) {
  ASSERT_EQ(run("--db r.db import " + kSample).code, 0);
  const std::string broken = sample_with_line(2, "{\"schema\": \"fa4-peer/1\", \"run\": ");
  const Outcome o = run("--db r.db import " + broken);
  EXPECT_EQ(o.code, 1);
  EXPECT_THAT(o.err, HasSubstr("edited.jsonl:2: not valid JSON"));
  EXPECT_THAT(o.err, HasSubstr("nothing was imported"));
  EXPECT_EQ(count("SELECT COUNT(*) FROM measurements"), "3\n");
}

TEST_F(Import, AMissingFieldIsNamed) {
  const std::string edited = sample_with_line(
      3, "{\"schema\": \"fa4-peer/1\", \"run\": \"x\", \"kernel\": \"k\", \"source\": \"peer:x\"}");
  const Outcome o = run("--db r.db import " + edited);
  EXPECT_EQ(o.code, 1);
  EXPECT_THAT(o.err, HasSubstr("edited.jsonl:3: missing \"device\""));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "r.db"))
      << "a file refused first creates no database";
}

TEST_F(Import, AnImpossibleShapeIsRefused) {
  std::ifstream in(kSample);
  std::string first;
  std::getline(in, first);
  const auto at = first.find("\"heads_kv\": 16");
  ASSERT_NE(at, std::string::npos);
  first.replace(at, 14, "\"heads_kv\": 3");
  const Outcome o = run("--db r.db import " + sample_with_line(1, first));
  EXPECT_EQ(o.code, 1);
  EXPECT_THAT(o.err, HasSubstr(":1: \"shape\""));
}

TEST_F(Import, PublishedFiguresGoToThePublishedTable) {
  const std::string papers = FA4_SOURCE_DIR "/data/published/papers.json";
  const Outcome o = run("--db r.db import " + papers);
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("published figures recorded"));
  const std::string n = count("SELECT COUNT(*) FROM published WHERE source = 'published:papers'");
  EXPECT_NE(n, "0\n");
  ASSERT_EQ(run("--db r.db import " + papers).code, 0);
  EXPECT_EQ(count("SELECT COUNT(*) FROM published"), n);
}

TEST_F(Import, ARecordFileWithOriginsAndGqaFp8FiguresLoadsWhole) {
  const Outcome o =
      run("--db r.db import " FA4_SOURCE_DIR "/data/published/record/cudnn-frontend-h200.json");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("56 published figures recorded"));
  EXPECT_EQ(count("SELECT COUNT(*) FROM published WHERE source = 'published:cudnn-frontend-h200' "
                  "AND heads_kv = 8 AND dtype = 'fp8'"),
            "20\n");
}

TEST_F(Import, AMissingFileIsNamed) {
  const Outcome o = run("--db r.db import nowhere.jsonl");
  EXPECT_EQ(o.code, 1);
  EXPECT_THAT(o.err, HasSubstr("cannot read nowhere.jsonl"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "r.db"));
}

}  // namespace
}  // namespace fa4::testing
