// fa4-analyze report: write the markdown report (a summary, rooflines and per-unit charts,
// hardware, per-tile cycles, predicted TFLOP/s against seqlen, our kernels measured against the
// peers, the model against published figures, the model's factors) and its charts (gnuplot SVGs
// with their scripts and data, and CSV files) from the hardware models, the results database, the
// reference runs in data/runs/ and the published figures.
#include <fmt/chrono.h>
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <set>

#include "context.hpp"
#include "databases.hpp"
#include "core/atomic_file.hpp"
#include "core/count_noun.hpp"
#include "hw/loader.hpp"
#include "measured_sources.hpp"
#include "open_store.hpp"
#include "progress.hpp"
#include "report/chart_render.hpp"
#include "report/published.hpp"
#include "report/report.hpp"
#include "run_info.hpp"
#include "store/store.hpp"
#include "user_error.hpp"

namespace fa4::app {
namespace {

namespace fs = std::filesystem;

struct ReportOptions {
  std::string out = "out/fa4-analyze-report.md";  // "-": standard output, without the charts
  std::string published;  // default: data/published beside the models folder
  ReferenceRunsOptions reference_runs;
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

// The markdown file --out names, checked before anything is written: a file with an extension
// (its charts go into the folder beside it named after it without one), that may be replaced.
void check_out(const std::string& out) {
  if (out == kStandardOutput) return;
  const fs::path path(out);
  if (out.empty())
    throw UserError(
        "--out is empty: name the markdown file to write (reports/r.md), or - for "
        "standard output");
  if (!path.has_filename() || path.filename() == "." || path.filename() == "..")
    throw UserError(
        fmt::format("--out {}: names a folder; name the markdown file to write in it "
                    "({})",
                    out, (path / "r.md").lexically_normal().string()));
  if (!path.has_extension())
    throw UserError(fmt::format(
        "--out {}: name the markdown file with its extension ({}.md): its charts go into the "
        "folder beside it named after it without the extension, which would be the file itself",
        out, out));
  if (Status replaceable = check_replaceable(path); !replaceable)
    throw UserError(fmt::format("{}; choose another --out", replaceable.error().message));
}

// The chart folder is the report's own: a link there would have the charts written, and old ones
// pruned, wherever it points.
void check_chart_folder(const fs::path& folder) {
  std::error_code ec;
  if (fs::is_symlink(folder, ec))
    throw UserError(fmt::format(
        "cannot write the charts into {}: it is a symbolic link (to {}); the charts go only into "
        "a folder of the report's own: remove the link, or choose another --out",
        folder.string(), fs::read_symlink(folder, ec).string()));
}

// Writes `text` to `path` ("-": standard output) whole or not at all; a file that already holds
// it is left untouched.
WriteOutcome write_file(const fs::path& path, const std::string& text) {
  auto written =
      write_output(path.string(), text, {.create_folders = true, .skip_if_unchanged = true});
  if (!written) throw UserError(fmt::format("{}; choose another --out", written.error().message));
  return *written;
}

// Writes a CSV file whose text `produce` hands over in pieces, as write_file does.
void write_attachment(const fs::path& path, const TextProducer& produce) {
  auto written =
      write_file_in_pieces(path, produce, {.create_folders = true, .skip_if_unchanged = true});
  if (!written) throw UserError(fmt::format("{}; choose another --out", written.error().message));
}

// Writes the charts (scripts, data and, with gnuplot, SVGs) and the CSV files into `folder`, and
// removes the charts and CSV files an earlier report left there that this one no longer has.
// `progress` counts the charts, then the rows of the CSV files (as the attachments read them).
void write_charts(const fs::path& folder, const report::ReportCharts& charts,
                  const report::Gnuplot* gnuplot, Progress& progress, std::size_t csv_rows) {
  std::set<std::string> written;
  progress.switch_to("charts written", charts.figures().size());
  for (const report::Figure& figure : charts.figures()) {
    if (auto s = report::write_figure(folder, figure, gnuplot); !s)
      throw UserError(s.error().message);
    for (const char* ext : {".gp", ".dat", ".svg"}) written.insert(figure.name + ext);
    progress.advance();
  }
  progress.switch_to("rows of CSV files written", csv_rows);
  for (const auto& file : charts.attachments()) {
    write_attachment(folder / file.file_name, file.produce);
    written.insert(file.file_name);
  }
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    const std::string ext = entry.path().extension().string();
    const bool ours = ext == ".gp" || ext == ".dat" || ext == ".svg" || ext == ".csv";
    if (ours && !written.contains(entry.path().filename().string())) fs::remove(entry.path(), ec);
  }
}

void run_report(const Context& ctx, const ReportOptions& o) {
  check_out(o.out);
  const fs::path out(o.out);
  const bool to_stdout = o.out == kStandardOutput;
  const fs::path chart_folder = out.parent_path() / out.stem();
  if (!to_stdout) check_chart_folder(chart_folder);
  report::ReportInputs in;
  in.gpus = take(hw::load_all_specs(ctx.models_dir));
  // Every database --db names (several, or a folder), read one after the other.
  const std::vector<LabelledStore> dbs = open_databases_for_reading(ctx);
  // The predictions are read as a stream, twice for the digest (the second time only the square
  // shapes) and once as the CSV files are written: a sweep may store millions. A terminal shows
  // how far it got.
  Progress progress("stored predictions read (two passes)", 0);
  const report::ReadPredictions read_store = [&](const store::ReportRowFilter& filter,
                                                 const report::VisitPrediction& visit) {
    for (const LabelledStore& db : dbs)
      if (Status read = db.store.for_each_report_row(filter,
                                                     [&](const store::ReportRow& row) {
                                                       visit(row);
                                                       progress.advance();
                                                     });
          !read)
        return read;
    return Status(Ok{});
  };
  in.predictions = take(report::digest_predictions(read_store, in.gpus));
  const auto measured =
      load_measured_sources(ctx, /*user_db=*/true, o.reference_runs.folder(ctx), in.gpus);
  in.measurements = measured.measurements;
  in.ceilings = measured.ceilings;
  in.measured_origins = measured.origins;
  const fs::path published = published_dir(ctx, o);
  auto figures = report::load_published_tree(published);
  if (!figures)
    throw UserError(
        fmt::format("{}; point --published at the folder of published figures "
                    "(data/published in the source tree)",
                    figures.error().message));
  in.published = std::move(figures).value();
  take(report::check_against_models(in.published, in.gpus));
  in.generated_at = utc_now();
  // The source tree's revision, as every recorded run states it.
  in.revision = source_revision();
  in.command = command_text(ctx.command_line);
  // The charts go into a folder beside the markdown named after it: reports/x.md, reports/x/.
  in.chart_folder = to_stdout ? "" : out.stem().string();
  const auto gnuplot = report::find_gnuplot();
  if (to_stdout)
    in.charts_skipped_because = "the report went to standard output; --out FILE writes them";
  else if (!gnuplot)
    in.charts_skipped_because = gnuplot.error().message;
  const report::RenderedReport rendered = report::render_report(in);
  if (!to_stdout)
    write_charts(chart_folder, rendered.charts, gnuplot ? &*gnuplot : nullptr, progress,
                 in.predictions.count);
  const WriteOutcome outcome = write_file(out, rendered.markdown);
  progress.finish();
  // The summary goes to standard error when the report itself goes to standard output.
  fmt::print(to_stdout ? stderr : stdout, "{} {}: {}, {}, {} ({}), {} (from {}); {}{} ({})\n",
             outcome == WriteOutcome::unchanged ? "unchanged" : "wrote", o.out,
             count_noun(in.gpus.size(), "GPU model"),
             count_noun(in.predictions.count, "stored prediction"),
             count_noun(in.measurements.size(), "measurement"),
             count_noun(in.measured_origins.size(), "database"),
             count_noun(in.published.size(), "published figure"), published.string(),
             count_noun(rendered.charts.figures().size(), "chart"),
             to_stdout ? "" : " in " + chart_folder.string() + "/",
             to_stdout || !gnuplot ? "not drawn: " + in.charts_skipped_because
                                   : "drawn by " + gnuplot->version);
}

void setup(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<ReportOptions>();
  CLI::App* c = app.add_subcommand(
      "report",
      "Write the markdown report and its charts: a summary, a roofline and a per-unit chart per "
      "GPU, hardware, per-tile cycles, predicted TFLOP/s, measured TFLOP/s against the peers and "
      "the kernel ladder (with the reference runs of data/runs), asymmetric scaling, the model "
      "against published figures, the model's factors; from every database --db names (given "
      "more than once, or a folder), each listed where its measurements are shown");
  c->add_option("--out", o->out,
                "Markdown file to write, replaced whole or not at all and left untouched when "
                "unchanged (its folder is created); the charts go into a folder beside it named "
                "after it; - for standard output (without the charts)");
  c->add_option("--published", o->published,
                "Folder of published figures (default: data/published beside --models)");
  o->reference_runs.add_to(*c);
  c->callback([&ctx, o] { run_report(ctx, *o); });
}

const SubcommandRegistration registration{60, setup};

}  // namespace
}  // namespace fa4::app
