// A Table as an aligned text table, CSV or JSON: what `query`, `runs` and `gpus` print.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "report/table.hpp"
#include "store/query_result.hpp"

namespace fa4::report {

// A query's result as a table: its column names as left-aligned titles, its values as cells.
Table table_of(store::QueryResult result);

enum class TableFormat { text, csv, json };
Result<TableFormat> parse_table_format(std::string_view text);  // "table", "csv", "json"

struct TextOptions {
  bool rule = true;       // a line of dashes under the header
  bool row_count = true;  // a "(N rows)" footer
};

// Columns two spaces apart under a header, each title aligned as its column; a cell is
// right-aligned where its column is or where it is a number; NULL shown as NULL; control
// characters escaped (\n) so that every row stays on one line.
std::string format_text(const Table& table, const TextOptions& options = {});
// RFC 4180: a header line, then one line per row ending in \n; a field with a comma, a quote, a
// line break or edge spaces is quoted, quotes doubled; NULL is an empty field.
std::string format_csv(const Table& table);
// A JSON array with one object per row, keys in column order, each the column's json_key; NULL,
// NaN and infinities are null.
std::string format_json(const Table& table);
// A column title as a snake_case JSON key: letters lowered, "%" the word "percent", "#" the word
// "number", every other run of non-alphanumerics one "_" ("published TFLOP/s":
// "published_tflop_s", "95% lo": "95_percent_lo").
std::string json_key(std::string_view title);

std::string format_table(const Table& table, TableFormat format);

// The pieces of format_csv and format_json, for output that streams a row at a time: the CSV
// header line, one CSV line, and one row as a JSON object (no line break) keyed by the titles as
// they are (a query's own column names).
std::string csv_header(const std::vector<Column>& columns);
std::string csv_row(const std::vector<Cell>& row);
std::string json_object(const std::vector<Column>& columns, const std::vector<Cell>& row);

}  // namespace fa4::report
