#include "report/markdown.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace fa4::report::md {
namespace {

template <typename T, typename TextOf>
std::string line(const std::vector<T>& cells, const TextOf& text_of) {
  std::string out = "|";
  for (const auto& cell : cells) {
    out += ' ';
    out += escape(text_of(cell));
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
  std::string rule = "|";
  for (const auto& column : table.columns)
    rule += column.align == Align::right ? " ---: |" : " --- |";
  std::string out =
      line(table.columns, [](const Column& column) { return column.title; }) + rule + "\n";
  for (const auto& row : table.rows) {
    if (row.size() != table.columns.size())
      throw std::logic_error("md::render: a row's cell count differs from the column count");
    out += line(row, [](const Cell& cell) { return cell_text(cell, ""); });
  }
  return out;
}

std::string details(std::string_view summary, std::string_view body) {
  return fmt::format("<details><summary>{}</summary>\n\n{}</details>\n\n", summary, body);
}

}  // namespace fa4::report::md
