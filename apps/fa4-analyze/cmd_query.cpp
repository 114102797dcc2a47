// fa4-analyze query "SQL": one read-only statement on the results database, printed as an
// aligned table, CSV or JSON. Writes are refused; SCHEMA.md in lib/store lists the tables.
// Several databases are queried one after the other, each row labelled with its database.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <cstdint>
#include <memory>

#include "context.hpp"
#include "databases.hpp"
#include "core/count_noun.hpp"
#include "integer_option.hpp"
#include "open_store.hpp"
#include "report/table_format.hpp"
#include "store/store.hpp"
#include "user_error.hpp"

namespace fa4::app {
namespace {

// Rows printed unless --limit says otherwise: a screenful or two, not a whole database.
constexpr std::size_t kDefaultRowLimit = 1000;
// Seconds a statement may run unless --timeout says otherwise: a query over a 1.2 GB database
// takes seconds, a recursive one that never ends would run forever.
constexpr std::int64_t kDefaultTimeoutS = 60;

// CLI11 would read -1 into --limit as the largest count there is.
const CLI::Validator kNotNegative(
    [](const std::string& text) -> std::string {
      return text.starts_with('-') ? fmt::format("'{}' is negative: give 0 or more", text) : "";
    },
    "N >= 0");

struct QueryOptions {
  std::string sql;
  std::string format = "table";
  std::size_t limit = kDefaultRowLimit;       // 0: every row
  std::int64_t timeout_s = kDefaultTimeoutS;  // 0: none
};

// Whether the query has run past --timeout, once asked after it has.
class Deadline {
 public:
  explicit Deadline(std::int64_t seconds)
      : seconds_(seconds), at_(std::chrono::steady_clock::now() + std::chrono::seconds(seconds)) {}
  bool passed() {
    passed_ = passed_ || (seconds_ > 0 && std::chrono::steady_clock::now() >= at_);
    return passed_;
  }
  bool has_passed() const { return passed_; }

 private:
  std::int64_t seconds_;
  std::chrono::steady_clock::time_point at_;
  bool passed_ = false;
};

// Prints the rows as they come: CSV and JSON a row at a time; the aligned table, which needs
// every row's width, once they are all read (at most --limit of them).
class RowPrinter {
 public:
  explicit RowPrinter(report::TableFormat format) : format_(format) {}

  void columns(std::vector<std::string> names) {
    for (std::string& name : names) table_.columns.emplace_back(std::move(name));
    if (format_ == report::TableFormat::csv) fmt::print("{}", report::csv_header(table_.columns));
  }
  void row(std::vector<store::Value> cells) {
    if (format_ == report::TableFormat::csv)
      fmt::print("{}", report::csv_row(cells));
    else if (format_ == report::TableFormat::json)
      fmt::print("{}  {}", printed_ ? ",\n" : "[\n", report::json_object(table_.columns, cells));
    else
      table_.rows.push_back(std::move(cells));
    ++printed_;
  }
  void finish() {
    if (format_ == report::TableFormat::json) fmt::print("{}", printed_ ? "\n]\n" : "[]\n");
    if (format_ == report::TableFormat::text) fmt::print("{}", report::format_text(table_));
  }

