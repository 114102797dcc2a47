#include "measured_sources.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <filesystem>
#include <set>
#include <string_view>

#include "databases.hpp"
#include "open_store.hpp"
#include "orchestration/bench_prediction.hpp"
#include "report/measured_runs.hpp"
#include "user_error.hpp"

namespace fa4::app {
namespace {

namespace fs = std::filesystem;

// "a, b, c", or "a, b, ..., z (9 in all)" past `most`.
std::string joined(const std::vector<std::string>& items, std::size_t most) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (items.size() > most && i == most - 1) {
      out += fmt::format(", ..., {} ({} in all)", items.back(), items.size());
      break;
    }
    out += (i == 0 ? "" : ", ") + items[i];
  }
  return out;
}

// One line per device measured in a database, its runs' dates and revisions in the order run:
// "NVIDIA H200: 770 measurements in 17 runs of 2026-11-23 to 2026-11-28, revisions 684356b-dirty,
// 80025f9, ..., c9bda66 (9 in all), from `data/runs/h200.db`".
std::vector<std::string> describe_runs(const std::vector<store::RunRow>& runs,
                                       const std::string& shown_name) {
  struct Device {
    std::int64_t runs = 0, measurements = 0;
    std::string first, last;  // dates
    std::vector<std::string> revisions;
  };
  std::vector<std::pair<std::string, Device>> devices;  // in the order first measured
  for (const store::RunRow& r : runs) {
    if (r.measurements == 0) continue;
    const std::string name = r.device.empty() ? "unknown device" : r.device;
    auto at = std::find_if(devices.begin(), devices.end(),
                           [&](const auto& d) { return d.first == name; });
    if (at == devices.end()) at = devices.insert(devices.end(), {name, Device{}});
    Device& d = at->second;
    const std::string date = r.started_at.substr(0, 10);
    d.first = d.first.empty() ? date : std::min(d.first, date);
    d.last = std::max(d.last, date);
    ++d.runs;
    d.measurements += r.measurements;
    if (!r.revision.empty() && r.revision != "unknown" &&
        std::find(d.revisions.begin(), d.revisions.end(), r.revision) == d.revisions.end())
      d.revisions.push_back(r.revision);
  }
  std::vector<std::string> lines;
  for (const auto& [name, d] : devices)
    lines.push_back(
        fmt::format("{}: {} measurements in {} run{} of {}{}, revision{} {}, from `{}`", name,
                    d.measurements, d.runs, d.runs == 1 ? "" : "s", d.first,
                    d.last == d.first ? "" : " to " + d.last, d.revisions.size() == 1 ? "" : "s",
                    d.revisions.empty() ? "unknown" : joined(d.revisions, 6), shown_name));
  if (lines.empty()) lines.push_back(fmt::format("`{}`: no measurements", shown_name));
  return lines;
}

void add(MeasuredSources& out, const store::Store& db, const std::string& shown_name) {
  report::merge_latest(out.measurements, take(db.measurements_for_report()));
  report::merge_latest(out.ceilings, take(db.latest_ceilings()));
  for (std::string& line : describe_runs(take(db.list_runs()), shown_name))
    out.origins.push_back(std::move(line));
}

// Private copies of the reference runs: fa4-reference-<pid>-<file name> in the temp folder.
constexpr std::string_view kCopyPrefix = "fa4-reference-";

// Removes the private copies (and their -wal, -shm files) that a report killed before its cleanup
// left behind: those whose process is gone. Another process's copies stay while it runs.
void remove_stale_copies() {
  std::error_code ec;
  std::vector<fs::path> stale;
  const fs::path temp = fs::temp_directory_path(ec);
  if (ec) return;
  // Non-throwing iteration: a temp folder that cannot be listed leaves the copies where they are.
  for (fs::directory_iterator it(temp, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(kCopyPrefix)) continue;
    const char* first = name.data() + kCopyPrefix.size();
    const char* last = name.data() + name.size();
    pid_t pid = 0;
    const auto [end, parsed] = std::from_chars(first, last, pid);
    if (parsed != std::errc{} || end == last || *end != '-' || pid <= 0) continue;
    if (::kill(pid, 0) != 0 && errno == ESRCH) stale.push_back(it->path());
  }
  for (const fs::path& path : stale) fs::remove(path, ec);
}

