// One side of a comparison: what a BASELINE or CONTENDER argument names (a database file and one
// of its runs, or the whole file) and the configurations read from it, measured or predicted.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compare/verdict.hpp"
#include "core/error.hpp"
#include "core/shape.hpp"
#include "store/store.hpp"

namespace fa4::compare {

// "file.db:RUN" (one run), "file.db" (the whole database: the latest of each configuration) or
// "RUN" (a run of `default_db`, the --db database).
struct SideSpec {
  std::string db_path;
  std::optional<std::int64_t> run_id;
  std::string text;  // as given, for messages and labels
};
// `role` ("BASELINE", "CONTENDER") names the argument in the error.
Result<SideSpec> parse_side(std::string_view text, std::string_view default_db,
                            std::string_view role);

// One configuration of a side: a kernel (or, for predictions, an algorithm) on a problem on a
// device (or hardware model).
struct Entry {
  std::string device;
  std::string kernel;
  std::string source;  // store::kOurSource, "peer:torch-cudnn", ...; "model" for predictions
  AttnShape shape;
  Pass pass = Pass::fwd;
  SideSamples samples;     // measured: the samples and their flags
  double predicted_s = 0;  // predicted: the model's time
  std::string bottleneck;  // predicted: the kernel's bottleneck
  std::string db;          // the database it came from, when a side spans several; else empty
};

struct Side {
  std::string label;       // "runs.db:3" or "runs.db"
  bool predicted = false;  // a model's predictions, not measurements
  std::vector<Entry> entries;
};

// Reads the side from its database (opened by the caller, read-only): a run's measurements (a
// bench or import run) or predictions (a predict run); a whole database's measurements, or its
// predictions when it has no measurement. Refuses a run that does not exist (naming the runs
// there) and a run with nothing to compare.
Result<Side> read_side(const store::Store& db, const SideSpec& spec);

// A whole database's measurements with each run one round (compare --runs-as-rounds: rounds that
// alternate processes, as scripts/gpu-ab.sh --trees times two builds): a configuration's samples
// are its ok measurements' medians, one a run (its latest there), in run order, its SM clock the
// median of theirs; a configuration with no ok measurement cannot be compared (the latest one's
// status and reason say why). Refuses a spec that names one run, and a database without
// measurements.
Result<Side> read_side_by_runs(const store::Store& db, const SideSpec& spec);

// Several databases' sides as one, labelled "N databases", each entry labelled with its side's
// label (its database) so that kernel against kernel pairs entries of one database alone. Sides
// of the other kind are left out, their labels added to `left_out`: predictions beside
// measurements (the measured ones are kept when any is). Needs at least one side.
Side merge_sides(std::vector<Side> sides, std::vector<std::string>& left_out);

}  // namespace fa4::compare
