// fa4-analyze: model, measure and report attention kernels. main is a short pipeline with one
// error exit: any failure prints "error: ..." and returns 1.
#include <cstdlib>
#include <exception>

#include <fmt/format.h>

#include "context.hpp"
#include "user_error.hpp"

namespace {

std::string env_or(const char* name, std::string fallback) {
  const char* value = std::getenv(name);
  return value && *value ? std::string(value) : fallback;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace fa4::app;
  Context ctx;
  ctx.models_dir = env_or("FA4_MODELS", FA4_DEFAULT_MODELS_DIR);
  ctx.db_path = env_or("FA4_DB", "fa4-results.db");
  for (int i = 0; i < argc; ++i) ctx.command_line += (i ? " " : "") + std::string(argv[i]);

  CLI::App app{"fa4-analyze: a performance lab for attention kernels (model, measure, report)"};
  app.require_subcommand(1);
  app.option_defaults()->always_capture_default();
  app.add_option("--models", ctx.models_dir, "Folder of hardware model JSON files (env FA4_MODELS)");
  app.add_option("--db", ctx.db_path, "Results database (env FA4_DB)");
  setup_subcommands(app, ctx);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "error: {}; run '{} --help' for usage\n", e.what(), app.get_name());
    return 1;
  } catch (const UserError& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: internal: {}\n", e.what());
    return 1;
  }
  return 0;
}
