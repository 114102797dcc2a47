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

}  // namespace fa4::report
