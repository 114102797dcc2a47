// libFuzzer target: the import parser (the peer runner's JSON Lines, schema fa4-peer/1) on
// arbitrary bytes. It must return runs of well-formed measurements or an error naming the file,
// never crash.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "store/peer_records.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  const auto runs = fa4::store::parse_peer_records(in, "fuzz.jsonl", "fa4-analyze import", {});
  if (!runs) {
    if (runs.error().message.rfind("fuzz.jsonl", 0) != 0) std::abort();
    return 0;
  }
  for (const auto& run : *runs) {
    if (run.measurements.empty()) std::abort();
    for (const auto& m : run.measurements) {
      if (!fa4::validate(m.shape) || m.import_key.empty()) std::abort();
      if (m.status == fa4::store::MeasurementStatus::ok &&
          (m.samples_s.empty() || !(m.median_s > 0) || !std::isfinite(m.tflops) ||
           m.median_s < m.min_s * (1 - 1e-9) || m.median_s > m.max_s * (1 + 1e-9)))
        std::abort();
    }
  }
  return 0;
}
