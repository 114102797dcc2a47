// The memory probes: shared-memory reads, a device-memory copy and a device-memory read.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "bench/ceiling_probes_detail.hpp"
#include "kernels/sm80_primitives.cuh"

namespace fa4::bench::ceiling_detail {
namespace {

// ---- shared-memory reads ------------------------------------------------------------------

constexpr int kSmemThreads = 256;
constexpr int kSmemBlocksPerSm = 8;         // 2048 threads per SM: full occupancy (<= 32 registers)
constexpr int kSmemBufferBytes = 16384;     // per block: 8 x 16 KiB = 128 KiB per SM
constexpr int kWarpBytesPerLoad = 32 * 16;  // one ld.shared.v4.u32 of a warp
constexpr int kSmemLoadsPerTrip = kSmemBufferBytes / kWarpBytesPerLoad;  // 32
constexpr int kSmemTrips = 512;

// 16 bytes from shared memory. volatile: the loop reads the same addresses every trip, and
// nothing may hoist, merge or drop the loads.
__device__ __forceinline__ uint4 load_shared_16(std::uint32_t address) {
  uint4 v;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"(address));
  return v;
}

// Measures: shared-memory read bandwidth, bytes per clock per SM (what feeds ldmatrix and the
// softmax's reads of S and P in the model).
// Launch: 8 blocks of 256 threads per SM (grid = 8 x SMs, full occupancy), 16 KiB of shared
// memory per block filled with nonzero words. Each warp reads the whole buffer per trip with
// 32 `ld.shared.v4.u32`, lane l at byte 16 l of each 512-byte slab: a quarter-warp covers the
// 32 banks once, so each load is 4 conflict-free wavefronts. The loaded words are XORed into 4
// accumulators (2 LOP3 per load) that end in a sink; 512 trips.
// Expected: 128 B/clk/SM (32 banks x 4 B), about 33 TB/s on 132 SMs at 1980 MHz.
__global__ void __launch_bounds__(kSmemThreads, kSmemBlocksPerSm)
    smem_read_kernel(std::uint32_t* sink, int trips) {
  __shared__ uint4 buffer[kSmemBufferBytes / 16];
  for (int i = int(threadIdx.x); i < kSmemBufferBytes / 16; i += kSmemThreads)
    buffer[i] =
        make_uint4(0x3c003c00u + i, 0x3c013c01u ^ i, 0x3c023c02u + 3 * i, 0x3c033c03u ^ (5 * i));
  __syncthreads();
  const std::uint32_t base = kernels::sm80::shared_address(buffer) + 16u * (threadIdx.x % 32);
  uint4 acc = make_uint4(threadIdx.x, 0, 0, 0);
  for (int trip = 0; trip < trips; ++trip)
#pragma unroll
    for (int j = 0; j < kSmemLoadsPerTrip; ++j) {
      const uint4 v = load_shared_16(base + std::uint32_t(j * kWarpBytesPerLoad));
      acc.x ^= v.x;
      acc.y ^= v.y;
      acc.z ^= v.z;
      acc.w ^= v.w;
    }
  sink[blockIdx.x * blockDim.x + threadIdx.x] = acc.x ^ acc.y ^ acc.z ^ acc.w;
}

// ---- device-memory copy -------------------------------------------------------------------

constexpr std::size_t kCopyBytes = std::size_t{1} << 30;  // per buffer: far past any L2
constexpr int kCopyThreads = 512;
constexpr int kCopyBlocksPerSm = 4;  // 2048 threads per SM
constexpr int kCopyUnroll = 4;       // independent 16-byte loads in flight per thread

// Measures: device-memory (HBM) bandwidth for a copy, bytes read + bytes written per second.
// Launch: 4 blocks of 512 threads per SM (grid = 4 x SMs); a grid-stride loop over 1 GiB of
// 16-byte elements, 4 loads (LDG.128) issued before their 4 stores (STG.128), then a tail loop.
// Source filled with nonzero bytes once; 1 GiB per buffer is 17x the H200's L2, so every launch
// streams from and to device memory.
// Expected: about 4.2 TB/s on an H200 (4.24 measured with cudaMemcpy device-to-device,
// lib/kernels/NOTES.md; 4.8 datasheet), about 3 TB/s on an H100 SXM (3.35 datasheet).
__global__ void __launch_bounds__(kCopyThreads)
    hbm_copy_kernel(const uint4* __restrict__ source, uint4* __restrict__ target,
                    std::size_t count) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + (kCopyUnroll - 1) * stride < count; i += kCopyUnroll * stride) {
    uint4 v[kCopyUnroll];
#pragma unroll
    for (int u = 0; u < kCopyUnroll; ++u) v[u] = source[i + u * stride];
#pragma unroll
    for (int u = 0; u < kCopyUnroll; ++u) target[i + u * stride] = v[u];
  }
  for (; i < count; i += stride) target[i] = source[i];
}

// ---- device-memory read ------------------------------------------------------------------

constexpr std::size_t kReadBytes = std::size_t{2} << 30;  // 34x the H200's L2
constexpr int kReadUnroll = 8;                            // independent 16-byte loads in flight

