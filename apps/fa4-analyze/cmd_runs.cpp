// fa4-analyze runs: every recorded run, oldest first, with its counts of predictions and
// measurements; of several databases, one after the other, labelled.
#include <fmt/format.h>

#include <memory>

#include "context.hpp"
#include "databases.hpp"
#include "open_store.hpp"
#include "report/table_format.hpp"
#include "store/store.hpp"
#include "user_error.hpp"

namespace fa4::app {
namespace {

struct RunsOptions {
  bool json = false;
};

// With several databases (--db a.db --db b.db, or a folder), one table of every database's runs,
// a db column first.
void run_runs(const Context& ctx, const RunsOptions& o) {
  const bool several = several_databases(ctx);
  report::Table runs;
  for (const LabelledStore& db : open_databases_for_reading(ctx)) {
    report::Table one = report::table_of(store::to_query_result(take(db.store.list_runs())));
    if (!several) {
      runs = std::move(one);
      break;
    }
    if (runs.columns.empty()) {
      runs.columns = one.columns;
      runs.columns.insert(runs.columns.begin(), report::Column("db"));
    }
    for (auto& row : one.rows) {
      row.insert(row.begin(), db.label);
      runs.rows.push_back(std::move(row));
    }
  }
  fmt::print("{}", o.json ? report::format_json(runs) : report::format_text(runs));
}

void setup(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<RunsOptions>();
  CLI::App* c = app.add_subcommand("runs",
                                   "List the recorded runs with their counts of "
                                   "predictions and measurements; with several --db (or a "
                                   "folder), every database's runs, each row labelled with it");
  c->add_flag("--json", o->json, "Print a JSON array of runs");
  c->callback([&ctx, o] { run_runs(ctx, *o); });
}

const SubcommandRegistration registration{50, setup};

}  // namespace
}  // namespace fa4::app
