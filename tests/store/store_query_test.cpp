// Store::query: any read, typed results, and no way to write.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>

#include "store/store.hpp"
#include "test_support.hpp"

namespace fa4::store {
namespace {

using ::testing::HasSubstr;

class StoreQuery : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = Store::open(":memory:");
    ASSERT_TRUE(opened.ok());
    store_.emplace(std::move(opened).value());
    auto run = store_->begin_run(testing::run_info(RunKind::predict, "r1"));
    ASSERT_TRUE(run.ok());
    ASSERT_TRUE(store_->record_predictions(*run, {testing::sample_prediction()}).ok());
  }
  std::int64_t count(const std::string& table) {
    return std::get<std::int64_t>(store_->query("SELECT COUNT(*) FROM " + table)->rows[0][0]);
  }
  std::optional<Store> store_;
};

TEST_F(StoreQuery, ReturnsTypedCellsUnderColumnNames) {
  auto table = store_->query("SELECT 7 AS i, 2.5 AS r, 'text' AS t, NULL AS n, x'0aff' AS b");
  ASSERT_TRUE(table.ok()) << table.error().message;
  EXPECT_EQ(table->columns, (std::vector<std::string>{"i", "r", "t", "n", "b"}));
  ASSERT_EQ(table->rows.size(), 1u);
  const auto& row = table->rows[0];
  EXPECT_EQ(std::get<std::int64_t>(row[0]), 7);
  EXPECT_EQ(std::get<double>(row[1]), 2.5);
  EXPECT_EQ(std::get<std::string>(row[2]), "text");
  EXPECT_TRUE(std::holds_alternative<std::monostate>(row[3]));
  EXPECT_EQ(std::get<std::string>(row[4]), "x'0aff'");
}

TEST_F(StoreQuery, ReadsViewsAndPragmasThatReturnRows) {
  auto view = store_->query("SELECT revision, algorithm, tflops FROM v_predictions");
  ASSERT_TRUE(view.ok()) << view.error().message;
  EXPECT_EQ(std::get<std::string>(view->rows.at(0)[0]), "r1");
  auto columns = store_->query("PRAGMA table_info(runs)");
  ASSERT_TRUE(columns.ok()) << columns.error().message;
  EXPECT_EQ(columns->rows.size(), 10u);
}

TEST_F(StoreQuery, RefusesEveryKindOfWrite) {
  for (const char* sql :
       {"DROP TABLE runs", "DELETE FROM predictions", "UPDATE runs SET host = 'x'",
        "INSERT INTO runs (revision, host, command_line, kind) VALUES ('', '', '', 'x')",
        "INSERT INTO runs (revision, host, command_line, kind) VALUES ('', '', '', 'x') "
        "RETURNING id",
        "CREATE TABLE t (x)", "BEGIN", "ATTACH 'other.db' AS other", "PRAGMA query_only = 0",
        "PRAGMA journal_mode = DELETE", "VACUUM"}) {
    auto refused = store_->query(sql);
    EXPECT_FALSE(refused.ok()) << sql;
    if (!refused.ok()) {
      EXPECT_THAT(refused.error().message, HasSubstr("query only reads")) << sql;
    }
  }
  EXPECT_EQ(count("runs"), 1);
  EXPECT_EQ(count("predictions"), 1);
  EXPECT_FALSE(std::filesystem::exists("other.db"));
}

TEST_F(StoreQuery, RunsOneStatementOnly) {
  auto refused = store_->query("SELECT 1; DROP TABLE runs");
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error().message, HasSubstr("more than one statement"));
  EXPECT_EQ(count("runs"), 1);
  EXPECT_TRUE(store_->query("SELECT 1; -- a comment\n").ok());
}

TEST_F(StoreQuery, ReportsSqlErrors) {
  auto typo = store_->query("SELEC 1");
  ASSERT_FALSE(typo.ok());
  EXPECT_THAT(typo.error().message, HasSubstr("syntax error"));
  auto missing = store_->query("SELECT * FROM nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.error().message, HasSubstr("no such table: nope"));
  EXPECT_FALSE(store_->query("  -- nothing\n").ok());
}

TEST_F(StoreQuery, RecordingWorksAfterAQuery) {
  ASSERT_TRUE(store_->query("SELECT * FROM runs").ok());
  ASSERT_FALSE(store_->query("DROP TABLE runs").ok());
  auto run = store_->begin_run({});
  ASSERT_TRUE(run.ok()) << run.error().message;
  EXPECT_TRUE(store_->record_predictions(*run, {testing::sample_prediction()}).ok());
}

}  // namespace
}  // namespace fa4::store
