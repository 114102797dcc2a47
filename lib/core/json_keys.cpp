#include "core/json_keys.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <vector>

namespace fa4 {
namespace {

using nlohmann::json;

// A JSON pointer's reference token: "~" and "/" escaped (RFC 6901).
std::string pointer_token(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~' || c == '/') {
      out.push_back('~');
      out.push_back(c == '~' ? '0' : '1');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// Where the parser is: one frame per open object or array, with the key or index being read.
struct Frame {
  bool is_array = false;
  std::size_t index = 0;
  std::string key;
  std::set<std::string> keys_seen;
};

std::string pointer_of(const std::vector<Frame>& frames) {
  std::string out;
  for (const Frame& f : frames) {
    out.push_back('/');
    out.append(f.is_array ? std::to_string(f.index) : pointer_token(f.key));
  }
  return out;
}

// An element of the enclosing array is complete: the next one has the next index.
void element_done(std::vector<Frame>& frames) {
  if (!frames.empty() && frames.back().is_array) ++frames.back().index;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::optional<std::string> parse_json_noting_duplicate_key(std::string_view text, json& doc) {
  std::vector<Frame> frames;
  std::optional<std::string> duplicate;  // the first key given twice, with its pointer
  const json::parser_callback_t watch = [&](int, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        frames.emplace_back().is_array = event == json::parse_event_t::array_start;
        break;
      case json::parse_event_t::key: {
        Frame& f = frames.back();
        f.key = parsed.get<std::string>();
        if (!f.keys_seen.insert(f.key).second && !duplicate)
          duplicate = fmt::format(
              "{}: duplicate key \"{}\"; an object may give each key once (JSON readers keep "
              "only one of the two): remove one",
              pointer_of(frames), f.key);
        break;
      }
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        frames.pop_back();
        element_done(frames);
        break;
      case json::parse_event_t::value:
        element_done(frames);
        break;
    }
    return true;
  };
  doc = json::parse(text, watch);
  return duplicate;
}

Result<json> parse_json_without_duplicate_keys(std::string_view text, const std::string& origin) {
  json doc;
  std::optional<std::string> duplicate;
  try {
    duplicate = parse_json_noting_duplicate_key(text, doc);
  } catch (const json::exception& e) {  // a syntax error, or a number too large for a double
    return Error{fmt::format("{}: not valid JSON ({}); fix the file", origin, e.what())};
  }
  if (duplicate) return Error{fmt::format("{}: {}", origin, *duplicate)};
  return doc;
}

Status check_known_keys(const json& object, std::initializer_list<std::string_view> allowed,
                        const std::string& where) {
  if (!object.is_object()) return Ok{};
  for (const auto& item : object.items()) {
    const std::string& key = item.key();
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    const auto nearest = std::min_element(allowed.begin(), allowed.end(), [&](auto a, auto b) {
      return edit_distance(key, a) < edit_distance(key, b);
    });
    return Error{fmt::format("{}/{}: unknown key; did you mean \"{}\"? (valid keys here: {})",
                             where, pointer_token(key), *nearest, fmt::join(allowed, ", "))};
  }
  return Ok{};
}

}  // namespace fa4
