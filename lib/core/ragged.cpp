#include "core/ragged.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <random>

#include "core/printable.hpp"

namespace fa4 {
namespace {

// Plain decimal digits that fit a 64-bit integer ("0x10", "-1", "1e3" and "" are not).
std::optional<std::int64_t> decimal(std::string_view text) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string_view::npos)
    return std::nullopt;
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// The pieces of `text` between `separator`s ("a,,b" has an empty middle one).
std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> pieces;
  for (std::size_t start = 0;;) {
    const std::size_t end = text.find(separator, start);
    pieces.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return pieces;
    start = end + 1;
  }
}

constexpr std::int64_t kMaxKeys = std::int64_t{1} << 40;

}  // namespace

std::string format_key_counts(const std::vector<std::int64_t>& counts) {
  std::string text;
  for (const std::int64_t count : counts)
    text += fmt::format("{}{}", text.empty() ? "" : ",", count);
  return text;
}

Result<std::vector<std::int64_t>> parse_key_counts(std::string_view text,
                                                   const std::string& where) {
  std::vector<std::int64_t> counts;
  if (text.empty()) return counts;
  const std::vector<std::string_view> items = split(text, ',');
  for (std::size_t i = 0; i < items.size(); ++i) {
    const auto count = decimal(items[i]);
    if (!count)
      return Error{fmt::format(
          "{} '{}': item {} ('{}') is not a key count; give one whole number of keys (0 or more) "
          "per sequence, comma-separated without spaces, e.g. 8192,100,0",
          where, printable(text), i + 1, printable(items[i]))};
    counts.push_back(*count);
  }
  return counts;
}

Status check_ragged(const RaggedDistribution& d, const std::string& where) {
  if (d.min < 1 || d.max < d.min || d.max > kMaxKeys)
    return Error{fmt::format(
        "{}: min = {}, max = {}: a log-uniform key count needs 1 <= min <= max <= 2^40; give the "
        "shortest and the longest sequence's keys",
        where, d.min, d.max)};
  if (d.seed < 0)
    return Error{fmt::format(
        "{}: seed = {}; give a seed of 0 or more (the same seed, the same counts)", where, d.seed)};
  return Ok{};
}

Result<std::vector<std::int64_t>> ragged_key_counts(const RaggedDistribution& d, std::int64_t batch,
                                                    const std::string& where) {
  if (batch < 1 || batch > kMaxRaggedBatch)
    return Error{fmt::format(
        "{}: batch = {}; a drawn ragged batch has 1 to 2^24 sequences (list longer ones' counts "
        "as seqlens_k)",
        where, batch)};
  std::mt19937_64 engine(static_cast<std::uint64_t>(d.seed));
  const double low = std::log(double(d.min));
  const double span = std::log(double(d.max) + 1.0) - low;
  std::vector<std::int64_t> counts;
  for (std::int64_t b = 0; b < batch; ++b) {
    const double u = double(engine() >> 11) * 0x1.0p-53;
    const auto keys = static_cast<std::int64_t>(std::floor(std::exp(low + u * span)));
    counts.push_back(std::clamp(keys, d.min, d.max));
  }
  return counts;
}

Result<RaggedDistribution> parse_ragged(std::string_view text, const std::string& where) {
  const std::vector<std::string_view> parts = split(text, ':');
  std::optional<std::int64_t> values[3];
  if (parts.size() == 3)
    for (std::size_t i = 0; i < 3; ++i) values[i] = decimal(parts[i]);
  if (parts.size() != 3 || !values[0] || !values[1] || !values[2])
    return Error{fmt::format(
        "{} '{}': expected MIN:MAX:SEED, three whole numbers (the shortest and the longest "
        "sequence's keys, and the seed), e.g. 128:8192:1",
        where, printable(text))};
  const RaggedDistribution d{*values[0], *values[1], *values[2]};
  if (auto ok = check_ragged(d, where); !ok) return ok.error();
  return d;
}

}  // namespace fa4
