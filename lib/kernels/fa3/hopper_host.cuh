// The host side every kernel built for sm_90a shares (fa3 and its variants, fa4 on fa3's pipeline,
// fa3_bwd): the device check and their registry entry (the SM count their persistent grids are
// sized by is kernels/cuda_status.hpp's). Host code only; it includes no kernel, so the forward
// and backward launch files both take it without compiling each other's kernels.
#pragma once

#include <cuda_runtime.h>

#include <optional>
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "core/shape.hpp"
#include "kernels/cuda_status.hpp"
#include "kernels/registry.hpp"

namespace fa4::kernels::fa3 {
namespace {  // as launch.cuh's and bwd_launch.cuh's: the overloads of hopper_kernel meet there

// Why `kernel` (built for sm_90a) cannot run on `device`: wgmma and setmaxnreg exist on
// compute capability 9.0 only.
inline std::optional<std::string> unsupported_hopper_device(std::string_view kernel,
                                                            const DeviceCaps& device) {
  if (device.sm == 90) return std::nullopt;
  return std::string(kernel) +
         " is built for sm_90a (wgmma, setmaxnreg), which runs on compute capability 9.0 only; " +
         device.name + " has " + std::to_string(device.sm / 10) + "." +
         std::to_string(device.sm % 10);
}

// The registry entry of a kernel built for sm_90a, of either pass.
constexpr Kernel hopper_kernel(std::string_view name, std::string_view summary,
                               decltype(Kernel::launch) launch,
                               decltype(Kernel::workspace_bytes) workspace_bytes,
                               decltype(Kernel::unsupported_reason) unsupported, Pass pass) {
  return Kernel{.name = name,
                .summary = summary,
                .min_sm = 90,
                .unsupported_reason = unsupported,
                .workspace_bytes = workspace_bytes,
                .launch = launch,
                .pass = pass};
}

}  // namespace
}  // namespace fa4::kernels::fa3
