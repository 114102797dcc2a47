#include "report/table.hpp"

#include <fmt/format.h>

#include <cmath>

namespace fa4::report {
namespace {

// Shortest text that reads back to the same double, always with a '.' or an exponent so that a
// real number stays one in CSV and JSON readers: 1.0, 0.25, 1e+20.
std::string format_real(double value) {
  std::string text = fmt::format("{}", value);
  if (std::isfinite(value) && text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

}  // namespace

bool is_number(const Cell& cell) {
  return std::holds_alternative<std::int64_t>(cell) || std::holds_alternative<double>(cell);
}

std::string cell_text(const Cell& cell, std::string_view null_text) {
  if (const auto* i = std::get_if<std::int64_t>(&cell)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&cell)) return format_real(*d);
  if (const auto* s = std::get_if<std::string>(&cell)) return *s;
  return std::string(null_text);
}

}  // namespace fa4::report
