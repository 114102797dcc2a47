// The wgmma probe: the bf16 tensor-core rate through Hopper's warpgroup path (sm_90a only).
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <utility>

#include "bench/ceiling_probes_detail.hpp"
#include "kernels/sm80_primitives.cuh"

namespace fa4::bench::ceiling_detail {
namespace {

constexpr int kWarpgroups = 2;  // per CTA, each with its own accumulators and its own A tile
constexpr int kThreads = 128 * kWarpgroups;
constexpr int kM = 64, kN = 256, kK = 16;  // one wgmma.m64n256k16
constexpr int kTileK = 64;                 // bf16 elements in one 128-byte swizzled row
constexpr int kKSteps = kTileK / kK;       // wgmmas per commit group
constexpr int kRowBytes = 128;
constexpr int kATileBytes = kM * kRowBytes;  // 8 KiB per warpgroup
constexpr int kBTileBytes = kN * kRowBytes;  // 32 KiB, shared by the warpgroups
constexpr int kSwizzleAtomBytes = 1024;      // 8 rows x 128 B
constexpr int kSharedBytes = kWarpgroups * kATileBytes + kBTileBytes + kSwizzleAtomBytes;
constexpr int kIterations = 2048;             // commit groups per warpgroup
constexpr int kAccumulators = kM * kN / 128;  // fp32 per thread: 128
constexpr double kFlopsPerWgmma = 2.0 * kM * kN * kK;

// The shared-memory matrix descriptor of a K-major bf16 tile in the 128-byte swizzle layout
// (PTX ISA, "Matrix Descriptor Format"): start address >> 4 in bits 0-13; leading-dimension
// byte offset >> 4 in bits 16-29 (unused for swizzled K-major tiles whose K extent per wgmma,
// 32 B, fits in the 128-byte swizzle row: 1 by convention, as CUTLASS sets it); stride-dimension
// byte offset >> 4 in bits 32-45 (1024 B from one group of 8 rows to the next); base offset 0
// in bits 49-51 (the tile starts 1024-byte aligned); swizzle mode 1 = 128 B in bits 62-63.
__device__ __forceinline__ std::uint64_t sw128_descriptor(std::uint32_t shared_address) {
  return (std::uint64_t(shared_address >> 4) & 0x3fff) | (std::uint64_t(1) << 16) |
         (std::uint64_t(kSwizzleAtomBytes >> 4) << 32) | (std::uint64_t(1) << 62);
}

__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int Pending>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(Pending) : "memory");
}
// Pins a register at this point of the program (no access moves across it).
__device__ __forceinline__ void fence_operand(float& r) { asm volatile("" : "+f"(r)::"memory"); }

#define FA4_D8(i)                                                                             \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
      "+f"(d[i + 6]), "+f"(d[i + 7])

// d += A * B^T: A 64x16 and B 256x16, both K-major bf16 in shared memory (descriptors), d the
// warpgroup's 64x256 fp32 accumulators (128 per thread). scale-d = 1 (accumulate), scale-a =
// scale-b = 1, no transposes.
__device__ __forceinline__ void wgmma_m64n256k16(float (&d)[kAccumulators], std::uint64_t desc_a,
                                                 std::uint64_t desc_b) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, "
      "%18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, "
      "%34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, "
      "%50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, "
      "%66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, "
      "%82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, "
      "%98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, "
      "%111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, "
      "%124, %125, %126, %127}, "
      "%128, %129, p, 1, 1, 0, 0;\n"
      "}\n"
      : FA4_D8(0), FA4_D8(8), FA4_D8(16), FA4_D8(24), FA4_D8(32), FA4_D8(40), FA4_D8(48),
        FA4_D8(56), FA4_D8(64), FA4_D8(72), FA4_D8(80), FA4_D8(88), FA4_D8(96), FA4_D8(104),
        FA4_D8(112), FA4_D8(120)
      : "l"(desc_a), "l"(desc_b), "r"(1));
#else
  (void)d, (void)desc_a, (void)desc_b;
  __trap();  // wgmma needs sm_90a
#endif
}
#undef FA4_D8

// A small nonzero bf16 (magnitude in [2^-8, 2^-4), either sign) from an index: never zeros.
__device__ __forceinline__ std::uint16_t small_bf16(std::uint32_t i) {
  std::uint32_t h = i * 0x9e3779b9u;
  h ^= h >> 15;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  return std::uint16_t(((h & 1u) << 15) | ((119u + ((h >> 1) & 3u)) << 7) | ((h >> 3) & 0x7fu));
}

