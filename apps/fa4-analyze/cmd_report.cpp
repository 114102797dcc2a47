// fa4-analyze report: write the markdown report (hardware, per-tile cycles, predicted TFLOP/s
// against seqlen with charts, our kernels measured against the peers, the model against published
// figures, the model's factors) from the hardware models, the results database and the published
// figures.
#include <chrono>
#include <filesystem>
#include <memory>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "open_store.hpp"
#include "context.hpp"
#include "core/atomic_file.hpp"
#include "hw/loader.hpp"
#include "report/published.hpp"
#include "report/report.hpp"
#include "run_info.hpp"
#include "store/store.hpp"
#include "user_error.hpp"

namespace fa4::app {
namespace {

namespace fs = std::filesystem;

struct ReportOptions {
  std::string out = "out/fa4-analyze-report.md";  // "-": standard output
  std::string published;  // default: data/published beside the models folder
};

std::string utc_now() {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}",
                     std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()));
}

fs::path published_dir(const Context& ctx, const ReportOptions& o) {
  if (!o.published.empty()) return o.published;
  return (fs::path(ctx.models_dir) / ".." / "data" / "published").lexically_normal();
}

// The command line with the program's folder left out, so reports do not carry build paths.
std::string command_text(const std::string& command_line) {
  const auto space = command_line.find(' ');
  const std::string program = command_line.substr(0, space);
  const std::string rest = space == std::string::npos ? "" : command_line.substr(space);
  return fs::path(program).filename().string() + rest;
}

void run_report(const Context& ctx, const ReportOptions& o) {
  report::ReportInputs in;
  in.gpus = take(hw::load_all_specs(ctx.models_dir));
  const auto db = open_store_for_reading(ctx);
  in.predictions = take(db.predictions_for_report());
  in.measurements = take(db.measurements_for_report());
  in.ceilings = take(db.latest_ceilings());
  const fs::path published = published_dir(ctx, o);
  auto figures = report::load_published_tree(published);
  if (!figures)
    throw UserError(
        fmt::format("{}; point --published at the folder of published figures "
                    "(data/published in the source tree)",
                    figures.error().message));
  in.published = std::move(figures).value();
  in.generated_at = utc_now();
  // The source tree's revision, as every recorded run states it.
  in.revision = source_revision();
  in.command = command_text(ctx.command_line);
  const WriteOutcome outcome = take(write_output(
      o.out, report::render_report(in), {.create_folders = true, .skip_if_unchanged = true}));
  // The summary goes to standard error when the report itself goes to standard output.
  fmt::print(o.out == kStandardOutput ? stderr : stdout,
             "{} {}: {} GPU models, {} stored predictions, {} measurements, {} published figures "
             "(from {})\n",
             outcome == WriteOutcome::unchanged ? "unchanged" : "wrote", o.out, in.gpus.size(),
             in.predictions.size(), in.measurements.size(), in.published.size(),
             published.string());
}

void setup(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<ReportOptions>();
  CLI::App* c = app.add_subcommand(
      "report",
      "Write the markdown report: hardware, per-tile cycles, predicted TFLOP/s with "
      "charts, measured TFLOP/s against the peers and the kernel ladder, asymmetric scaling, "
      "the model against published figures, the model's factors");
  c->add_option("--out", o->out,
                "Markdown file to write, replaced whole or not at all (its folder is created; an "
                "unchanged report is not rewritten); - for standard output");
  c->add_option("--published", o->published,
                "Folder of published figures (default: data/published beside --models)");
  c->callback([&ctx, o] { run_report(ctx, *o); });
}

const SubcommandRegistration registration{60, setup};

}  // namespace
}  // namespace fa4::app
