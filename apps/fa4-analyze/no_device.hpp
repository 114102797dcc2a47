// The one message of a command that needs a CUDA device and has none: it says "no CUDA device"
// once, why (a build without CUDA, or what CUDA reports), and what still works.
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>

namespace fa4::app {

inline constexpr std::string_view kBuiltWithoutCuda = "this fa4-analyze was built without CUDA";

// "no CUDA device: bench needs one (CUDA reports ...); the model-only commands (model, predict,
// report) still work".
inline std::string no_device_message(std::string_view command_needs, std::string_view why) {
  return fmt::format(
      "no CUDA device: {} ({}); the model-only commands (model, predict, report) still work",
      command_needs, why);
}

}  // namespace fa4::app
