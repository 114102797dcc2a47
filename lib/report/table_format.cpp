#include "report/table_format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <vector>

namespace fa4::report {
namespace {

static_assert(std::is_same_v<Cell, store::Value>, "a query's values are the table's cells");

// The text with its control characters escaped, so that it stays on one line: \n, \r and \t by
// name, the others in hex (\x1b; JSON's \u001b). For JSON also the quote, the backslash, \b, \f.
std::string escape_controls(std::string_view text, bool json) {
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else if (c == '\t')
      out += "\\t";
    else if (json && (c == '"' || c == '\\'))
      (out += '\\') += c;
    else if (json && c == '\b')
      out += "\\b";
    else if (json && c == '\f')
      out += "\\f";
    else if (byte < 0x20)
      out += json ? fmt::format("\\u{:04x}", byte) : fmt::format("\\x{:02x}", byte);
    else
      out += c;
  }
  return out;
}

// A cell's text that never breaks a text row.
std::string one_line(std::string_view text) { return escape_controls(text, false); }

// Width on a terminal, counting UTF-8 code points.
std::size_t display_width(std::string_view text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

std::string csv_field(std::string_view text) {
  const bool quote = text.find_first_of(",\"\r\n") != std::string_view::npos ||
                     (!text.empty() && (text.front() == ' ' || text.back() == ' '));
  if (!quote) return std::string(text);
  std::string out = "\"";
  for (const char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string json_string(std::string_view text) {
  std::string out = "\"";
  out += escape_controls(text, true);
  return out += '"';
}

std::string json_value(const Cell& cell) {
  if (const auto* d = std::get_if<double>(&cell); d && !std::isfinite(*d)) return "null";
  if (const auto* s = std::get_if<std::string>(&cell)) return json_string(*s);
  return cell_text(cell, "null");
}

}  // namespace

Table table_of(store::QueryResult result) {
  Table table{{}, std::move(result.rows)};
  for (std::string& name : result.columns) table.columns.emplace_back(std::move(name));
  return table;
}

Result<TableFormat> parse_table_format(std::string_view text) {
  if (text == "table") return TableFormat::text;
  if (text == "csv") return TableFormat::csv;
  if (text == "json") return TableFormat::json;
  return Error{fmt::format("unknown format '{}': use table, csv or json", text)};
}

std::string format_text(const Table& table, const TextOptions& options) {
  const std::size_t columns = table.columns.size();
  std::vector<std::vector<std::string>> cells;
  std::vector<std::size_t> widths(columns);
  for (std::size_t c = 0; c < columns; ++c)
    widths[c] = display_width(one_line(table.columns[c].title));
  for (const auto& row : table.rows) {
    auto& line = cells.emplace_back();
    for (std::size_t c = 0; c < columns; ++c) {
      line.push_back(one_line(cell_text(row[c], "NULL")));
      widths[c] = std::max(widths[c], display_width(line.back()));
    }
  }
  std::string out;
  const auto append = [&](std::size_t c, const std::string& text, bool right) {
    const std::string pad(widths[c] - display_width(text), ' ');
    if (c > 0) out += "  ";
    out += right ? pad + text : (c + 1 < columns ? text + pad : text);
  };
  const auto right = [&](std::size_t c) { return table.columns[c].align == Align::right; };
  for (std::size_t c = 0; c < columns; ++c) append(c, one_line(table.columns[c].title), right(c));
  out += '\n';
  if (options.rule) {
    for (std::size_t c = 0; c < columns; ++c) append(c, std::string(widths[c], '-'), false);
    out += '\n';
  }
  for (std::size_t r = 0; r < cells.size(); ++r) {
    for (std::size_t c = 0; c < columns; ++c)
      append(c, cells[r][c], right(c) || is_number(table.rows[r][c]));
    out += '\n';
  }
  if (options.row_count)
    out += fmt::format("({} row{})\n", cells.size(), cells.size() == 1 ? "" : "s");
  return out;
}

std::string csv_header(const std::vector<Column>& columns) {
  std::string out;
  for (std::size_t c = 0; c < columns.size(); ++c)
    (out += c > 0 ? "," : "") += csv_field(columns[c].title);
  return out += '\n';
}

std::string csv_row(const std::vector<Cell>& row) {
  std::string out;
  for (std::size_t c = 0; c < row.size(); ++c)
    (out += c > 0 ? "," : "") += csv_field(cell_text(row[c], ""));
  return out += '\n';
}

std::string json_key(std::string_view title) {
  std::string out;
  bool separate = false;
  const auto word = [&](std::string_view w) {
    if (!out.empty()) out += '_';
    out += w;
    separate = true;
  };
  for (const char ch : title) {
    const auto c = static_cast<unsigned char>(ch);
    if (ch == '%') {
      word("percent");
    } else if (ch == '#') {
      word("number");
    } else if (std::isalnum(c)) {
      if (separate && !out.empty()) out += '_';
      separate = false;
      out += char(std::tolower(c));
    } else {
      separate = true;
    }
  }
  return out;
}

namespace {

std::string object_of(const std::vector<Column>& columns, const std::vector<Cell>& row,
                      bool snake_case_keys) {
  std::string out = "{";
  for (std::size_t c = 0; c < columns.size(); ++c) {
    if (c > 0) out += ", ";
    const std::string& title = columns[c].title;
    out += json_string(snake_case_keys ? json_key(title) : title) + ": " + json_value(row[c]);
  }
  return out += "}";
}

}  // namespace

std::string json_object(const std::vector<Column>& columns, const std::vector<Cell>& row) {
  return object_of(columns, row, false);
}

std::string format_csv(const Table& table) {
  std::string out = csv_header(table.columns);
  for (const auto& row : table.rows) out += csv_row(row);
  return out;
}

std::string format_json(const Table& table) {
  if (table.rows.empty()) return "[]\n";
  std::string out = "[\n";
  for (std::size_t r = 0; r < table.rows.size(); ++r)
    out += "  " + object_of(table.columns, table.rows[r], true) +
           (r + 1 < table.rows.size() ? ",\n" : "\n");
  return out + "]\n";
}

std::string format_table(const Table& table, TableFormat format) {
  switch (format) {
    case TableFormat::text:
      return format_text(table);
    case TableFormat::csv:
      return format_csv(table);
    case TableFormat::json:
      return format_json(table);
  }
  return format_text(table);
}

}  // namespace fa4::report
