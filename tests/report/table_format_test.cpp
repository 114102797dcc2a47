// Text, CSV and JSON renderings of a table: what query, runs and gpus print.
#include "report/table_format.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace fa4::report {
namespace {

Table sample_table() {
  return Table{{"id", "kernel", "tflops", "note"},
               {{std::int64_t{1}, std::string("fa4"), 1234.5, std::monostate{}},
                {std::int64_t{12}, std::string("fa2, mma.sync"), 300.0, std::string("a \"b\"")}}};
}

TEST(TableFormat, TextAlignsColumnsAndRightAlignsNumbers) {
  EXPECT_EQ(format_text(sample_table()),
            "id  kernel         tflops  note\n"
            "--  -------------  ------  -----\n"
            " 1  fa4            1234.5  NULL\n"
            "12  fa2, mma.sync   300.0  a \"b\"\n"
            "(2 rows)\n");
}

TEST(TableFormat, TextKeepsEachRowOnOneLine) {
  const Table table{{"x"}, {{std::string("two\nlines\ttab")}}};
  EXPECT_EQ(format_text(table), "x\n---------------\ntwo\\nlines\\ttab\n(1 row)\n");
}

TEST(TableFormat, TextCountsUtf8CharactersNotBytes) {
  const Table table{{"gpu", "n"}, {{std::string("µarch"), std::int64_t{1}}}};
  EXPECT_EQ(format_text(table), "gpu    n\n-----  -\nµarch  1\n(1 row)\n");
}

TEST(TableFormat, CsvQuotesWhatNeedsQuoting) {
  EXPECT_EQ(format_csv(sample_table()),
            "id,kernel,tflops,note\n"
            "1,fa4,1234.5,\n"
            "12,\"fa2, mma.sync\",300.0,\"a \"\"b\"\"\"\n");
  const Table edges{{"a,b", "c"}, {{std::string("line\nbreak"), std::string(" padded ")}}};
  EXPECT_EQ(format_csv(edges), "\"a,b\",c\n\"line\nbreak\",\" padded \"\n");
}

TEST(TableFormat, JsonIsAnArrayOfObjectsInColumnOrder) {
  EXPECT_EQ(format_json(sample_table()),
            "[\n"
            "  {\"id\": 1, \"kernel\": \"fa4\", \"tflops\": 1234.5, \"note\": null},\n"
            "  {\"id\": 12, \"kernel\": \"fa2, mma.sync\", \"tflops\": 300.0, "
            "\"note\": \"a \\\"b\\\"\"}\n"
            "]\n");
}

TEST(TableFormat, JsonEscapesStringsAndNullsNonFiniteNumbers) {
  const Table table{{"s", "nan", "inf", "big"},
                    {{std::string("tab\there\\ \x01 µ"), std::numeric_limits<double>::quiet_NaN(),
                      std::numeric_limits<double>::infinity(), 1e20}}};
  EXPECT_EQ(format_json(table),
            "[\n  {\"s\": \"tab\\there\\\\ \\u0001 µ\", \"nan\": null, \"inf\": null, "
            "\"big\": 1e+20}\n]\n");
}

// format_json keys each column by its title in snake_case; the streaming json_object (a query's
// rows) keeps the titles as they are.
TEST(TableFormat, JsonKeysAreSnakeCaseTitles) {
  EXPECT_EQ(json_key("published TFLOP/s"), "published_tflop_s");
  EXPECT_EQ(json_key("95% lo"), "95_percent_lo");
  EXPECT_EQ(json_key("error %"), "error_percent");
  EXPECT_EQ(json_key("#"), "number");
  EXPECT_EQ(json_key("SAME"), "same");
  EXPECT_EQ(json_key(" modeled  on "), "modeled_on");
  const Table table{{"baseline ms", "COUNT(*)"}, {{1.5, std::int64_t(2)}}};
  EXPECT_EQ(format_json(table), "[\n  {\"baseline_ms\": 1.5, \"count\": 2}\n]\n");
  EXPECT_EQ(json_object(table.columns, table.rows[0]), "{\"baseline ms\": 1.5, \"COUNT(*)\": 2}");
}

TEST(TableFormat, EmptyResults) {
  const Table empty{{"id"}, {}};
  EXPECT_EQ(format_json(empty), "[]\n");
  EXPECT_EQ(format_csv(empty), "id\n");
  EXPECT_EQ(format_text(empty), "id\n--\n(0 rows)\n");
}

TEST(TableFormat, TextRightAlignsAColumnWithItsTitleAndMayLeaveOutRuleAndCount) {
  const Table table{{{""}, {"h100", Align::right}, {"b200", Align::right}},
                    {{"MMA", "1x", "2x"}, {"SMEM B/clk", "128", "128"}}};
  EXPECT_EQ(format_text(table, {.rule = false, .row_count = false}),
            "            h100  b200\n"
            "MMA           1x    2x\n"
            "SMEM B/clk   128   128\n");
}

TEST(TableFormat, TableOfAQueryResultKeepsItsColumnsAndValues) {
  const Table table =
      table_of(store::QueryResult{{"id", "note"}, {{std::int64_t{7}, std::monostate{}}}});
  ASSERT_EQ(table.columns.size(), 2u);
  EXPECT_EQ(table.columns[1].title, "note");
  EXPECT_EQ(table.columns[1].align, Align::left);
  EXPECT_EQ(format_csv(table), "id,note\n7,\n");
}

TEST(TableFormat, ParsesFormatNames) {
  EXPECT_EQ(*parse_table_format("table"), TableFormat::text);
  EXPECT_EQ(*parse_table_format("csv"), TableFormat::csv);
  EXPECT_EQ(*parse_table_format("json"), TableFormat::json);
  auto bad = parse_table_format("xml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "unknown format 'xml': use table, csv or json");
}

}  // namespace
}  // namespace fa4::report
