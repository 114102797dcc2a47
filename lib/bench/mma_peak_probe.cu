#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <vector>

#include "bench/attention_check.hpp"
#include "kernels/sm80_primitives.cuh"
#include "bench/mma_peak_probe.hpp"

namespace fa4::bench {
namespace {

constexpr int kChains = 8;  // independent accumulators per warp: covers the MMA latency
constexpr int kWarpsPerBlock = 4;
constexpr int kBlocksPerSm = 8;  // 32 warps per SM, 8 per tensor-core sub-partition
constexpr int kIterations = 4096;
constexpr double kFlopsPerMma = 2.0 * 16 * 8 * 16;

__global__ void __launch_bounds__(kWarpsPerBlock * 32)
    mma_sync_peak_kernel(const std::uint32_t* operands, float* sink, int iterations) {
  const int lane = int(threadIdx.x % 32);
  const std::uint32_t a[4] = {operands[lane % 4], operands[4 + lane % 4], operands[8 + lane % 4],
                              operands[12 + lane % 4]};
  const std::uint32_t b0 = operands[16 + lane % 4], b1 = operands[20 + lane % 4];
  float c[kChains][4] = {};
  for (int it = 0; it < iterations; ++it)
#pragma unroll
    for (int j = 0; j < kChains; ++j) kernels::sm80::mma_m16n8k16<__nv_bfloat16>(c[j], a, b0, b1);
  float total = 0.0f;
#pragma unroll
  for (int j = 0; j < kChains; ++j) total += c[j][0] + c[j][1] + c[j][2] + c[j][3];
  sink[blockIdx.x * blockDim.x + threadIdx.x] = total;
}

Status check(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return Ok{};
  return Error{std::string("mma.sync peak: ") + what + ": " + cudaGetErrorString(status)};
}

}  // namespace

Result<MmaPeak> measure_mma_sync_peak(int multiprocessors, int samples) {
  const int blocks = multiprocessors * kBlocksPerSm;
  const int threads = kWarpsPerBlock * 32;
  // bf16 pairs of small nonzero values (0x3c00 = 2^-7): never time zeros.
  const std::vector<std::uint32_t> host_operands(24, 0x3c003c00u);
  Result<DeviceBuffer> operands =
      DeviceBuffer::allocate(host_operands.size() * sizeof(std::uint32_t));
  if (!operands) return operands.error();
  Result<DeviceBuffer> sink = DeviceBuffer::allocate(std::size_t(blocks) * threads * sizeof(float));
  if (!sink) return sink.error();
  if (Status s = check(cudaMemcpy(operands->get(), host_operands.data(), operands->size(),
                                  cudaMemcpyHostToDevice),
                       "uploading operands");
      !s)
    return s.error();
  cudaEvent_t start, stop;
  if (Status s = check(cudaEventCreate(&start), "creating events"); !s) return s.error();
  if (Status s = check(cudaEventCreate(&stop), "creating events"); !s) return s.error();
  auto time_one = [&](float& elapsed) -> Status {
    cudaEventRecord(start);
    mma_sync_peak_kernel<<<blocks, threads>>>(static_cast<const std::uint32_t*>(operands->get()),
                                              static_cast<float*>(sink->get()), kIterations);
    cudaEventRecord(stop);
    if (Status s = check(cudaEventSynchronize(stop), "running the probe"); !s) return s;
    return check(cudaEventElapsedTime(&elapsed, start, stop), "reading events");
  };
  std::vector<float> ms;
  Status failure = Ok{};
  for (int i = 0; i <= samples; ++i) {  // sample 0 is the warm-up
    float elapsed = 0.0f;
    if (Status s = time_one(elapsed); !s) {
      failure = s;
      break;
    }
    if (i > 0) ms.push_back(elapsed);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  if (!failure) return failure.error();
  std::sort(ms.begin(), ms.end());
  const double median_ms = ms[ms.size() / 2];
  const double flops = double(blocks) * kWarpsPerBlock * kIterations * kChains * kFlopsPerMma;
  return MmaPeak{.median_ms = median_ms, .tflops = flops / (median_ms * 1e-3) / 1e12};
}

}  // namespace fa4::bench
