#include "report/markdown.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace fa4::report::md {
namespace {

TEST(Markdown, EscapesPipesAndLineBreaks) {
  EXPECT_EQ(escape("a|b"), "a\\|b");
  EXPECT_EQ(escape("one\ntwo\r\nthree"), "one two  three");
  EXPECT_EQ(escape("plain"), "plain");
}

TEST(Markdown, RendersHeaderRuleAndEscapedRows) {
  const Table table{{{"name"}, {"TFLOP/s", Align::right}}, {{"fa|4", "1613"}}};
  EXPECT_EQ(render(table),
            "| name | TFLOP/s |\n"
            "| --- | ---: |\n"
            "| fa\\|4 | 1613 |\n");
}

TEST(Markdown, WritesNumbersAsTextAndNullAsAnEmptyCell) {
  const Table table{{{"n", Align::right}, {"x", Align::right}, {"note"}},
                    {{std::int64_t{12}, 0.5, std::monostate{}}}};
  EXPECT_EQ(render(table),
            "| n | x | note |\n"
            "| ---: | ---: | --- |\n"
            "| 12 | 0.5 |  |\n");
}

TEST(Markdown, RefusesARowOfTheWrongWidth) {
  const Table table{{{"a"}, {"b"}}, {{"only one"}}};
  EXPECT_THROW(render(table), std::logic_error);
}

TEST(Markdown, DetailsFoldTheBodyUnderItsSummary) {
  EXPECT_EQ(details("Every row", "| a |\n"),
            "<details><summary>Every row</summary>\n\n| a |\n</details>\n\n");
}

}  // namespace
}  // namespace fa4::report::md
