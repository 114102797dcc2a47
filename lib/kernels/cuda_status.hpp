// CUDA and cuBLAS return codes as fa4::Status values, and the current device's attributes as
// fa4::Result values, for the host side of the kernel files.
#pragma once

#include <cuda_runtime_api.h>

#include <string>
#include <string_view>

#include "core/error.hpp"

namespace fa4::kernels {

inline Status cuda_status(cudaError_t status, std::string_view what) {
  if (status == cudaSuccess) return Ok{};
  return Error{std::string(what) + ": " + cudaGetErrorString(status)};
}

// An attribute of the current device; errors name `kernel` and the attribute (`what`).
inline Result<int> current_device_attribute(std::string_view kernel, cudaDeviceAttr attribute,
                                            std::string_view what) {
  int device = 0, value = 0;
  if (Status status = cuda_status(cudaGetDevice(&device), std::string(kernel) + ": cudaGetDevice");
      !status)
    return status.error();
  if (Status status = cuda_status(cudaDeviceGetAttribute(&value, attribute, device),
                                  std::string(kernel) + ": reading the " + std::string(what));
      !status)
    return status.error();
  return value;
}
// The current device's SM count (persistent grids launch one CTA per SM; fa2_bwd_deterministic
// sizes its dQ slots by it).
inline Result<int> current_device_sms(std::string_view kernel) {
  return current_device_attribute(kernel, cudaDevAttrMultiProcessorCount, "SM count");
}

}  // namespace fa4::kernels
