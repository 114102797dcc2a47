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

// "NVIDIA H200, 2026-11-23, revision 684356b-dirty, runs 1-3, 144 measurements"
std::string describe_runs(const std::vector<store::RunRow>& runs) {
  std::set<std::string> devices, dates, revisions;
  std::int64_t measurements = 0;
  for (const store::RunRow& r : runs) {
    if (!r.device.empty()) devices.insert(r.device);
    dates.insert(r.started_at.substr(0, 10));
    if (!r.revision.empty() && r.revision != "unknown") revisions.insert(r.revision);
    measurements += r.measurements;
  }
  const auto join = [](const std::set<std::string>& items) {
    std::string out;
    for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
    return out.empty() ? std::string("unknown") : out;
  };
  const std::string ids = runs.empty() ? "none"
                          : runs.size() == 1
                              ? fmt::format("run {}", runs.front().id)
                              : fmt::format("runs {}-{}", runs.front().id, runs.back().id);
  return fmt::format("{}, {}, revision {}, {}, {} measurements", join(devices), join(dates),
                     join(revisions), ids, measurements);
}

void add(MeasuredSources& out, const store::Store& db, const std::string& shown_name) {
  report::merge_latest(out.measurements, take(db.measurements_for_report()));
  report::merge_latest(out.ceilings, take(db.latest_ceilings()));
  out.origins.push_back(fmt::format("`{}`: {}", shown_name, describe_runs(take(db.list_runs()))));
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