// Opens a private copy of a shipped database (opening migrates, and the copy keeps the shipped
// file byte for byte), reads it and removes the copy.
void add_reference_run(MeasuredSources& out, const Context& ctx, const fs::path& file,
                       const std::string& shown_name) {
  const fs::path copy = fs::temp_directory_path() /
                        fmt::format("{}{}-{}", kCopyPrefix, ::getpid(), file.filename().string());
  std::error_code ec;
  fs::copy_file(file, copy, fs::copy_options::overwrite_existing, ec);
  if (ec)
    throw UserError(
        fmt::format("cannot copy the reference run {} to {}: {}; pass "
                    "--no-reference-runs to leave the reference runs out",
                    file.string(), copy.string(), ec.message()));
  Context private_ctx = ctx;
  private_ctx.db_path = copy.string();
  try {
    add(out, open_store_for_reading(private_ctx), shown_name);
  } catch (const UserError& e) {
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(copy.string() + suffix, ec);
    // The message names the copy where it names a file (a DROP command to run, say): name the
    // shipped file instead, the one the user can act on.
    std::string message = e.what();
    for (std::size_t at = message.find(copy.string()); at != std::string::npos;
         at = message.find(copy.string(), at + file.string().size()))
      message.replace(at, copy.string().size(), file.string());
    throw UserError(fmt::format("reference run {}: {}", file.string(), message));
  }
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(copy.string() + suffix, ec);
}

// Every *.db in `runs_dir`, sorted by name.
void add_reference_runs(MeasuredSources& out, const Context& ctx, const std::string& runs_dir) {
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(runs_dir, ec))
    if (entry.path().extension() == ".db") files.push_back(entry.path());
  if (ec)
    throw UserError(
        fmt::format("cannot read the reference runs' folder {}: {}; point "
                    "--reference-runs at data/runs, or pass --no-reference-runs",
                    runs_dir, ec.message()));
  std::sort(files.begin(), files.end());
  remove_stale_copies();
  // The shipped folder is named as the source tree names it, so reports carry no local paths.
  const bool shipped = fs::equivalent(runs_dir, reference_runs_dir(ctx, ""), ec);
  for (const fs::path& file : files)
    add_reference_run(out, ctx, file,
                      shipped ? "data/runs/" + file.filename().string() : file.string());
}

}  // namespace

std::string reference_runs_dir(const Context& ctx, const std::string& dir) {
  if (!dir.empty()) return dir;
  return (fs::path(ctx.models_dir) / ".." / "data" / "runs").lexically_normal().string();
}

void ReferenceRunsOptions::add_to(CLI::App& command) {
  CLI::Option* dir =
      command.add_option("--reference-runs", dir_,
                         "Folder of reference databases whose measurements are shown beside --db's "
                         "(default: data/runs beside --models)");
  command
      .add_flag("--no-reference-runs", none_,
                "Leave the reference runs out: --db's measurements only")
      ->excludes(dir);
}

std::string ReferenceRunsOptions::folder(const Context& ctx) const {
  return none_ ? "" : reference_runs_dir(ctx, dir_);
}

MeasuredSources load_measured_sources(const Context& ctx, bool user_db, const std::string& runs_dir,
                                      const std::vector<hw::Spec>& specs) {
  MeasuredSources out;
  if (user_db)
    for (const LabelledStore& db : open_databases_for_reading(ctx)) add(out, db.store, db.label);
  if (!runs_dir.empty()) add_reference_runs(out, ctx, runs_dir);
  orchestration::predict_again(out.measurements, specs);
  return out;
}

}  // namespace fa4::app
