// fa4-analyze: model, measure and report attention kernels. main is a short pipeline with one
// error exit: any failure prints "error: ..." and returns 1 (a sweep stopped by SIGINT or
// SIGTERM prints "interrupted: ..." and returns 130). Every message passes through printable()
// there: one that quotes an argument or a file holding a newline or an escape sequence shows it
// escaped, on one line, and leaves the terminal as it was.
#include <charconv>
#include <cstdlib>
#include <exception>

#include <fmt/format.h>

#include "context.hpp"
#include "core/printable.hpp"
#include "integer_option.hpp"
#include "run_info.hpp"
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
  app.add_option_function<std::vector<std::string>>(
         "--db",
         [&ctx](const std::vector<std::string>& dbs) {
           ctx.db_args = dbs;
           ctx.db_path = dbs.back();
         },
         "Results database (env FA4_DB); query, runs, report and compare take it more than once, "
         "or a folder of databases")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  const std::string busy = env_or("FA4_BUSY_TIMEOUT_MS", "30000");
  if (auto [end, ec] = std::from_chars(busy.data(), busy.data() + busy.size(), ctx.busy_timeout_ms);
      ec != std::errc() || end != busy.data() + busy.size() || ctx.busy_timeout_ms < 0) {
    fmt::print(stderr,
               "error: FA4_BUSY_TIMEOUT_MS='{}' is not a number of milliseconds; set it "
               "to e.g. 30000 or unset it\n",
               fa4::printable(busy));
    return 1;
  }
  app.add_option("--busy-timeout", ctx.busy_timeout_ms,
                 "Milliseconds to wait for another process writing the database "
                 "(env FA4_BUSY_TIMEOUT_MS)")
      ->check(kDecimalInteger)
      ->check(CLI::Range(0, 3600 * 1000));
  app.set_version_flag("--version", [] {
    if (const auto note = revision_mismatch_note()) fmt::print(stderr, "{}\n", *note);
    return fmt::format("fa4-analyze {} (revision {})", FA4_VERSION, source_revision());
  });
  // The global options are accepted after the subcommand too: `query "SQL" --db x.db`.
  app.fallthrough();
  setup_subcommands(app, ctx);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // A misspelt subcommand reaches CLI11 as a stray argument: name it and the real ones.
    if (app.get_subcommands().empty() && !app.remaining().empty()) {
      fmt::print(stderr, "error: unknown subcommand '{}': use one of {}\n",
                 fa4::printable(app.remaining().front()), subcommand_names(app));
      return 1;
    }
    fmt::print(stderr, "error: {}; run '{} --help' for usage\n", fa4::printable(e.what()),
               app.get_name());
    return 1;
  } catch (const Interrupted& e) {
    fmt::print(stderr, "interrupted: {}\n", fa4::printable(e.what()));
    return kInterruptedExitCode;
  } catch (const UserError& e) {
    fmt::print(stderr, "error: {}\n", fa4::printable(e.what()));
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: internal: {}\n", fa4::printable(e.what()));
    return 1;
  }
  return 0;
}
