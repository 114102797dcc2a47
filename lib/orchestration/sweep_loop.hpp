// The loop of a bench sweep, apart from the GPU: measure each configuration (kernel x shape) with
// a caller's function and commit its measurement before starting the next, so an interrupted
// sweep keeps everything it finished. It stops between configurations when asked (a flag, set by
// StopOnSignal) and, resuming, skips what the database already holds for the same device.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "store/store.hpp"

namespace fa4::orchestration {

// One configuration; its identity (what --resume matches) is kernel, shape and pass.
struct SweepConfig {
  std::string kernel;
  AttnShape shape;
  Pass pass = Pass::fwd;  // the pass the kernel computes, recorded with its measurement
};

struct SweepSettings {
  std::int64_t run_id = 0;
  std::string device;  // the CUDA device name every measurement is recorded under
  // Skip the configurations already measured on `device` (ok or skipped, in any run); failed
  // ones are measured again.
  bool resume = false;
  const std::atomic<bool>* stop = nullptr;  // checked before each configuration; may be null
};

struct SweepSummary {
  std::size_t total = 0;     // configurations in the sweep
  std::size_t recorded = 0;  // measured and committed by this call
  std::size_t resumed = 0;   // skipped: already in the database
  bool stopped = false;      // the stop flag ended the sweep early
  std::size_t remaining() const { return total - recorded - resumed; }
};

// Measures one configuration: returns the measurement to record (status, times, reason, ...);
// the loop fills in its kernel, shape, pass and device. `index` counts from 0 over the whole sweep.
using MeasureFn = std::function<store::Measurement(const SweepConfig& config, std::size_t index)>;
// Told about each committed measurement (its id) or each configuration skipped on resume
// (id 0): for progress output.
using RecordedFn =
    std::function<void(const SweepConfig& config, const store::Measurement& m, std::int64_t id)>;

// Every kernel (all of pass `pass`) on every shape, shapes outermost: the order bench measures
// them in.
std::vector<SweepConfig> sweep_configs(const std::vector<AttnShape>& shapes,
                                       const std::vector<std::string>& kernels,
                                       Pass pass = Pass::fwd);

// Runs the sweep. A database error stops it with that error; what was committed stays.
Result<SweepSummary> run_sweep(store::Store& db, const std::vector<SweepConfig>& configs,
                               const SweepSettings& settings, const MeasureFn& measure,
                               const RecordedFn& recorded = {});

// "stopped by SIGINT after 3 of 10 configurations: 3 recorded in run 7 of results.db; 7 not
// measured: run the same command with --resume to measure them": what bench prints when stopped.
std::string describe_stop(const SweepSummary& summary, std::int64_t run_id,
                          const std::string& db_path, const std::string& why);

}  // namespace fa4::orchestration
