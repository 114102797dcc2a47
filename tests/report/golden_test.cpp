// The whole report from fixed inputs against tests/report/data/golden-report.md, and its charts'
// scripts and data and its CSV files against tests/report/data/golden-report/.
// After an intended change (to the report, the model, models/ or data/published), rewrite the
// golden file with FA4_UPDATE_GOLDEN=1 ./report_tests and review its diff before committing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "report/chart.hpp"
#include "report/chart_render.hpp"
#include "report_inputs.hpp"
#include "svg_text.hpp"

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

bool updating() {
  const char* update = std::getenv("FA4_UPDATE_GOLDEN");
  return update && std::string(update) == "1";
}

// `text` against the golden file `path`, or the file rewritten under FA4_UPDATE_GOLDEN=1.
void expect_golden(const std::string& text, const std::filesystem::path& path) {
  if (updating()) {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
    return;
  }
  const std::string golden = read_file(path.string());
  ASSERT_FALSE(golden.empty()) << path << " is missing: run with FA4_UPDATE_GOLDEN=1";
  EXPECT_EQ(first_difference(text, golden), "")
      << "differs from " << path
      << "; if the change is intended, rerun with FA4_UPDATE_GOLDEN=1 and review the diff";
}

TEST(GoldenReport, MatchesTheGoldenFile) {
  expect_golden(render_report(testing::golden_inputs()).markdown, kGolden);
}

// Every chart's gnuplot script and data, and every CSV file, against golden-report/.
TEST(GoldenReport, ChartsAndCsvMatchTheGoldenFiles) {
  const RenderedReport report = render_report(testing::golden_inputs());
  const std::filesystem::path folder = FA4_TEST_DATA_DIR "/golden-report";
  if (updating()) std::filesystem::remove_all(folder);
  std::size_t files = 0;
  for (const Figure& figure : report.charts.figures()) {
    const FigureFiles f = gnuplot_files(figure);
    expect_golden(f.script, folder / (figure.name + ".gp"));
    expect_golden(f.data, folder / (figure.name + ".dat"));
    files += 2;
  }
  for (const auto& csv : report.charts.attachments()) {
    expect_golden(csv.text().value(), folder / csv.file_name);
    ++files;
  }
  std::size_t golden_files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(folder))
    ++golden_files;
  EXPECT_EQ(files, golden_files) << "a golden file in " << folder << " has no chart or CSV now";
}

// gnuplot draws every chart of the report (a script it refuses fails here): each SVG is
// well-formed XML and names every series of its legends.
TEST(GoldenReport, EveryChartRendersToSvgNamingItsSeries) {
  const auto gnuplot = find_gnuplot();
  if (!gnuplot) GTEST_SKIP() << "skipped: " << gnuplot.error().message;
  const RenderedReport report = render_report(testing::golden_inputs());
  const std::filesystem::path folder =
      std::filesystem::temp_directory_path() / "fa4-golden-report-charts";
  std::filesystem::remove_all(folder);
  for (const Figure& figure : report.charts.figures()) {
    const Status drawn = write_figure(folder, figure, &*gnuplot);
    ASSERT_TRUE(drawn) << drawn.error().message;
    const auto texts = testing::svg_texts((folder / (figure.name + ".svg")).string());
    ASSERT_TRUE(texts) << texts.error().message;
    for (const std::string& name : legend_names(figure))
      EXPECT_NE(std::find(texts->begin(), texts->end(), name), texts->end())
          << figure.name << ".svg lacks " << name;
  }
  std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace fa4::report
