// GitHub-flavoured markdown building blocks: escaped table cells and pipe tables of the one
// table model (report/table.hpp), and folded blocks.
#pragma once

#include <string>
#include <string_view>

#include "report/table.hpp"

namespace fa4::report::md {

// A cell's text made safe for a pipe table: '|' becomes "\|", line breaks become spaces.
std::string escape(std::string_view cell);

// The table as markdown lines ending in a newline; cells are escaped here, NULL is empty.
std::string render(const Table& table);

// `body` folded under a line that reads `summary` (GitHub's <details>), ending in a blank line.
std::string details(std::string_view summary, std::string_view body);

}  // namespace fa4::report::md
