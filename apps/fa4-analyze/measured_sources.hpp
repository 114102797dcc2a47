// The measurements a report or a roofline shows: the user's results database (--db, when it
// exists) and the reference records shipped in data/runs/ (one per device: H200, H100), merged so
// that the latest measurement of each kernel, problem and device wins; the prediction beside each
// of our measurements is the current model's (not the one stored on the day it was measured).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "context.hpp"
#include "hw/spec.hpp"
#include "store/store.hpp"

namespace fa4::app {

struct MeasuredSources {
  std::vector<store::MeasurementRow> measurements;
  std::vector<store::CeilingRow> ceilings;
  // One line per device of each database read: "NVIDIA H200: 770 measurements in 17 runs of
  // 2026-11-23 to 2026-11-28, revisions 684356b-dirty, ..., c9bda66 (9 in all), from
  // `data/runs/h200.db`".
  std::vector<std::string> origins;
};

// The reference runs' folder: `dir` when given, else data/runs beside the models folder.
std::string reference_runs_dir(const Context& ctx, const std::string& dir);

// --reference-runs DIR and --no-reference-runs, for the commands that show measurements.
class ReferenceRunsOptions {
 public:
  void add_to(CLI::App& command);
  // The folder to read, or "" with --no-reference-runs.
  std::string folder(const Context& ctx) const;

 private:
  std::string dir_;
  bool none_ = false;
};

// Reads --db when it exists (`user_db`; every database it names, databases.hpp) and every *.db
// in `runs_dir` (when not empty), each
// through a private copy so the shipped files are never migrated or locked; `specs` (the loaded
// hardware models) make the current model's predictions. Throws UserError naming the file that
// cannot be read.
MeasuredSources load_measured_sources(const Context& ctx, bool user_db, const std::string& runs_dir,
                                      const std::vector<hw::Spec>& specs);

}  // namespace fa4::app
