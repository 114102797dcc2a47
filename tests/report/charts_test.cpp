#include "report/charts.hpp"

#include <stdexcept>

#include <gtest/gtest.h>

namespace fa4::report {
namespace {

LineChart two_lines() {
  return {"b200 \"fwd\" hd128",
          "seqlen",
          {"1024", "2048", "4096"},
          "TFLOP/s",
          {{"fa2", {300.4, 320, 330}}, {"fa4", {1250, 1500.6, 1613}}}};
}

TEST(MermaidChart, IsAWellFormedXyChartBlock) {
  const std::string block = mermaid_line_chart(two_lines());
  EXPECT_EQ(block.rfind("```mermaid\nxychart-beta\n", 0), 0u) << block;
  EXPECT_NE(block.find("    title \"b200 'fwd' hd128\"\n"), std::string::npos) << block;
  EXPECT_NE(block.find("    x-axis \"seqlen\" [\"1024\", \"2048\", \"4096\"]\n"), std::string::npos)
      << block;
  EXPECT_NE(block.find("    y-axis \"TFLOP/s\" 0 --> 1750\n"), std::string::npos) << block;
  EXPECT_NE(block.find("    line [300, 320, 330]\n    line [1250, 1501, 1613]\n"),
            std::string::npos)
      << block;
  EXPECT_EQ(block.substr(block.size() - 4), "```\n");
}

TEST(MermaidChart, RefusesALineOfTheWrongLength) {
  LineChart chart = two_lines();
  chart.lines[0].values.pop_back();
  EXPECT_THROW(mermaid_line_chart(chart), std::logic_error);
}

TEST(MermaidChart, AxisCeilingRoundsUpToAQuarterOfThePowerOfTen) {
  EXPECT_DOUBLE_EQ(axis_ceiling(1613), 1750);
  EXPECT_DOUBLE_EQ(axis_ceiling(342), 350);
  EXPECT_DOUBLE_EQ(axis_ceiling(1000), 1000);
  EXPECT_DOUBLE_EQ(axis_ceiling(0), 1);
}

TEST(MermaidChart, CompleteLinesOnlyAndALegendSentence) {
  LineChart chart = two_lines();
  const std::string block = chart_of_complete_lines(
      chart, {{"fa2", {300, std::nullopt, 330}}, {"fa4", {1250, 1500, 1613}}}, "a prediction");
  EXPECT_NE(block.find("    line [1250, 1500, 1613]\n```\n"), std::string::npos) << block;
  EXPECT_EQ(block.find("line [300"), std::string::npos) << block;
  EXPECT_NE(block.find("its lines are, in drawing order, fa4. Left out for want of a prediction "
                       "at every seqlen: fa2.\n\n"),
            std::string::npos)
      << block;
  EXPECT_EQ(chart_of_complete_lines(chart, {{"fa2", {1, std::nullopt, 2}}}, "x"), "");
}

TEST(MermaidChart, DistinctLabelsAddTheDetailOnlyWhereLabelsRepeat) {
  EXPECT_EQ(distinct_labels({{"1024", "b16"}, {"1024", "b32"}, {"8192", "b4"}}),
            (std::vector<std::string>{"1024 b16", "1024 b32", "8192"}));
  EXPECT_EQ(seqlen_label(1, 8192), "1x8192");
  EXPECT_EQ(seqlen_label(4096, 4096), "4096");
}

}  // namespace
}  // namespace fa4::report
