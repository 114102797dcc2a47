// GitHub-flavoured markdown building blocks: escaped table cells and pipe tables.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fa4::report::md {

enum class Align { left, right };

struct Column {
  std::string title;
  Align align = Align::left;
};

struct Table {
  std::vector<Column> columns;
  std::vector<std::vector<std::string>> rows;  // each row has columns.size() cells
};

// A cell's text made safe for a pipe table: '|' becomes "\|", line breaks become spaces.
std::string escape(std::string_view cell);

// The table as markdown lines ending in a newline; cells are escaped here.
std::string render(const Table& table);

}  // namespace fa4::report::md
