// A CLI11 check for integer options: plain decimal digits that fit a 64-bit integer. CLI11 alone
// reads "0x100" as 256 and clamps 2^64 to 2^63-1; this refuses both with what was given.
#pragma once

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <cstdint>
#include <string>

namespace fa4::app {

inline const CLI::Validator kDecimalInteger(
    [](const std::string& text) -> std::string {
      const bool digits =
          !text.empty() &&
          text.find_first_not_of("0123456789", text[0] == '-' ? 1 : 0) == std::string::npos &&
          text != "-";
      if (!digits) return fmt::format("'{}' is not a whole number in decimal digits", text);
      std::int64_t value = 0;
      if (std::from_chars(text.data(), text.data() + text.size(), value).ec != std::errc{})
        return fmt::format("'{}' is beyond a 64-bit integer; give a size the GPU can hold", text);
      return "";
    },
    "INTEGER", "decimal integer");

}  // namespace fa4::app
