// One device allocation owned by a value: cudaMalloc on allocate, cudaFree when destroyed; movable,
// not copyable. Used by the oracle check, the timer's L2 flush and the ceiling probes.
#pragma once

#include <cstddef>

#include "core/error.hpp"

namespace fa4::bench {

// Owns one cudaMalloc allocation.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  static Result<DeviceBuffer> allocate(std::size_t bytes);
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer();

  void* get() const { return pointer_; }
  std::size_t size() const { return bytes_; }

 private:
  void* pointer_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace fa4::bench
