// A query result as plain values: column names and rows of SQLite-typed cells. The store returns
// it as read; presenting it is the report's (report/table_format.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace fa4::store {

// NULL, INTEGER, REAL or TEXT. A BLOB arrives as TEXT in SQL literal form, x'0a1b'.
using Value = std::variant<std::monostate, std::int64_t, double, std::string>;

struct QueryResult {
  std::vector<std::string> columns;
  std::vector<std::vector<Value>> rows;  // each row has columns.size() cells
};

}  // namespace fa4::store
