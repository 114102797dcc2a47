// What every subcommand shares: where the hardware models and the results database live.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace fa4::app {

struct Context {
  std::string models_dir;  // --models, FA4_MODELS, or the source tree's models/
  std::string db_path;     // --db (the last one given), FA4_DB, or fa4-results.db
  // Every --db as given (empty: none given, db_path is the default); more than one, or a folder,
  // for the commands that read several databases (databases.hpp).
  std::vector<std::string> db_args;
  std::string command_line;  // recorded with each run
  int busy_timeout_ms = 30000;  // --busy-timeout, FA4_BUSY_TIMEOUT_MS: waiting for another writer
};

// Each subcommand lives in its own file (cmd_*.cpp): a setup function adds it to the app and sets
// its callback, and the file registers that function with a static SubcommandRegistration.
// A callback that fails throws UserError; main prints "error: ..." and exits 1.
using SubcommandSetup = void (*)(CLI::App& app, Context& ctx);

struct SubcommandRegistration {
  // `order` fixes where the subcommand appears in --help.
  SubcommandRegistration(int order, SubcommandSetup setup);
};

// Adds every registered subcommand to the app, in order.
void setup_subcommands(CLI::App& app, Context& ctx);

// The subcommands' names, in order, comma-separated: what an unknown name's error lists.
std::string subcommand_names(const CLI::App& app);

}  // namespace fa4::app
