// Charts that GitHub renders with no extra tools: Mermaid `xychart-beta` blocks.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
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

// A series that may lack a value at some x labels (a kernel with no figure at some seqlens).
struct SparseSeries {
  std::string name;
  std::vector<std::optional<double>> values;  // one per x label
};

// The chart of the series with a value at every x label (chart.lines is ignored), then the
// sentence that names its lines in drawing order, since xychart-beta draws no legend, and the
// series left out "for want of {wanting} at every {x_title}". Empty when no series is complete.
std::string chart_of_complete_lines(LineChart chart, const std::vector<SparseSeries>& series,
                                    std::string_view wanting);

// An x label for a seqlen axis: "8192", or "1x8192" when seqlen_q != seqlen_k.
std::string seqlen_label(std::int64_t seqlen_q, std::int64_t seqlen_k);

// Each label, with " {detail}" added where another label is the same, so categories stay apart:
// {"1024","b16"}, {"1024","b32"}, {"8192","b4"} -> "1024 b16", "1024 b32", "8192".
std::vector<std::string> distinct_labels(
    const std::vector<std::pair<std::string, std::string>>& label_and_detail);

// The y axis's top: the largest value rounded up to a quarter of its power of ten
// (1613 -> 1750, 342 -> 350), and at least 1.
double axis_ceiling(double largest);

}  // namespace fa4::report
