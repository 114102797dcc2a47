#include "report/numbers.hpp"

#include <fmt/format.h>

#include <cmath>

namespace fa4::report {
namespace {

// fmt prints a value that rounds to zero from below as "-0".
double no_negative_zero(double value, double unit) {
  return std::abs(value) < unit / 2 ? 0.0 : value;
}

}  // namespace

std::string integer(double value) { return fmt::format("{:.0f}", no_negative_zero(value, 1)); }

std::string signed_percent(double value) {
  return fmt::format("{:+.1f}%", no_negative_zero(value, 0.1));
}

std::string percent(double value) { return fmt::format("{:.1f}%", no_negative_zero(value, 0.1)); }

std::string ratio(double value) { return fmt::format("{:.2f}x", value); }

std::string compact(double value) { return fmt::format("{:.4g}", value); }

std::string seqlen_label(std::int64_t seqlen_q, std::int64_t seqlen_k) {
  return seqlen_q == seqlen_k ? fmt::format("{}", seqlen_q)
                              : fmt::format("{}x{}", seqlen_q, seqlen_k);
}

}  // namespace fa4::report
