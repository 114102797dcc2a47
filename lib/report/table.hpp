// The one table model of every rendering: titled columns, each with an alignment, and rows of
// cells that are NULL, an integer, a real number or text. The markdown renderer (markdown.hpp)
// and the text, CSV and JSON renderers (table_format.hpp) all take it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace fa4::report {

// NULL, integer, real or text: the same cells as a store query's values (store/query_result.hpp).
using Cell = std::variant<std::monostate, std::int64_t, double, std::string>;

enum class Align { left, right };

struct Column {
  // Implicit, so that a list of titles makes the columns: {"GPU", {"SMs", Align::right}}.
  Column(std::string title, Align align = Align::left) : title(std::move(title)), align(align) {}
  Column(const char* title, Align align = Align::left) : Column(std::string(title), align) {}
  std::string title;
  Align align;
};

struct Table {
  std::vector<Column> columns;
  std::vector<std::vector<Cell>> rows;  // each row has columns.size() cells
};

bool is_number(const Cell& cell);
// The cell as plain text: an integer in decimal, a real number in its shortest exact form with a
// '.' or an exponent (1.0, 0.25, 1e+20), NULL as `null_text`.
std::string cell_text(const Cell& cell, std::string_view null_text);

}  // namespace fa4::report
