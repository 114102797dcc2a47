// The register-only compute probes: bf16 mma.sync, MUFU ex2 and FP32 FMA. Each thread runs
// several independent dependency chains (enough to cover the unit's latency with the SM's
// warps), the loop body is unrolled so loop overhead is a small share of the issue slots, and
// every chain ends in a store to a sink so the compiler cannot delete the work.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bench/ceiling_probes_detail.hpp"
#include "kernels/sm80_primitives.cuh"
#include "kernels/toolbox.cuh"

namespace fa4::bench::ceiling_detail {
namespace {

// ---- mma.sync -----------------------------------------------------------------------------

constexpr int kMmaChains = 8;  // independent accumulators per warp: covers the MMA latency
constexpr int kMmaWarpsPerBlock = 4;
constexpr int kMmaBlocksPerSm = 8;  // 32 warps per SM, 8 per tensor-core sub-partition
constexpr int kMmaIterations = 4096;
constexpr double kFlopsPerMma = 2.0 * 16 * 8 * 16;

// Measures: the bf16 tensor-core rate through the sm80 path, `mma.sync.m16n8k16` bf16 x bf16 ->
// fp32 with operands in registers, back to back (fa2's only matrix instruction).
// Launch: 8 blocks of 4 warps per SM (grid = 8 x SMs, one wave); each warp runs 8 independent
// accumulator chains for 4096 iterations (8 HMMA per iteration).
// Expected: about 640 TFLOP/s on an H200 (643 measured, lib/kernels/NOTES.md), about 2460
// FLOP/clk/SM at 1980 MHz: 60% of the 4096 FLOP/clk/SM that wgmma is rated at, since the
// warp-synchronous instruction cannot keep Hopper's tensor cores fed.
__global__ void __launch_bounds__(kMmaWarpsPerBlock * 32)
    mma_sync_peak_kernel(const std::uint32_t* operands, float* sink, int iterations) {
  const int lane = int(threadIdx.x % 32);
  const std::uint32_t a[4] = {operands[lane % 4], operands[4 + lane % 4], operands[8 + lane % 4],
                              operands[12 + lane % 4]};
  const std::uint32_t b0 = operands[16 + lane % 4], b1 = operands[20 + lane % 4];
  float c[kMmaChains][4] = {};
  for (int it = 0; it < iterations; ++it)
#pragma unroll
    for (int j = 0; j < kMmaChains; ++j)
      kernels::sm80::mma_m16n8k16<__nv_bfloat16>(c[j], a, b0, b1);
  float total = 0.0f;
#pragma unroll
  for (int j = 0; j < kMmaChains; ++j) total += c[j][0] + c[j][1] + c[j][2] + c[j][3];
  sink[blockIdx.x * blockDim.x + threadIdx.x] = total;
}

// ---- MUFU ex2 -----------------------------------------------------------------------------

constexpr int kEx2Chains = 8;  // independent chains per thread: covers the MUFU latency
constexpr int kEx2Unroll = 8;  // steps of every chain per loop trip
constexpr int kEx2Trips = 256;
constexpr int kFullThreads = 256;    // threads per block of the FP32 and ex2 probes
constexpr int kFullBlocksPerSm = 8;  // 2048 threads per SM: full occupancy (<= 32 registers)
constexpr float kEx2Offset = -1.5f;  // x -> 2^x - 1.5 has the attracting fixed point x = -1

// Measures: the MUFU rate of `ex2.approx.ftz.f32` (the exponential of softmax).
// Launch: 8 blocks of 256 threads per SM (grid = 8 x SMs, full occupancy); each thread runs 8
// independent chains x <- ex2(x) + (-1.5) (one MUFU.EX2 and one FADD per ex2; the FADD goes to
// the FMA pipe, 8x wider than MUFU, and the issue slots are 1/4 used), 256 trips of 8 steps.
// Expected: 16 ex2/clk/SM (the programming guide's throughput table for compute capability 9.0:
// 16 results per clock per SM for exp2), about 4.2 Tops/s on 132 SMs at 1980 MHz.
__global__ void __launch_bounds__(kFullThreads, kFullBlocksPerSm)
    mufu_ex2_kernel(float* sink, int trips, float offset) {
  float x[kEx2Chains];
#pragma unroll
  for (int j = 0; j < kEx2Chains; ++j)
    x[j] = -1.0f + 0.01f * float(j) + 1e-3f * float(threadIdx.x % 32);
  for (int trip = 0; trip < trips; ++trip)
#pragma unroll
    for (int u = 0; u < kEx2Unroll; ++u)
#pragma unroll
      for (int j = 0; j < kEx2Chains; ++j) x[j] = kernels::fast_exp2(x[j]) + offset;
  float total = 0.0f;
#pragma unroll
  for (int j = 0; j < kEx2Chains; ++j) total += x[j];
  sink[blockIdx.x * blockDim.x + threadIdx.x] = total;
}

// ---- FP32 FMA -----------------------------------------------------------------------------

constexpr int kFmaChains = 8;   // independent chains per thread: covers the 4-cycle FMA latency
constexpr int kFmaUnroll = 32;  // steps of every chain per loop trip: 256 FFMA per trip
constexpr int kFmaTrips = 1024;
constexpr float kFmaScale = 0.999f;  // x -> 0.999 x + 0.001 converges to 1: finite, nonzero
constexpr float kFmaAddend = 0.001f;

// Measures: the FP32 FMA pipe, FFMA lanes per clock.
// Launch: 8 blocks of 256 threads per SM (grid = 8 x SMs, full occupancy); each thread runs 8
// independent chains x <- fma(x, scale, addend) (scale and addend are kernel arguments, so
// nothing folds), 1024 trips of 32 steps: 256 FFMA per trip plus the loop's counter, compare
// and branch (about 1% of the issue slots, which the FFMAs need all of).
// Expected: 128 FMA lanes/clk/SM (4 sub-partitions x 32 FP32 lanes), 256 FLOP/clk/SM, about
// 67 TFLOP/s on 132 SMs at 1980 MHz.
__global__ void __launch_bounds__(kFullThreads, kFullBlocksPerSm)
    fma_fp32_kernel(float* sink, int trips, float scale, float addend) {
  float x[kFmaChains];
#pragma unroll
  for (int j = 0; j < kFmaChains; ++j)
    x[j] = 0.5f + 0.01f * float(j) + 1e-3f * float(threadIdx.x % 32);
  for (int trip = 0; trip < trips; ++trip)
#pragma unroll
    for (int u = 0; u < kFmaUnroll; ++u)
#pragma unroll
      for (int j = 0; j < kFmaChains; ++j) x[j] = __fmaf_rn(x[j], scale, addend);
  float total = 0.0f;
#pragma unroll
  for (int j = 0; j < kFmaChains; ++j) total += x[j];
  sink[blockIdx.x * blockDim.x + threadIdx.x] = total;
}

Result<DeviceBuffer> allocate_sink(std::size_t floats) {
  return DeviceBuffer::allocate(floats * sizeof(float));
}

}  // namespace

Result<Probe> make_mma_sync_probe(const DeviceInfo& device) {
  const int blocks = device.multiprocessors * kMmaBlocksPerSm;
  const int threads = kMmaWarpsPerBlock * 32;
  // bf16 pairs of small nonzero values (0x3c00 = 2^-7): never time zeros.
  const std::vector<std::uint32_t> host_operands(24, 0x3c003c00u);
  Result<DeviceBuffer> operands =
      DeviceBuffer::allocate(host_operands.size() * sizeof(std::uint32_t));
  if (!operands) return operands.error();
  if (Status s = kernels::cuda_status(cudaMemcpy(operands->get(), host_operands.data(),
                                                 operands->size(), cudaMemcpyHostToDevice),
                                      "uploading operands");
      !s)
    return s.error();
  Result<DeviceBuffer> sink = allocate_sink(std::size_t(blocks) * threads);
  if (!sink) return sink.error();
  Probe probe;
  const auto* operand_pointer = static_cast<const std::uint32_t*>(operands->get());
  auto* sink_pointer = static_cast<float*>(sink->get());
  probe.launch = [=] {
    mma_sync_peak_kernel<<<blocks, threads>>>(operand_pointer, sink_pointer, kMmaIterations);
    return kernels::cuda_status(cudaGetLastError(), "launching the kernel");
  };
  probe.buffers.push_back(std::move(*operands));
  probe.buffers.push_back(std::move(*sink));
  probe.work = double(blocks) * kMmaWarpsPerBlock * kMmaIterations * kMmaChains * kFlopsPerMma;
  probe.per_clk_work = probe.work;
  probe.value_unit = "TFLOP/s";
  probe.method = "mma.sync.m16n8k16 bf16->fp32, operands in registers, " +
                 std::to_string(kMmaChains) + " chains/warp, " +
                 std::to_string(kMmaWarpsPerBlock * kMmaBlocksPerSm) + " warps/SM, " +
                 std::to_string(kMmaIterations) + " iterations";
  return Result<Probe>(std::move(probe));
}

Result<Probe> make_mufu_ex2_probe(const DeviceInfo& device) {
  const int blocks = device.multiprocessors * kFullBlocksPerSm;
  Result<DeviceBuffer> sink = allocate_sink(std::size_t(blocks) * kFullThreads);
  if (!sink) return sink.error();
  Probe probe;
  auto* sink_pointer = static_cast<float*>(sink->get());
  probe.launch = [=] {
    mufu_ex2_kernel<<<blocks, kFullThreads>>>(sink_pointer, kEx2Trips, kEx2Offset);
    return kernels::cuda_status(cudaGetLastError(), "launching the kernel");
  };
  probe.buffers.push_back(std::move(*sink));
  probe.work = double(blocks) * kFullThreads * kEx2Trips * kEx2Unroll * kEx2Chains;
  probe.per_clk_work = probe.work;
  probe.value_unit = "Tops/s";
  probe.method = "ex2.approx.ftz.f32 (MUFU.EX2) + 1 FADD per ex2 (x = ex2(x) - 1.5), " +
                 std::to_string(kEx2Chains) + " chains/thread, " +
                 std::to_string(kFullThreads * kFullBlocksPerSm) + " threads/SM, " +
                 std::to_string(kEx2Trips * kEx2Unroll) + " steps";
  return Result<Probe>(std::move(probe));
}

Result<Probe> make_fma_probe(const DeviceInfo& device) {
  const int blocks = device.multiprocessors * kFullBlocksPerSm;
  Result<DeviceBuffer> sink = allocate_sink(std::size_t(blocks) * kFullThreads);
  if (!sink) return sink.error();
  Probe probe;
  auto* sink_pointer = static_cast<float*>(sink->get());
  probe.launch = [=] {
    fma_fp32_kernel<<<blocks, kFullThreads>>>(sink_pointer, kFmaTrips, kFmaScale, kFmaAddend);
    return kernels::cuda_status(cudaGetLastError(), "launching the kernel");
  };
  probe.buffers.push_back(std::move(*sink));
  const double fma_lanes = double(blocks) * kFullThreads * kFmaTrips * kFmaUnroll * kFmaChains;
  probe.work = 2.0 * fma_lanes;
  probe.per_clk_work = fma_lanes;
  probe.value_unit = "TFLOP/s";
  probe.method = "FFMA x = fma(x, 0.999, 0.001), " + std::to_string(kFmaChains) +
                 " chains/thread, " + std::to_string(kFullThreads * kFullBlocksPerSm) +
                 " threads/SM, " + std::to_string(kFmaTrips * kFmaUnroll) + " steps (" +
                 std::to_string(kFmaUnroll * kFmaChains) + " FFMA per loop trip), 2 FLOP per FMA";
  return Result<Probe>(std::move(probe));
}

}  // namespace fa4::bench::ceiling_detail
