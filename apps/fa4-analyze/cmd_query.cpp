// fa4-analyze query "SQL": one read-only statement on the results database, printed as an
// aligned table, CSV or JSON. Writes are refused; SCHEMA.md in lib/store lists the tables.
#include <fmt/format.h>

#include <memory>

#include "context.hpp"
#include "open_store.hpp"
#include "report/table_format.hpp"
#include "store/store.hpp"
#include "user_error.hpp"

namespace fa4::app {
namespace {

struct QueryOptions {
  std::string sql;
  std::string format = "table";
};

void run_query(const Context& ctx, const QueryOptions& o) {
  const report::TableFormat format = take(report::parse_table_format(o.format));
  const auto db = open_store_for_reading(ctx);
  fmt::print("{}", report::format_table(report::table_of(take(db.query(o.sql))), format));
}

void setup(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<QueryOptions>();
  CLI::App* c =
      app.add_subcommand("query",
                         "Run one read-only SQL statement on the results database (tables: runs, "
                         "predictions, measurements, published; views: v_predictions, "
                         "v_latest_predictions, v_measurements, v_runs)");
  c->add_option("sql", o->sql, "The statement, e.g. \"SELECT * FROM v_runs\"")->required();
  c->add_option("--format", o->format, "table, csv or json")
      ->check(CLI::IsMember({"table", "csv", "json"}));
  c->callback([&ctx, o] { run_query(ctx, *o); });
}

const SubcommandRegistration registration{40, setup};

}  // namespace
}  // namespace fa4::app
