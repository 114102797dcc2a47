#include "core/printable.hpp"

#include <fmt/format.h>

namespace fa4 {
namespace {

constexpr unsigned char kDelete = 0x7f;
// UTF-8 writes the C1 controls U+0080..U+009F as 0xC2 followed by 0x80..0x9F.
constexpr unsigned char kC1Lead = 0xc2, kC1First = 0x80, kC1Last = 0x9f;

bool is_c0_or_delete(unsigned char c) { return c < 0x20 || c == kDelete; }

// Whether a C1 control starts at `at`.
bool is_c1_at(std::string_view text, std::size_t at) {
  if (at + 1 >= text.size() || static_cast<unsigned char>(text[at]) != kC1Lead) return false;
  const auto next = static_cast<unsigned char>(text[at + 1]);
  return next >= kC1First && next <= kC1Last;
}

std::string escape(unsigned char c) {
  switch (c) {
    case '\n':
      return "\\n";
    case '\t':
      return "\\t";
    case '\r':
      return "\\r";
    default:
      return fmt::format("\\x{:02x}", c);
  }
}

}  // namespace

std::optional<std::size_t> find_control_character(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i)
    if (is_c0_or_delete(static_cast<unsigned char>(text[i])) || is_c1_at(text, i)) return i;
  return std::nullopt;
}

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (is_c0_or_delete(c)) {
      out += escape(c);
    } else if (is_c1_at(text, i)) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(text[++i]));
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

}  // namespace fa4
