// CUDA and cuBLAS return codes as fa4::Status values, for the host side of the kernel files.
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

}  // namespace fa4::kernels
