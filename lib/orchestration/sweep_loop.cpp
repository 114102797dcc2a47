#include "orchestration/sweep_loop.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace fa4::orchestration {

std::vector<SweepConfig> sweep_configs(const std::vector<AttnShape>& shapes,
                                       const std::vector<std::string>& kernels, Pass pass) {
  std::vector<SweepConfig> configs;
  configs.reserve(shapes.size() * kernels.size());
  for (const AttnShape& shape : shapes)
    for (const std::string& kernel : kernels) configs.push_back({kernel, shape, pass});
  return configs;
}

Result<SweepSummary> run_sweep(store::Store& db, const std::vector<SweepConfig>& configs,
                               const SweepSettings& settings, const MeasureFn& measure,
                               const RecordedFn& recorded) {
  SweepSummary summary;
  summary.total = configs.size();
  std::vector<store::MeasuredConfig> done;
  if (settings.resume) {
    auto found = db.measured_configurations(settings.device);
    if (!found) return found.error();
    done = std::move(found).value();
  }
  for (std::size_t i = 0; i < configs.size(); ++i) {
    if (settings.stop && settings.stop->load()) {
      summary.stopped = true;
      break;
    }
    const SweepConfig& config = configs[i];
    const store::MeasuredConfig key{config.kernel, config.shape, config.pass};
    if (std::find(done.begin(), done.end(), key) != done.end()) {
      ++summary.resumed;
      if (recorded) {
        store::Measurement present;
        present.kernel = config.kernel;
        present.shape = config.shape;
        present.pass = config.pass;
        present.device = settings.device;
        recorded(config, present, 0);
      }
      continue;
    }
    store::Measurement m = measure(config, i);
    m.kernel = config.kernel;
    m.shape = config.shape;
    m.pass = config.pass;
    m.device = settings.device;
    auto id = db.record_measurement(settings.run_id, m);
    if (!id)
      return Error{fmt::format("{} (after {} of {} configurations were recorded)",
                               id.error().message, summary.recorded, summary.total)};
    ++summary.recorded;
    if (recorded) recorded(config, m, *id);
  }
  return summary;
}

std::string describe_stop(const SweepSummary& summary, std::int64_t run_id,
                          const std::string& db_path, const std::string& why) {
  return fmt::format(
      "stopped by {} after {} of {} configurations: {} recorded in run {} of {}{}; {} not "
      "measured: run the same command with --resume to measure them",
      why, summary.recorded + summary.resumed, summary.total, summary.recorded, run_id, db_path,
      summary.resumed ? fmt::format(" ({} skipped as already recorded)", summary.resumed) : "",
      summary.remaining());
}

}  // namespace fa4::orchestration
