#include "report/charts.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "report/numbers.hpp"

namespace fa4::report {
namespace {

std::string quoted(std::string text) {
  std::replace(text.begin(), text.end(), '"', '\'');
  return "\"" + text + "\"";
}

template <class T, class Format>
std::string list(const std::vector<T>& items, Format format) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + format(items[i]);
  return out + "]";
}

}  // namespace

double axis_ceiling(double largest) {
  if (largest <= 1) return 1;
  const double step = std::pow(10.0, std::floor(std::log10(largest))) / 4;
  return std::ceil(largest / step) * step;
}

std::string mermaid_line_chart(const LineChart& chart) {
  double largest = 0;
  for (const auto& line : chart.lines) {
    if (line.values.size() != chart.x_labels.size())
      throw std::logic_error("mermaid_line_chart: a line's value count differs from the x labels");
    for (double v : line.values) largest = std::max(largest, v);
  }
  std::string out = "```mermaid\nxychart-beta\n";
  out += fmt::format("    title {}\n", quoted(chart.title));
  out += fmt::format("    x-axis {} {}\n", quoted(chart.x_title), list(chart.x_labels, quoted));
  out += fmt::format("    y-axis {} 0 --> {}\n", quoted(chart.y_title),
                     integer(axis_ceiling(largest)));
  for (const auto& line : chart.lines)
    out += fmt::format("    line {}\n", list(line.values, [](double v) { return integer(v); }));
  return out + "```\n";
}

std::string chart_of_complete_lines(LineChart chart, const std::vector<SparseSeries>& series,
                                    std::string_view wanting) {
  chart.lines.clear();
  std::string left_out;
  for (const auto& s : series) {
    if (std::all_of(s.values.begin(), s.values.end(), [](const auto& v) { return v.has_value(); })) {
      LineSeries line{s.name, {}};
      for (const auto& v : s.values) line.values.push_back(*v);
      chart.lines.push_back(std::move(line));
    } else {
      left_out += (left_out.empty() ? "" : ", ") + s.name;
    }
  }
  if (chart.lines.empty()) return "";
  std::string order;
  for (std::size_t i = 0; i < chart.lines.size(); ++i)
    order += (i ? ", " : "") + chart.lines[i].name;
  std::string out =
      mermaid_line_chart(chart) + "\n" +
      fmt::format("The chart has no legend: its lines are, in drawing order, {}.", order);
  if (!left_out.empty())
    out += fmt::format(" Left out for want of {} at every {}: {}.", wanting, chart.x_title,
                       left_out);
  return out + "\n\n";
}

std::string seqlen_label(std::int64_t seqlen_q, std::int64_t seqlen_k) {
  return seqlen_q == seqlen_k ? fmt::format("{}", seqlen_q)
                              : fmt::format("{}x{}", seqlen_q, seqlen_k);
}

std::vector<std::string> distinct_labels(
    const std::vector<std::pair<std::string, std::string>>& label_and_detail) {
  std::vector<std::string> labels;
  for (const auto& [label, detail] : label_and_detail) {
    const auto shared = std::count_if(label_and_detail.begin(), label_and_detail.end(),
                                      [&](const auto& other) { return other.first == label; });
    labels.push_back(shared > 1 ? label + " " + detail : label);
  }
  return labels;
}

}  // namespace fa4::report
