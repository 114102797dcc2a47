// fa4-analyze help [SUBCOMMAND]: the tool's help, or one subcommand's (its options, examples and
// the global options), as --help prints them.
#include <memory>
#include <string>

#include <fmt/format.h>

#include "context.hpp"
#include "core/printable.hpp"
#include "user_error.hpp"

namespace fa4::app {
namespace {

void print_help(CLI::App& app, const std::string& name) {
  if (name.empty()) {
    // The formatter, not app.help(), which would print the help of the selected subcommand: help.
    fmt::print("{}", app.get_formatter()->make_help(&app, app.get_name(), CLI::AppFormatMode::Normal));
    return;
  }
  for (CLI::App* sub : app.get_subcommands({}))
    if (sub->get_name() == name) {
      fmt::print("{}", sub->help(app.get_name()));
      return;
    }
  throw UserError(fmt::format("help: no subcommand '{}': use one of {}", fa4::printable(name),
                              subcommand_names(app)));
}

void setup(CLI::App& app, Context&) {
  auto name = std::make_shared<std::string>();
  CLI::App* c = app.add_subcommand("help", "The help of the tool or of one subcommand");
  c->add_option("subcommand", *name, "The subcommand (default: the tool's own help)");
  c->callback([&app, name] { print_help(app, *name); });
}

const SubcommandRegistration registration{99, setup};

}  // namespace
}  // namespace fa4::app
