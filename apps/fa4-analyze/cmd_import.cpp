// fa4-analyze import: load peer results (the JSON Lines of scripts/peers/torch_peers.py) as
// measurements tagged with their source, and published figures (data/published/*.json) into the
// published table. Each file is one transaction: a malformed line loads nothing of its file;
// importing a file again adds nothing.
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "context.hpp"
#include "core/count_noun.hpp"
#include "core/read_file.hpp"
#include "hw/loader.hpp"
#include "open_store.hpp"
#include "progress.hpp"
#include "store/published_figures.hpp"
#include "store/peer_records.hpp"
#include "store/store.hpp"
#include "user_error.hpp"

namespace fa4::app {
namespace {

// A peer run of ten thousand records with their samples is about 20 MB.
constexpr InputFileKind kImportFile{
    "file to import", std::uintmax_t{256} << 20,
    "peer results are JSON Lines from scripts/peers/torch_peers.py; published figures are "
    "data/published/*.json"};

struct ImportOptions {
  std::vector<std::string> files;
};

// A published-figures file is one JSON object with "figures"; anything else is read as JSON Lines.
bool is_published_file(const std::string& text) {
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  return doc.is_object() && doc.contains("figures");
}

store::PublishedFigure to_store(const published::PublishedFigure& f) {
  return {.source = f.source,
          .citation = f.citation,
          .gpu = f.gpu,
          .kernel = f.kernel,
          .shape = f.shape,
          .pass = f.pass,
          .tflops = f.tflops,
          .notes = f.note};
}

// A file read and checked whole before anything is written, so that a file refused first leaves
// no database behind.
struct ParsedFile {
  std::vector<store::PublishedFigure> published;  // a published-figures file
  std::vector<store::ImportedRun> peer_runs;      // else peer results
  bool is_published = false;
};

ParsedFile parse_file(const std::string& path, const Context& ctx,
                      const std::vector<hw::Spec>& specs) {
  ParsedFile parsed;
  const std::string text = take(read_regular_file(path, kImportFile));
  parsed.is_published = is_published_file(text);
  if (parsed.is_published) {
    const auto figures = take(published::load_published(path));
    take(published::check_against_models(figures, specs));
    for (const auto& f : figures) parsed.published.push_back(to_store(f));
  } else {
    std::istringstream in(text);
    parsed.peer_runs = take(store::parse_peer_records(in, path, ctx.command_line, specs));
  }
  return parsed;
}

void record(store::Store& db, const std::string& path, const ParsedFile& parsed,
            const std::string& models_dir) {
  if (parsed.is_published) {
    take(db.record_published(parsed.published));
    fmt::print("{}: {} recorded (a figure imported before is replaced)\n", path,
               count_noun(parsed.published.size(), "published figure"));
    return;
  }
  const store::ImportCounts counts = take(db.import_runs(parsed.peer_runs));
  fmt::print("{}: {} added in {}, {} already present\n", path,
             count_noun(counts.added, "measurement"), count_noun(counts.runs, "new run"),
             counts.already_present);
  for (const store::ImportedRun& run : parsed.peer_runs)
    for (const std::string& device : run.unknown_devices)
      fmt::print(stderr,
                 "warning: {}: device '{}' matches no hardware model's device_names in {}: its "
                 "measurements are stored with their TFLOP/s checked against no peak\n",
                 path, device, models_dir);
}

void run_import(const Context& ctx, const ImportOptions& o) {
  for (const std::string& path : o.files) {
    if (std::error_code ec; std::filesystem::is_directory(path, ec))
      throw UserError(
          fmt::format("{} is a folder: give the files in it (e.g. {}/*.jsonl)", path, path));
    take(check_regular_file(path, kImportFile));
  }
  const auto specs = take(hw::load_all_specs(ctx.models_dir));
  std::optional<store::Store> db;  // opened (and created) once the first file has been read whole
  Progress progress("files imported", o.files.size());
  for (const std::string& path : o.files) {
    const ParsedFile parsed = parse_file(path, ctx, specs);
    if (!db) db.emplace(open_store(ctx));
    progress.clear();  // each file's line goes above it
    record(*db, path, parsed, ctx.models_dir);
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
