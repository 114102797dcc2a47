// The whole report from fixed inputs against tests/report/data/golden-report.md.
// After an intended change (to the report, the model, models/ or data/published), rewrite the
// golden file with FA4_UPDATE_GOLDEN=1 ./report_tests and review its diff before committing.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "report_inputs.hpp"

namespace fa4::report {
namespace {

const std::string kGolden = FA4_TEST_DATA_DIR "/golden-report.md";

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// "line 12:\n  report: ...\n  golden: ...", or "" when the texts are equal.
std::string first_difference(const std::string& report, const std::string& golden) {
  std::istringstream a(report), b(golden);
  std::string line_a, line_b;
  for (int line = 1;; ++line) {
    const bool more_a = bool(std::getline(a, line_a)), more_b = bool(std::getline(b, line_b));
    if (!more_a && !more_b) return report == golden ? "" : "the final newline";
    if (more_a != more_b || line_a != line_b)
      return "line " + std::to_string(line) + ":\n  report: " + (more_a ? line_a : "<end>") +
             "\n  golden: " + (more_b ? line_b : "<end>");
  }
}

TEST(GoldenReport, MatchesTheGoldenFile) {
  const std::string report = render_report(testing::golden_inputs());
  const char* update = std::getenv("FA4_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::ofstream(kGolden, std::ios::binary) << report;
    GTEST_SKIP() << "rewrote " << kGolden;
  }
  const std::string golden = read_file(kGolden);
  ASSERT_FALSE(golden.empty()) << kGolden << " is missing: run with FA4_UPDATE_GOLDEN=1";
  EXPECT_EQ(first_difference(report, golden), "")
      << "the report differs from " << kGolden
      << "; if the change is intended, rerun with FA4_UPDATE_GOLDEN=1 and review the diff";
}

}  // namespace
}  // namespace fa4::report