// Measures: device-memory (HBM) bandwidth of a read-only stream, bytes read per second: what
// decode attention does (it reads the KV cache and writes almost nothing), which a copy's
// read-write turnarounds understate (lib/kernels/decode/NOTES.md: on the lent H200 cuDNN's decode
// read 4.58 TB/s where the copy measured 3.87).
// Launch: 4 blocks of 512 threads per SM; a grid-stride loop over 2 GiB of 16-byte elements, 8
// loads (LDG.128) issued before they are XORed into one accumulator per thread, which ends in a
// sink (so no load can be dropped). Source filled with nonzero bytes once.
// Expected: about 4.5 TB/s on an H200 (4.8 datasheet).
__global__ void __launch_bounds__(kCopyThreads)
    hbm_read_kernel(const uint4* __restrict__ source, std::size_t count, std::uint32_t* sink) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  uint4 acc = make_uint4(0, 0, 0, 0);
  for (; i + (kReadUnroll - 1) * stride < count; i += kReadUnroll * stride) {
    uint4 v[kReadUnroll];
#pragma unroll
    for (int u = 0; u < kReadUnroll; ++u) v[u] = source[i + u * stride];
#pragma unroll
    for (int u = 0; u < kReadUnroll; ++u) {
      acc.x ^= v[u].x;
      acc.y ^= v[u].y;
      acc.z ^= v[u].z;
      acc.w ^= v[u].w;
    }
  }
  for (; i < count; i += stride) acc.x ^= source[i].x ^ source[i].y ^ source[i].z ^ source[i].w;
  sink[blockIdx.x * blockDim.x + threadIdx.x] = acc.x ^ acc.y ^ acc.z ^ acc.w;
}

}  // namespace

Result<Probe> make_smem_read_probe(const DeviceInfo& device) {
  const int blocks = device.multiprocessors * kSmemBlocksPerSm;
  Result<DeviceBuffer> sink =
      DeviceBuffer::allocate(std::size_t(blocks) * kSmemThreads * sizeof(std::uint32_t));
  if (!sink) return sink.error();
  Probe probe;
  auto* sink_pointer = static_cast<std::uint32_t*>(sink->get());
  probe.launch = [=] {
    smem_read_kernel<<<blocks, kSmemThreads>>>(sink_pointer, kSmemTrips);
    return kernels::cuda_status(cudaGetLastError(), "launching the kernel");
  };
  probe.buffers.push_back(std::move(*sink));
  probe.work = double(blocks) * (kSmemThreads / 32) * kSmemTrips * kSmemLoadsPerTrip *
               double(kWarpBytesPerLoad);
  probe.per_clk_work = probe.work;
  probe.value_unit = "TB/s";
  probe.method =
      "ld.shared.v4.u32 (LDS.128), conflict-free (512 contiguous bytes per warp), "
      "XOR-accumulated, " +
      std::to_string(kSmemThreads * kSmemBlocksPerSm) + " threads/SM, " +
      std::to_string(kSmemLoadsPerTrip) + " loads x " + std::to_string(kSmemTrips) +
      " trips per warp; bytes read";
  return Result<Probe>(std::move(probe));
}

Result<Probe> make_hbm_copy_probe(const DeviceInfo& device) {
  Result<DeviceBuffer> source = DeviceBuffer::allocate(kCopyBytes);
  if (!source) return source.error();
  Result<DeviceBuffer> target = DeviceBuffer::allocate(kCopyBytes);
  if (!target) return target.error();
  if (Status s =
          kernels::cuda_status(cudaMemset(source->get(), 0x3c, kCopyBytes), "filling the source");
      !s)
    return s.error();
  const int blocks = device.multiprocessors * kCopyBlocksPerSm;
  Probe probe;
  const auto* source_pointer = static_cast<const uint4*>(source->get());
  auto* target_pointer = static_cast<uint4*>(target->get());
  probe.launch = [=] {
    hbm_copy_kernel<<<blocks, kCopyThreads>>>(source_pointer, target_pointer,
                                              kCopyBytes / sizeof(uint4));
    return kernels::cuda_status(cudaGetLastError(), "launching the kernel");
  };
  probe.buffers.push_back(std::move(*source));
  probe.buffers.push_back(std::move(*target));
  probe.work = 2.0 * double(kCopyBytes);
  probe.per_clk_work = 0;
  probe.value_unit = "TB/s";
  probe.method =
      "grid-stride copy kernel, 16-byte loads and stores (4 in flight per thread), "
      "2 x 1 GiB buffers, " +
      std::to_string(kCopyThreads * kCopyBlocksPerSm) + " threads/SM; bytes read + written";
  return Result<Probe>(std::move(probe));
}

Result<Probe> make_hbm_read_probe(const DeviceInfo& device) {
  Result<DeviceBuffer> source = DeviceBuffer::allocate(kReadBytes);
  if (!source) return source.error();
  if (Status s =
          kernels::cuda_status(cudaMemset(source->get(), 0x3c, kReadBytes), "filling the source");
      !s)
    return s.error();
  const int blocks = device.multiprocessors * kCopyBlocksPerSm;
  Result<DeviceBuffer> sink =
      DeviceBuffer::allocate(std::size_t(blocks) * kCopyThreads * sizeof(std::uint32_t));
  if (!sink) return sink.error();
  Probe probe;
  const auto* source_pointer = static_cast<const uint4*>(source->get());
  auto* sink_pointer = static_cast<std::uint32_t*>(sink->get());
  probe.launch = [=] {
    hbm_read_kernel<<<blocks, kCopyThreads>>>(source_pointer, kReadBytes / sizeof(uint4),
                                              sink_pointer);
    return kernels::cuda_status(cudaGetLastError(), "launching the kernel");
  };
  probe.buffers.push_back(std::move(*source));
  probe.buffers.push_back(std::move(*sink));
  probe.work = double(kReadBytes);
  probe.per_clk_work = 0;
  probe.value_unit = "TB/s";
  probe.method = "grid-stride read kernel, 16-byte loads (8 in flight per thread) XORed into a "
                 "sink, 2 GiB buffer, " +
                 std::to_string(kCopyThreads * kCopyBlocksPerSm) + " threads/SM; bytes read";
  return Result<Probe>(std::move(probe));
}

}  // namespace fa4::bench::ceiling_detail
