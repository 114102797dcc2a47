// A Table as an aligned text table, CSV or JSON: what `query` and `runs` print.
#pragma once

#include <string>
#include <string_view>

#include "core/error.hpp"
#include "store/table.hpp"

namespace fa4::store {

enum class TableFormat { text, csv, json };
Result<TableFormat> parse_table_format(std::string_view text);  // "table", "csv", "json"

// Aligned columns under a header and a rule; numbers right-aligned; NULL shown as NULL; control
// characters escaped (\n) so that every row stays on one line; a "(N rows)" footer.
std::string format_text(const Table& table);
// RFC 4180: a header line, then one line per row ending in \n; a field with a comma, a quote, a
// line break or edge spaces is quoted, quotes doubled; NULL is an empty field.
std::string format_csv(const Table& table);
// A JSON array with one object per row, keys in column order; NULL, NaN and infinities are null.
std::string format_json(const Table& table);

std::string format_table(const Table& table, TableFormat format);

}  // namespace fa4::store
