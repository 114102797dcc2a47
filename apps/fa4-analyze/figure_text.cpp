#include "figure_text.hpp"

#include <fmt/format.h>

#include "hw/loader.hpp"

namespace fa4::app {
namespace {

std::string format_bytes(double bytes) {
  constexpr double kKiB = 1024, kMiB = 1024 * 1024;
  if (bytes == 0) return "none";
  if (bytes >= 1e9) return fmt::format("{:.4g} GB", bytes / 1e9);
  if (bytes >= kMiB) return fmt::format("{:.4g} MiB", bytes / kMiB);
  return fmt::format("{:.4g} KiB", bytes / kKiB);
}

}  // namespace

std::string format_value(hw::Unit unit, double value) {
  switch (unit) {
    case hw::Unit::number:
      return value == 0 ? "none" : fmt::format("{:.10g}", value);
    case hw::Unit::compute_capability:
      return fmt::format("{}.{}", int(value) / 10, int(value) % 10);
    case hw::Unit::mhz:
      return fmt::format("{:.10g} MHz", value);
    case hw::Unit::bytes:
      return format_bytes(value);
    case hw::Unit::bytes_per_s:
      return fmt::format("{:.4g} TB/s", value / 1e12);
    case hw::Unit::fraction:
      return fmt::format("{:.3g}", value);
  }
  return "?";
}

std::string format_figure(const hw::Figure& figure, const hw::Spec& gpu) {
  const std::string_view absent = figure.source_when_absent;
  if (!absent.empty() && hw::source_of(gpu, figure.pointer) == absent)
    return std::string(absent.substr(0, absent.find(':')));
  return format_value(figure.unit, figure.get(gpu));
}

}  // namespace fa4::app
