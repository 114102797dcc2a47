// libFuzzer target: the import parser (the peer runner's JSON Lines, schema fa4-peer/1) on
// arbitrary bytes. It must return runs of well-formed measurements whose strings (kernel, source,
// device, reason, the run's revision, host, driver and notes) hold no control character (they
// reach terminals and gnuplot scripts: seeds/peer_records put a newline and a NUL in each string
// field), or an error naming the file, never crash.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <sstream>
#include <string>
#include <string_view>

#include "core/printable.hpp"
#include "store/peer_records.hpp"

namespace {

bool any_control_character(std::initializer_list<std::string_view> texts) {
  for (std::string_view text : texts)
    if (fa4::find_control_character(text)) return true;
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  const auto runs = fa4::store::parse_peer_records(in, "fuzz.jsonl", "fa4-analyze import", {});
  if (!runs) {
    if (runs.error().message.rfind("fuzz.jsonl", 0) != 0) std::abort();
    return 0;
  }
  for (const auto& run : *runs) {
    if (run.measurements.empty()) std::abort();
    const fa4::store::RunInfo& info = run.info;
    if (any_control_character(
            {info.revision, info.host, info.device, info.driver, info.cuda_version, info.notes}))
      std::abort();
    for (const auto& m : run.measurements) {
      if (!fa4::validate(m.shape) || m.import_key.empty()) std::abort();
      if (any_control_character({m.kernel, m.source, m.device, m.reason, m.import_key}))
        std::abort();
      if (m.status == fa4::store::MeasurementStatus::ok &&
          (m.samples_s.empty() || !(m.median_s > 0) || !std::isfinite(m.tflops) ||
           m.median_s < m.min_s * (1 - 1e-9) || m.median_s > m.max_s * (1 + 1e-9)))
        std::abort();
    }
  }
  return 0;
}
