// The gnuplot chart module: a small figure's script and data against golden files, what the data
// leaves out, and (where gnuplot is installed) the SVG it renders: well-formed XML that names
// every series of the legend.
#include "report/chart.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "report/chart_render.hpp"
#include "report/report_charts.hpp"
#include "svg_text.hpp"

namespace fa4::report {
namespace {

namespace fs = std::filesystem;

Figure sample_figure() {
  Panel lines;
  lines.title = "hd128";
  lines.x = log_axis("seqlen (tokens)", 2);
  lines.y = linear_axis("TFLOP/s", 0.0);
  lines.series = {{"fa4 'model'", SeriesStyle::line, "", {{1024, 900, ""}, {8192, 1500, ""}}},
                  {"HBM roof", SeriesStyle::roof, "", {{1024, 300, ""}, {8192, 2400, ""}}},
                  {"measured ceiling",
                   SeriesStyle::dashed_line,
                   "HBM roof",
                   {{0, 10, "dropped: x = 0 on a log axis"}, {1024, 250, ""}, {8192, 2000, ""}}},
                  {"no points", SeriesStyle::points, "", {}},
                  {"cudnn", SeriesStyle::triangles, "", {{4096, 1200, "cudnn\tprefill"}}},
                  {"names", SeriesStyle::labels, "#000000", {{4096, 1500, "prefill"}}}};
  Panel bars;
  bars.title = "units";
  bars.x = linear_axis("kernel");
  bars.y = linear_axis("share of tile time (%)", 0.0, 110.0);
  bars.categories = {"fa4 fwd", "fa4 bwd"};
  bars.legend = Legend::outside_right;
  bars.series = {{"MMA", SeriesStyle::bars, "", {{0, 100, ""}, {1, 77, ""}}},
                 {"exp", SeriesStyle::bars, "", {{0, 100, ""}, {1, 31, ""}}},
                 {"fa4 'model'", SeriesStyle::points, "", {{0, 105, ""}}}};
  Figure f;
  f.name = "sample-chart";
  f.title = "A sample: two panels";
  f.panels = {lines, bars};
  return f;
}

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Compares `text` with the golden file, or rewrites it under FA4_UPDATE_GOLDEN=1.
void expect_golden(const std::string& text, const std::string& file) {
  const fs::path path = fs::path(FA4_TEST_DATA_DIR) / file;
  const char* update = std::getenv("FA4_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << text;
    return;
  }
  EXPECT_EQ(text, read(path)) << "differs from " << path
                              << "; if intended, rerun with FA4_UPDATE_GOLDEN=1";
}

TEST(GnuplotFiles, ScriptAndDataMatchTheGoldenFiles) {
  const FigureFiles files = gnuplot_files(sample_figure());
  expect_golden(files.script, "sample-chart.gp");
  expect_golden(files.data, "sample-chart.dat");
}

TEST(GnuplotFiles, LeaveOutEmptySeriesAndPointsALogAxisCannotShow) {
  const FigureFiles files = gnuplot_files(sample_figure());
  EXPECT_EQ(files.data.find("dropped"), std::string::npos);
  EXPECT_EQ(files.data.find("no points"), std::string::npos);
  EXPECT_EQ(files.script.find("'no points'"), std::string::npos);
  EXPECT_NE(files.data.find("cudnn prefill"), std::string::npos) << "a tab in a label is a space";
  EXPECT_NE(files.script.find("title 'fa4 ''model'''"), std::string::npos)
      << "a quote is doubled in gnuplot's single-quoted strings";
}

TEST(GnuplotFiles, SeriesOfOneColourKeyShareAColour) {
  const std::string script = gnuplot_files(sample_figure()).script;
  const auto colour_in = [&](const std::string& title) {
    const auto at = script.find("title '" + title + "'");
    const auto rgb = script.rfind("lc rgb '", at);
    return script.substr(rgb, 16);
  };
  EXPECT_EQ(colour_in("HBM roof"), colour_in("measured ceiling"));
  EXPECT_NE(colour_in("HBM roof"), colour_in("cudnn"));
}

TEST(GnuplotFiles, LeaveOutEmptyPanelsAndRefuseAFigureWithNothingToDraw) {
  Figure f = sample_figure();
  Panel empty;
  empty.title = "nothing here";
  f.panels.insert(f.panels.begin(), empty);
  const std::string script = gnuplot_files(f).script;
  EXPECT_EQ(script.find("nothing here"), std::string::npos);
  EXPECT_NE(script.find("set multiplot layout 1,2 "), std::string::npos) << script;
  f.panels = {empty};
  EXPECT_FALSE(has_data(f));
  EXPECT_THROW(gnuplot_files(f), std::logic_error);
  ReportCharts charts("c", "");
  EXPECT_EQ(charts.embed(f),
            "*No chart \"A sample: two panels\": no series has a point to draw.*\n\n");
  EXPECT_TRUE(charts.figures().empty());
}

TEST(GnuplotFiles, RefuseANameThatIsNotAFileStem) {
  Figure f = sample_figure();
  f.name = "../escape";
  EXPECT_THROW(gnuplot_files(f), std::logic_error);
}

TEST(LegendNames, AreTheDrawnSeriesOnceEach) {
  EXPECT_EQ(legend_names(sample_figure()),
            (std::vector<std::string>{"fa4 'model'", "HBM roof", "measured ceiling", "cudnn", "MMA",
                                      "exp"}));
}

TEST(RenderedChart, IsWellFormedSvgNamingEverySeries) {
  const auto gnuplot = find_gnuplot();
  if (!gnuplot) GTEST_SKIP() << "skipped: " << gnuplot.error().message;
  const fs::path folder = fs::temp_directory_path() / "fa4-chart-test";
  fs::remove_all(folder);
  const Figure figure = sample_figure();
  const Status written = write_figure(folder, figure, &*gnuplot);
  ASSERT_TRUE(written) << written.error().message;
  EXPECT_TRUE(fs::exists(folder / "sample-chart.gp"));
  EXPECT_TRUE(fs::exists(folder / "sample-chart.dat"));
  const auto texts = testing::svg_texts((folder / "sample-chart.svg").string());
  ASSERT_TRUE(texts) << texts.error().message;
  for (const std::string& name : legend_names(figure))
    EXPECT_NE(std::find(texts->begin(), texts->end(), name), texts->end())
        << "the SVG's legend lacks " << name;
  fs::remove_all(folder);
}

TEST(RenderedChart, AMissingGnuplotIsNamedWithHowToInstallIt) {
  ::setenv("FA4_GNUPLOT", "/nonexistent/gnuplot", 1);
  const auto gnuplot = find_gnuplot();
  ::unsetenv("FA4_GNUPLOT");
  ASSERT_FALSE(gnuplot);
  EXPECT_NE(gnuplot.error().message.find("gnuplot-nox"), std::string::npos)
      << gnuplot.error().message;
}

}  // namespace
}  // namespace fa4::report
