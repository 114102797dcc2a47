// What every subcommand shares: where the hardware models and the results database live.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace fa4::app {

struct Context {
  std::string models_dir;  // --models, FA4_MODELS, or the source tree's models/
  std::string db_path;     // --db, FA4_DB, or fa4-results.db
  std::string command_line;  // recorded with each run
};

// Each subcommand lives in its own file: it adds itself to the app and sets its callback.
// A callback that fails throws UserError; main prints "error: ..." and exits 1.
void register_gpus(CLI::App& app, Context& ctx);
void register_model(CLI::App& app, Context& ctx);
void register_predict(CLI::App& app, Context& ctx);
void register_query(CLI::App& app, Context& ctx);
void register_runs(CLI::App& app, Context& ctx);
void register_report(CLI::App& app, Context& ctx);

}  // namespace fa4::app
