// The GEMM ceiling: what a library matrix product reaches on this GPU, the figure the FA3 and FA4
// papers measure attention against. One cuBLAS bf16 x bf16 -> bf16 GEMM (fp32 accumulation),
// M = N = K = 8192, operands filled with a small constant bit pattern (the tensor cores' rate
// does not depend on the values). Expected: about 780-805 TFLOP/s on an H200
// (lib/kernels/NOTES.md), the number `--ceilings measured` divides by the wgmma probe's rate to
// get the model's GEMM share.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <memory>
#include <string>

#include "bench/ceiling_probes_detail.hpp"

namespace fa4::bench::ceiling_detail {
namespace {

constexpr std::string_view kName = "gemm_bf16";
constexpr int kSize = 8192;  // M = N = K: large enough that tails and launch cost vanish
constexpr std::size_t kOperandBytes = std::size_t(kSize) * kSize * 2;
constexpr unsigned char kFillByte = 0x3c;  // bf16 0x3c3c ~ 0.0115: finite, no overflow in fp32

Status cublas_check(cublasStatus_t status, std::string_view what) {
  if (status == CUBLAS_STATUS_SUCCESS) return Ok{};
  return Error{std::string(kName) + ": " + std::string(what) + ": " +
               cublasGetStatusString(status)};
}

}  // namespace

Result<Probe> make_gemm_probe(const DeviceInfo&) {
  Probe probe;
  for (int i = 0; i < 3; ++i) {
    Result<DeviceBuffer> buffer = DeviceBuffer::allocate(kOperandBytes);
    if (!buffer) return Error{std::string(kName) + ": " + buffer.error().message};
    if (Status s = cuda_check(cudaMemset(buffer->get(), kFillByte, kOperandBytes), kName,
                              "filling an operand");
        !s)
      return s.error();
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
  probe.method = "cublasGemmEx bf16 x bf16 -> bf16, fp32 accumulation, M = N = K = 8192 (TN), "
                 "default algorithm; 2*M*N*K FLOP";
  return Result<Probe>(std::move(probe));
}

}  // namespace fa4::bench::ceiling_detail
