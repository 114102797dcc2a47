#include "bench/device_buffer.hpp"

#include <cuda_runtime_api.h>

#include <string>
#include <utility>

#include "kernels/cuda_status.hpp"

namespace fa4::bench {

Result<DeviceBuffer> DeviceBuffer::allocate(std::size_t bytes) {
  DeviceBuffer buffer;
  if (bytes == 0) return buffer;
  if (Status s =
          kernels::cuda_status(cudaMalloc(&buffer.pointer_, bytes),
                               "allocating " + std::to_string(bytes) + " bytes of device memory");
      !s)
    return s.error();
  buffer.bytes_ = bytes;
  return buffer;
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : pointer_(std::exchange(other.pointer_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (pointer_) cudaFree(pointer_);
    pointer_ = std::exchange(other.pointer_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() {
  if (pointer_) cudaFree(pointer_);
}

}  // namespace fa4::bench
