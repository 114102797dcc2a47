// One reference record of a device from several results databases: the latest measurement of each
// (kernel, source, pass, problem) on the device, and the latest ceiling of each unit, as the report
// merges them (report/measured_runs.hpp), each with its samples and the prediction it is linked
// to, and every run they come from with its own revision, start time, host and command line
// (the run's notes gain "curated from <source> run <id>"). What `fa4-analyze curate` writes.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace fa4::store {

struct CurateSource {
  std::string path;   // the database to read (read only: never migrated nor written)
  std::string label;  // how the curated runs' notes name it: "data/runs/2026-11-23-h200.db"
};

struct CurateCounts {
  std::int64_t runs = 0, measurements = 0, samples = 0, predictions = 0, ceilings = 0;
};

// Reads `sources` in the order given (a later source's row replaces an earlier one's only when
// its run started later, as the report's merge does) and writes the rows of `device` (a CUDA
// device name, "NVIDIA H200") to `out`, a new database at the current schema: all or nothing.
// Refuses an `out` that exists and a device no source measured.
Result<CurateCounts> curate(std::span<const CurateSource> sources, std::string_view device,
                            const std::string& out);

}  // namespace fa4::store
