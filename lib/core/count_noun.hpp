// "1 run", "2 runs": a count with its noun in the right number, for messages.
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>

namespace fa4 {

// The plural is the singular plus "s" unless given.
inline std::string count_noun(long long count, std::string_view singular,
                              std::string_view plural = {}) {
  if (count == 1) return fmt::format("1 {}", singular);
  return plural.empty() ? fmt::format("{} {}s", count, singular)
                        : fmt::format("{} {}", count, plural);
}

}  // namespace fa4