// Measures: the bf16 tensor-core rate through `wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16
// .bf16` (the Hopper rungs' matrix instruction), A and B from shared memory.
// Launch: grid = SM count, 1 CTA per SM, 2 warpgroups per CTA (256 threads). Shared memory: one
// A tile (64 x 64 bf16) per warpgroup and one B tile (256 x 64 bf16) shared by both, K-major,
// 128-byte swizzle, filled once with small nonzero values (then fence.proxy.async and a
// barrier: the tensor cores read through the async proxy). Each warpgroup loops 2048 times:
// wgmma.fence, 4 wgmmas (k = 0..63 of the tiles, descriptors advanced 32 B per k step) into its
// 128 fp32 accumulator registers per thread, commit_group, wait_group 1 (one group of 4 stays in
// flight while the next is issued, so the tensor cores never wait on the issuing warps).
// Expected: 650-750 TFLOP/s on an H100/H200 (cuBLAS 8192^3 reached 785 on the H200,
// lib/kernels/NOTES.md), against the datasheet's 989 (4096 FLOP/clk/SM at 1830 MHz): the
// datasheet rate is at a clock the tensor cores do not hold under full load (power).
__global__ void __launch_bounds__(kThreads, 1) wgmma_peak_kernel(float* sink, int iterations) {
  extern __shared__ std::uint8_t shared_raw[];
  const std::uint32_t raw_address = kernels::sm80::shared_address(shared_raw);
  const std::uint32_t base =
      (raw_address + kSwizzleAtomBytes - 1) & ~std::uint32_t(kSwizzleAtomBytes - 1);
  auto* tiles = reinterpret_cast<std::uint16_t*>(shared_raw + (base - raw_address));
  constexpr int kTileElements = (kWarpgroups * kATileBytes + kBTileBytes) / 2;
  for (int i = int(threadIdx.x); i < kTileElements; i += kThreads)
    tiles[i] = small_bf16(std::uint32_t(i) + 977u * blockIdx.x);
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();

  const int warpgroup = int(threadIdx.x / 128);
  const std::uint64_t desc_a = sw128_descriptor(base + std::uint32_t(warpgroup * kATileBytes));
  const std::uint64_t desc_b = sw128_descriptor(base + std::uint32_t(kWarpgroups * kATileBytes));
  float acc[kAccumulators];
#pragma unroll
  for (int r = 0; r < kAccumulators; ++r) acc[r] = 0.0f;
  for (int it = 0; it < iterations; ++it) {
    wgmma_fence();
#pragma unroll
    for (int k = 0; k < kKSteps; ++k)  // + 32 bytes per k step: 2 in the descriptor's units
      wgmma_m64n256k16(acc, desc_a + std::uint64_t(2 * k), desc_b + std::uint64_t(2 * k));
    wgmma_commit();
    wgmma_wait<1>();
  }
  wgmma_wait<0>();
  float total = 0.0f;
#pragma unroll
  for (int r = 0; r < kAccumulators; ++r) {
    fence_operand(acc[r]);
    total += acc[r];
  }
  sink[blockIdx.x * blockDim.x + threadIdx.x] = total;
}

}  // namespace

Result<Probe> make_wgmma_probe(const DeviceInfo& device) {
  if (device.major != 9 || device.minor != 0)
    return Error{
        "wgmma needs compute capability 9.0 (built for sm_90a); "
        "this device is " +
        std::to_string(device.major) + "." + std::to_string(device.minor)};
  if (Status s = kernels::cuda_status(
          cudaFuncSetAttribute(wgmma_peak_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               kSharedBytes),
          "raising the dynamic shared-memory limit");
      !s)
    return s.error();
  const int blocks = device.multiprocessors;
  Result<DeviceBuffer> sink =
      DeviceBuffer::allocate(std::size_t(blocks) * kThreads * sizeof(float));
  if (!sink) return sink.error();
  Probe probe;
  auto* sink_pointer = static_cast<float*>(sink->get());
  probe.launch = [=] {
    wgmma_peak_kernel<<<blocks, kThreads, kSharedBytes>>>(sink_pointer, kIterations);
    return kernels::cuda_status(cudaGetLastError(), "launching the kernel");
  };
  probe.buffers.push_back(std::move(*sink));
  probe.work = double(blocks) * kWarpgroups * kIterations * kKSteps * kFlopsPerWgmma;
  probe.per_clk_work = probe.work;
  probe.value_unit = "TFLOP/s";
  probe.method =
      "wgmma.mma_async.m64n256k16 bf16->fp32, A and B in shared memory (K-major, "
      "128B swizzle), 1 CTA/SM, " +
      std::to_string(kWarpgroups) + " warpgroups/CTA, " + std::to_string(kKSteps) +
      " wgmmas per commit group, wait_group 1, " + std::to_string(kIterations) +
      " groups per warpgroup";
  return Result<Probe>(std::move(probe));
}

}  // namespace fa4::bench::ceiling_detail
