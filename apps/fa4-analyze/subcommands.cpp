#include <algorithm>
#include <utility>
#include <vector>

#include "context.hpp"
#include "examples.hpp"

namespace fa4::app {
namespace {

std::vector<std::pair<int, SubcommandSetup>>& registry() {
  static std::vector<std::pair<int, SubcommandSetup>> setups;
  return setups;
}

}  // namespace

SubcommandRegistration::SubcommandRegistration(int order, SubcommandSetup setup) {
  registry().emplace_back(order, setup);
}

void setup_subcommands(CLI::App& app, Context& ctx) {
  auto setups = registry();
  std::sort(setups.begin(), setups.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [order, setup] : setups) setup(app, ctx);
  add_help_footers(app);
}

std::string subcommand_names(const CLI::App& app) {
  std::string names;
  for (const CLI::App* sub : app.get_subcommands({}))
    names += (names.empty() ? "" : ", ") + sub->get_name();
  return names;
}

}  // namespace fa4::app
