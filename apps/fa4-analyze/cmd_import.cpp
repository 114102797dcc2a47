// fa4-analyze import: load peer results (the JSON Lines of scripts/peers/torch_peers.py) as
// measurements tagged with their source, and published figures (data/published/*.json) into the
// published table. Each file is one transaction: a malformed line loads nothing of its file;
// importing a file again adds nothing.
#include <filesystem>
#include <fstream>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "open_store.hpp"
#include "context.hpp"
#include "core/count_noun.hpp"
#include "hw/loader.hpp"
#include "report/published.hpp"
#include "progress.hpp"
#include "store/peer_records.hpp"
#include "store/store.hpp"
#include "user_error.hpp"

namespace fa4::app {
namespace {

struct ImportOptions {
  std::vector<std::string> files;
};

// A published-figures file is one JSON object with "figures"; anything else is read as JSON Lines.
bool is_published_file(const std::string& path) {
  std::ifstream in(path);
  const nlohmann::json doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  return doc.is_object() && doc.contains("figures");
}

store::PublishedFigure to_store(const report::PublishedFigure& f) {
  return {.source = f.source, .citation = f.citation, .gpu = f.gpu, .kernel = f.kernel,
          .shape = f.shape, .pass = f.pass, .tflops = f.tflops, .notes = f.note};
}

void import_published(store::Store& db, const std::string& path) {
  const auto figures = take(report::load_published(path));
  std::vector<store::PublishedFigure> rows;
  for (const auto& f : figures) rows.push_back(to_store(f));
  take(db.record_published(rows));
  fmt::print("{}: {} recorded (a figure imported before is replaced)\n", path,
             count_noun(rows.size(), "published figure"));
}

void import_peers(store::Store& db, const std::string& path, const Context& ctx) {
  std::ifstream in(path);
  const auto specs = take(hw::load_all_specs(ctx.models_dir));
  const auto runs = take(store::parse_peer_records(in, path, ctx.command_line, specs));
  const store::ImportCounts counts = take(db.import_runs(runs));
  fmt::print("{}: {} added in {}, {} already present\n", path,
             count_noun(counts.added, "measurement"), count_noun(counts.runs, "new run"),
             counts.already_present);
}

void run_import(const Context& ctx, const ImportOptions& o) {
  for (const std::string& path : o.files) {
    if (std::error_code ec; std::filesystem::is_directory(path, ec))
      throw UserError(
          fmt::format("{} is a folder: give the files in it (e.g. {}/*.jsonl)", path, path));
    if (!std::ifstream(path))
      throw UserError(fmt::format("cannot read {}: check the path (peer results are JSON Lines "
                                  "from scripts/peers/torch_peers.py; published figures are "
                                  "data/published/*.json)",
                                  path));
  }
  auto db = open_store(ctx);
  Progress progress("files imported", o.files.size());
  for (const std::string& path : o.files) {
    progress.clear();  // each file's line goes above it
    if (is_published_file(path))
      import_published(db, path);
    else
      import_peers(db, path, ctx);
    progress.advance();
  }
}

void setup(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<ImportOptions>();
  CLI::App* c = app.add_subcommand(
      "import",
      "Load peer results (JSON Lines from scripts/peers/torch_peers.py) and published figures "
      "(data/published/*.json) into the database; importing a file again adds nothing");
  c->add_option("files", o->files, "Files to import, each in one transaction")->required();
  c->callback([&ctx, o] { run_import(ctx, *o); });
}

const SubcommandRegistration registration{55, setup};

}  // namespace
}  // namespace fa4::app
