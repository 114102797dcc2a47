// libFuzzer target: one shape object ({"batch", "heads", "seqlen", "headdim", ...}) on arbitrary
// JSON. An accepted shape must be valid and its FLOP and byte counts finite and positive; a
// refused one must name where it came from.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "core/sweep.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto doc = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return 0;
  const auto shape = fa4::parse_shape(doc, "/shapes/0");
  if (!shape) {
    if (shape.error().message.rfind("/shapes/0", 0) != 0) std::abort();
    return 0;
  }
  if (!fa4::validate(*shape) || fa4::describe(*shape).empty()) std::abort();
  for (fa4::Pass pass : {fa4::Pass::fwd, fa4::Pass::bwd}) {
    const double flops = fa4::attention_flops(*shape, pass);
    const double bytes = fa4::attention_min_hbm_bytes(*shape, pass);
    if (!std::isfinite(flops) || flops <= 0 || !std::isfinite(bytes) || bytes <= 0) std::abort();
  }
  return 0;
}
