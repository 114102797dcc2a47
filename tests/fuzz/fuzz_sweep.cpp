// libFuzzer target: the sweep parser (data/sweeps/*.json) on arbitrary bytes. It must return
// shapes that pass validate() or an error naming the file, never crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/sweep.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto sweep = fa4::parse_sweep_text(text, "fuzz.json");
  if (!sweep) {
    if (sweep.error().message.rfind("fuzz.json: ", 0) != 0) std::abort();
    return 0;
  }
  if (sweep->shapes.empty()) std::abort();
  for (const fa4::AttnShape& shape : sweep->shapes)
    if (!fa4::validate(shape)) std::abort();
  return 0;
}
