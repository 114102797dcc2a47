// The GEMM ceiling: what a library matrix product reaches on this GPU, the figure the FA3 and FA4
// papers measure attention against. One cuBLAS bf16 x bf16 -> bf16 GEMM (fp32 accumulation),
// M = N = K = 8192, operands filled with random bf16 values in [-1, 1) (constant or zero operands
// draw less power and can run faster than real data). Expected: about 780-805 TFLOP/s on an H200
// (lib/kernels/NOTES.md), the number `--ceilings measured` divides by the wgmma probe's rate to
// get the model's GEMM share.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bench/ceiling_probes_detail.hpp"

namespace fa4::bench::ceiling_detail {
namespace {

constexpr int kSize = 8192;  // M = N = K: large enough that tails and launch cost vanish
constexpr std::size_t kOperandBytes = std::size_t(kSize) * kSize * 2;
constexpr std::uint32_t kSeed = 12345;

// Random bf16 bit patterns of values in [-1, 1): sign, exponent 2^-1..2^-8 (0x3f00 down to 0x3b80
// in the upper bits), random mantissa; an xorshift generator, the same values every run.
std::vector<std::uint16_t> random_bf16(std::size_t count, std::uint32_t seed) {
  std::vector<std::uint16_t> out(count);
  std::uint32_t x = seed;
  for (std::uint16_t& value : out) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    const std::uint16_t sign = std::uint16_t((x >> 31) << 15);
    const std::uint16_t exponent = std::uint16_t((126 - (x >> 28) % 8) << 7);
    value = std::uint16_t(sign | exponent | (x & 0x7f));
  }
  return out;
}

Status cublas_check(cublasStatus_t status, std::string_view what) {
  if (status == CUBLAS_STATUS_SUCCESS) return Ok{};
  return Error{std::string(what) + ": " + cublasGetStatusString(status)};
}

}  // namespace

Result<Probe> make_gemm_probe(const DeviceInfo&) {
  Probe probe;
  for (int i = 0; i < 3; ++i) {
    Result<DeviceBuffer> buffer = DeviceBuffer::allocate(kOperandBytes);
    if (!buffer) return buffer.error();
    if (i < 2) {  // A and B; C is written by the product
      const std::vector<std::uint16_t> values = random_bf16(kOperandBytes / 2, kSeed + i);
      if (Status s = kernels::cuda_status(
              cudaMemcpy(buffer->get(), values.data(), kOperandBytes, cudaMemcpyHostToDevice),
              "filling an operand");
          !s)
        return s.error();
    }
    probe.buffers.push_back(std::move(*buffer));
  }
  cublasHandle_t raw = nullptr;
  if (Status s = cublas_check(cublasCreate(&raw), "creating the cuBLAS handle"); !s)
    return s.error();
  std::shared_ptr<void> handle(raw, [](void* h) { cublasDestroy(static_cast<cublasHandle_t>(h)); });
  probe.library = handle;
  const void* a = probe.buffers[0].get();
  const void* b = probe.buffers[1].get();
  void* c = probe.buffers[2].get();
  probe.launch = [handle, a, b, c] {
    const float alpha = 1.0f, beta = 0.0f;
    return cublas_check(
        cublasGemmEx(static_cast<cublasHandle_t>(handle.get()), CUBLAS_OP_T, CUBLAS_OP_N, kSize,
                     kSize, kSize, &alpha, a, CUDA_R_16BF, kSize, b, CUDA_R_16BF, kSize, &beta, c,
                     CUDA_R_16BF, kSize, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
        "running cublasGemmEx");
  };
  probe.work = 2.0 * kSize * double(kSize) * kSize;
  probe.per_clk_work = probe.work;
  probe.value_unit = "TFLOP/s";
  probe.method =
      "cublasGemmEx bf16 x bf16 -> bf16, fp32 accumulation, M = N = K = 8192 (TN), random "
      "operands in [-1, 1), default algorithm; 2*M*N*K FLOP";
  return Result<Probe>(std::move(probe));
}

}  // namespace fa4::bench::ceiling_detail
