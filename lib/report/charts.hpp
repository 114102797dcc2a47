// Charts that GitHub renders with no extra tools: Mermaid `xychart-beta` blocks.
#pragma once

#include <string>
#include <vector>

namespace fa4::report {

struct LineSeries {
  std::string name;            // xychart-beta draws no legend: say the order in the prose
  std::vector<double> values;  // one per x label
};

struct LineChart {
  std::string title;
  std::string x_title;
  std::vector<std::string> x_labels;
  std::string y_title;
  std::vector<LineSeries> lines;
};

// A fenced ```mermaid block: title, categorical x axis, y axis from 0 to a round ceiling above
// the largest value, one `line` per series (values as integers). Double quotes in titles and
// labels become single quotes, which Mermaid's quoted strings cannot hold.
std::string mermaid_line_chart(const LineChart& chart);

// The y axis's top: the largest value rounded up to a quarter of its power of ten
// (1613 -> 1750, 342 -> 350), and at least 1.
double axis_ceiling(double largest);

}  // namespace fa4::report
