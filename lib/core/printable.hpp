// Text that came from a user or a file, made safe to show: a control character (newline, NUL,
// ESC, the other C0 codes, DEL and the C1 codes U+0080..U+009F) quoted in a message would end the
// line, cut the text short or drive the terminal. Names that reach scripts, charts and terminals
// refuse them (find_control_character); messages show them escaped (printable).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace fa4 {

// The byte offset of the first control character in `text`, or nothing.
std::optional<std::size_t> find_control_character(std::string_view text);

// `text` with each control character written as an escape: "\n", "\t", "\r", "\x1b", "\u009b";
// everything else as it is.
std::string printable(std::string_view text);

}  // namespace fa4