 private:
  report::TableFormat format_;
  report::Table table_;  // the columns; the rows only for the aligned table
  std::size_t printed_ = 0;
};

// The statement's columns on `db`, read as it is prepared (no row is computed): on several
// databases every one is checked before a row is printed.
struct ColumnsRead {
  std::vector<std::string> names;
};
std::vector<std::string> columns_of(const LabelledStore& db, const std::string& sql) {
  try {
    take(db.store.query_rows(
        sql, [](std::vector<std::string> names) { throw ColumnsRead{std::move(names)}; },
        [](std::vector<store::Value>) { return false; }));
  } catch (ColumnsRead& read) {
    return std::move(read.names);
  }
  return {};
}

// The databases to query, each labelled; on several, the statement's columns checked to agree.
std::vector<LabelledStore> databases_for(const Context& ctx, const QueryOptions& o) {
  std::vector<LabelledStore> dbs = open_databases_for_reading(ctx);
  if (!several_databases(ctx)) return dbs;
  std::vector<std::string> first;
  for (const LabelledStore& db : dbs) {
    std::vector<std::string> names;
    try {
      names = columns_of(db, o.sql);
    } catch (const UserError& e) {
      throw UserError(fmt::format("{}: {}", db.label, e.what()));
    }
    if (&db == &dbs.front()) {
      first = std::move(names);
    } else if (names != first) {
      throw UserError(fmt::format(
          "the statement gives other columns on {} ({}) than on {} ({}): the rows of several "
          "databases go in one table; name the columns in the SELECT",
          db.label, fmt::join(names, ", "), dbs.front().label, fmt::join(first, ", ")));
    }
  }
  return dbs;
}

void run_query(const Context& ctx, const QueryOptions& o) {
  const report::TableFormat format = take(report::parse_table_format(o.format));
  const std::vector<LabelledStore> dbs = databases_for(ctx, o);
  const bool several = several_databases(ctx);
  RowPrinter printer(format);
  std::size_t rows = 0;
  bool more = false;  // a row beyond --limit exists
  Deadline deadline(o.timeout_s);
  for (const LabelledStore& db : dbs) {
    const Status done = db.store.query_rows(
        o.sql,
        [&](std::vector<std::string> names) {
          if (several) names.insert(names.begin(), "db");
          if (&db == &dbs.front()) printer.columns(std::move(names));
        },
        [&](std::vector<store::Value> cells) {
          if (o.limit > 0 && rows == o.limit) {
            more = true;
            return false;
          }
          if (several) cells.insert(cells.begin(), db.label);
          printer.row(std::move(cells));
          ++rows;
          return true;
        },
        [&] { return deadline.passed(); });
    if (!done && deadline.has_passed())
      throw UserError(fmt::format(
          "query stopped after {} s, its time limit (--timeout {}): narrow the query, or pass "
          "--timeout S for a longer limit (--timeout 0: none)",
          o.timeout_s, o.timeout_s));
    if (!done && several) throw UserError(fmt::format("{}: {}", db.label, done.error().message));
    take(done);
    if (more) break;
  }
  printer.finish();
  if (more)
    fmt::print(stderr,
               "query: printed the first {}; more remain: pass --limit N for more, --limit 0 "
               "for all (csv and json print them as they come), or narrow the query\n",
               count_noun(o.limit, "row"));
}

void setup(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<QueryOptions>();
  CLI::App* c =
      app.add_subcommand("query",
                         "Run one read-only SQL statement on the results database (tables: runs, "
                         "predictions, measurements, published; views: v_predictions, "
                         "v_latest_predictions, v_measurements, v_runs)");
  c->footer(
      "Several databases (--db a.db --db b.db, or --db FOLDER for its *.db): the statement runs "
      "on each in turn (ATTACH is refused: a query reads only the tool's own tables) and their "
      "rows make one table with a leading db column; each must give the same columns. --limit "
      "and --timeout count over all of them; an aggregate (count, max) is one row per database.");
  c->add_option("sql", o->sql, "The statement, e.g. \"SELECT * FROM v_runs\"")->required();
  c->add_option("--format", o->format, "table, csv or json")
      ->check(CLI::IsMember({"table", "csv", "json"}));
  c->add_option("--limit", o->limit,
                "Rows printed at most (default 1000; 0: all). csv and json print rows as they "
                "come; the aligned table holds the rows it prints")
      ->check(kDecimalInteger)
      ->check(kNotNegative);
  c->add_option("--timeout", o->timeout_s,
                "Seconds the statement may run before it is stopped (default 60; 0: no limit)")
      ->check(kDecimalInteger)
      ->check(kNotNegative);
  c->callback([&ctx, o] { run_query(ctx, *o); });
}

const SubcommandRegistration registration{40, setup};

}  // namespace
}  // namespace fa4::app
