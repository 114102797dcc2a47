// fa4-analyze runs: every recorded run, oldest first, with its counts of predictions and
// measurements.
#include <fmt/format.h>

#include <memory>

#include "context.hpp"
#include "open_store.hpp"
#include "report/table_format.hpp"
#include "store/store.hpp"
#include "user_error.hpp"

namespace fa4::app {
namespace {

struct RunsOptions {
  bool json = false;
};

void run_runs(const Context& ctx, const RunsOptions& o) {
  const auto db = open_store_for_reading(ctx);
  const report::Table runs = report::table_of(store::to_query_result(take(db.list_runs())));
  fmt::print("{}", o.json ? report::format_json(runs) : report::format_text(runs));
}

void setup(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<RunsOptions>();
  CLI::App* c = app.add_subcommand("runs",
                                   "List the recorded runs with their counts of "
                                   "predictions and measurements");
  c->add_flag("--json", o->json, "Print a JSON array of runs");
  c->callback([&ctx, o] { run_runs(ctx, *o); });
}

const SubcommandRegistration registration{50, setup};

}  // namespace
}  // namespace fa4::app
