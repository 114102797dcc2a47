// The smallest change worth a verdict, as `compare --threshold` and `bench --ab --threshold` take
// it: a percentage with its sign, from 0.1% to 50% ("2%").
#pragma once

#include <fmt/format.h>

#include <charconv>
#include <string>
#include <string_view>

#include "user_error.hpp"

namespace fa4::app {

// The threshold as a fraction (0.02 for "2%"); a UserError naming the input otherwise.
inline double parse_threshold(const std::string& text) {
  const std::string_view digits = std::string_view(text).substr(0, text.size() - 1);
  double percent = 0;
  const bool ok = !text.empty() && text.back() == '%' &&
                  std::from_chars(digits.data(), digits.data() + digits.size(), percent).ptr ==
                      digits.data() + digits.size();
  if (!ok || !(percent >= 0.1 && percent <= 50))
    throw UserError(fmt::format(
        "--threshold {}: give the smallest change worth a verdict as a percentage from 0.1% to "
        "50%, with its sign: --threshold 2%",
        text));
  return percent / 100;
}

}  // namespace fa4::app
