#include "report/markdown.hpp"

#include <stdexcept>

namespace fa4::report::md {
namespace {

std::string line(const std::vector<std::string>& cells) {
  std::string out = "|";
  for (const auto& cell : cells) {
    out += ' ';
    out += escape(cell);
    out += " |";
  }
  return out + "\n";
}

}  // namespace

std::string escape(std::string_view cell) {
  std::string out;
  out.reserve(cell.size());
  for (char c : cell) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string render(const Table& table) {
  std::vector<std::string> titles;
  std::string rule = "|";
  for (const auto& column : table.columns) {
    titles.push_back(column.title);
    rule += column.align == Align::right ? " ---: |" : " --- |";
  }
  std::string out = line(titles) + rule + "\n";
  for (const auto& row : table.rows) {
    if (row.size() != table.columns.size())
      throw std::logic_error("md::render: a row's cell count differs from the column count");
    out += line(row);
  }
  return out;
}

}  // namespace fa4::report::md
