// libFuzzer target: the hardware-model loader (models/*.json) on arbitrary bytes. It must return
// a Spec or an error naming the file, never crash; a Spec it accepts must hold no control
// character in any string (they reach terminals and gnuplot scripts: seeds/model_file put a
// newline and a NUL in each) and survive the JSON round trip that `gpus --json` prints (to_json,
// then parsing that text again gives the same JSON).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string_view>

#include "core/printable.hpp"
#include "hw/loader.hpp"
#include "hw/spec_json.hpp"

namespace {

bool holds_control_character(const fa4::hw::Spec& spec) {
  if (fa4::find_control_character(spec.name)) return true;
  for (const std::string& device : spec.device_names)
    if (fa4::find_control_character(device)) return true;
  for (const auto& [pointer, source] : spec.sources)
    if (fa4::find_control_character(source)) return true;
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto spec = fa4::hw::parse_spec(text, "fuzz.json");
  if (!spec) {
    if (spec.error().message.rfind("fuzz.json: ", 0) != 0) std::abort();  // names the file
    return 0;
  }
  if (holds_control_character(*spec)) std::abort();
  nlohmann::ordered_json first;
  to_json(first, *spec);
  first.erase("id");
  const auto again = fa4::hw::parse_spec(first.dump(), "fuzz.json");
  if (!again) std::abort();
  nlohmann::ordered_json second;
  to_json(second, *again);
  second.erase("id");
  if (first != second) std::abort();
  return 0;
}
