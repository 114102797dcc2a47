// libFuzzer target: the sweep parser (data/sweeps/*.json) on arbitrary bytes. It must return
// shapes that pass validate() and a name and description without control characters (seeds/sweep
// put a newline and a NUL in each string), or an error naming the file, never crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/printable.hpp"
#include "core/sweep.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto sweep = fa4::parse_sweep_text(text, "fuzz.json");
  if (!sweep) {
    if (sweep.error().message.rfind("fuzz.json: ", 0) != 0) std::abort();
    return 0;
  }
  if (sweep->shapes.empty()) std::abort();
  if (fa4::find_control_character(sweep->name) || fa4::find_control_character(sweep->description))
    std::abort();
  for (const fa4::AttnShape& shape : sweep->shapes)
    if (!fa4::validate(shape)) std::abort();
  return 0;
}
