// naive: standard attention as a user writes it, three launches with S and P in HBM.
//
// Algorithm.
//   S = Q K^T        cuBLAS strided-batched GEMM (16-bit in, fp32 accumulate, S stored in dtype)
//   P = softmax(S)   one thread block per row: scale, bottom-right causal mask, max and sum in
//                    log2 units (one read of the row), then P written over S (a second read and
//                    one write), plus the row's LSE (natural log)
//   O = P V          cuBLAS strided-batched GEMM
// GQA/MQA: the heads_q / heads_kv query heads that share a kv head are adjacent in memory, so one
// GEMM per (batch, kv head) multiplies all of their rows at once (M = group * seqlen_q).
//
// The rung below fa2: every score makes a round trip through HBM. It does the full sq x sk GEMMs
// also when causal (masking happens in the softmax), so its causal TFLOP/s (counted with the
// halved convention) is about half its non-causal figure.
//
// Work: FLOPs (counted) = 4 * b * h_q * sq * sk * d, halved when causal; executed: never halved.
// HBM bytes: Q, K, V, O once, plus S written (GEMM), read twice and P written (softmax), P read
// (GEMM): about 5 * b*h_q*sq*sk*2 bytes. At hd128, sq = sk = 4096, b4 h16 that is 10.7 GB against
// 550 GFLOP: memory-bound (about 2.5 ms at 4.3 TB/s) where fa2 is compute-bound.
// Shared memory: cuBLAS's own tiles; the softmax uses 2 floats per warp.
// Workspace: one S/P buffer of b*h_q*sq*sk elements (P overwrites S).
//
// Benchmark: build-gpu/tests/kernels/kernel_timing --kernels naive --headdim 128
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "kernels/cuda_status.hpp"
#include "kernels/registry.hpp"
#include "kernels/toolbox.cuh"

namespace fa4::kernels {
namespace {

constexpr int kSoftmaxThreads = 256;
constexpr int kWarpSize = 32;
constexpr int kSoftmaxWarps = kSoftmaxThreads / kWarpSize;
constexpr std::size_t kWorkspaceAlignment = 256;

template <typename Element>
__device__ __forceinline__ float to_float(Element x) {
  if constexpr (std::is_same_v<Element, __nv_bfloat16>)
    return __bfloat162float(x);
  else
    return __half2float(x);
}

template <typename Element>
__device__ __forceinline__ Element from_float(float x) {
  if constexpr (std::is_same_v<Element, __nv_bfloat16>)
    return __float2bfloat16_rn(x);
  else
    return __float2half_rn(x);
}

// Running (max, sum of 2^(x - max)) pairs, merged across threads.
struct MaxSum {
  float max;
  float sum;
};

__device__ __forceinline__ MaxSum merge(MaxSum a, MaxSum b) {
  const float max = fmaxf(a.max, b.max);
  if (max == -std::numeric_limits<float>::infinity()) return {max, 0.0f};
  return {max, a.sum * exp2f(a.max - max) + b.sum * exp2f(b.max - max)};
}

__device__ __forceinline__ MaxSum merge_across_block(MaxSum value, MaxSum* warp_partials) {
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2)
    value = merge(value, MaxSum{__shfl_xor_sync(0xffffffffu, value.max, offset),
                                __shfl_xor_sync(0xffffffffu, value.sum, offset)});
  const int warp = int(threadIdx.x) / kWarpSize;
  if (threadIdx.x % kWarpSize == 0) warp_partials[warp] = value;
  __syncthreads();
  MaxSum total = warp_partials[0];
  for (int w = 1; w < kSoftmaxWarps; ++w) total = merge(total, warp_partials[w]);
  return total;
}

// One block per row of S (rows ordered [batch][head][query]); writes P over S and the row's LSE.
template <typename Element>
__global__ void __launch_bounds__(kSoftmaxThreads)
    row_softmax_kernel(Element* scores, float* lse, int seqlen_q, int seqlen_k, bool causal,
                       float scale_log2) {
  __shared__ MaxSum warp_partials[kSoftmaxWarps];
  const std::int64_t row = blockIdx.x;
  const int query = int(row % seqlen_q);
  Element* s = scores + row * seqlen_k;
  const int visible = causal ? max(0, min(seqlen_k, query + seqlen_k - seqlen_q + 1)) : seqlen_k;

  MaxSum mine{-std::numeric_limits<float>::infinity(), 0.0f};
  for (int j = int(threadIdx.x); j < visible; j += kSoftmaxThreads) {
    const float x = to_float(s[j]) * scale_log2;
    if (x > mine.max) {
      mine.sum = mine.sum * exp2f(mine.max - x) + 1.0f;
      mine.max = x;
    } else {
      mine.sum += exp2f(x - mine.max);
    }
  }
  const MaxSum total = merge_across_block(mine, warp_partials);
  const float inverse_sum = total.sum > 0.0f ? 1.0f / total.sum : 0.0f;
  for (int j = int(threadIdx.x); j < seqlen_k; j += kSoftmaxThreads) {
    const float p =
        j < visible ? exp2f(to_float(s[j]) * scale_log2 - total.max) * inverse_sum : 0.0f;
    s[j] = from_float<Element>(p);
  }
  if (threadIdx.x == 0)
    lse[row] = total.sum > 0.0f ? (total.max + log2f(total.sum)) * kLn2
                                : -std::numeric_limits<float>::infinity();
}

std::size_t score_bytes(const AttnShape& s) {
  const std::size_t bytes = std::size_t(s.batch) * std::size_t(s.heads_q) *
                            std::size_t(s.seqlen_q) * std::size_t(s.seqlen_k) *
                            std::size_t(element_bytes(s.dtype));
  return (bytes + kWorkspaceAlignment - 1) / kWorkspaceAlignment * kWorkspaceAlignment;
}

std::string gib(double bytes) {
  const double value = bytes / double(1ull << 30);
  return std::to_string(int(value)) + "." + std::to_string(int(value * 10) % 10) + " GiB";
}

std::optional<std::string> unsupported_reason(const AttnShape& shape, const DeviceCaps& device) {
  constexpr std::int64_t kMaxInt = std::numeric_limits<int>::max();
  if (auto reason = unsupported_dtype("naive", shape)) return reason;
  const std::int64_t group_rows = shape.heads_q / shape.heads_kv * shape.seqlen_q;
  if (group_rows > kMaxInt || shape.seqlen_k > kMaxInt ||
      shape.batch * shape.heads_q * shape.seqlen_q > kMaxInt)
    return "naive: GEMM sizes exceed cuBLAS's 32-bit dimensions";
  const double tensors = attention_min_hbm_bytes(shape, Pass::fwd);
  const double needed = double(score_bytes(shape)) + tensors;
  if (needed > double(device.global_memory_bytes))
    return "naive keeps S in device memory: " + gib(double(score_bytes(shape))) + " for S plus " +
           gib(tensors) + " for Q, K, V, O and LSE exceeds the " +
           gib(double(device.global_memory_bytes)) + " of " + device.name;
  return std::nullopt;
}

Status cublas_status(cublasStatus_t status, const char* what) {
  if (status == CUBLAS_STATUS_SUCCESS) return Ok{};
  return Error{std::string("naive: ") + what + ": " + cublasGetStatusString(status)};
}

// One handle per process, created on first use for the device current at that time.
Result<cublasHandle_t> shared_handle() {
  static cublasHandle_t handle = nullptr;
  static const cublasStatus_t created = cublasCreate(&handle);
  if (created != CUBLAS_STATUS_SUCCESS)
    return cublas_status(created, "creating the cuBLAS handle").error();
  return handle;
}

template <typename Element>
Status launch_for_element(const AttnShape& shape, const AttnBuffers& buffers, Stream stream) {
  const cudaDataType_t type = std::is_same_v<Element, __nv_bfloat16> ? CUDA_R_16BF : CUDA_R_16F;
  Result<cublasHandle_t> handle = shared_handle();
  if (!handle) return handle.error();
  if (Status status = cublas_status(cublasSetStream(*handle, stream), "setting the stream");
      !status)
    return status;

  const int group_rows = int(shape.heads_q / shape.heads_kv * shape.seqlen_q);  // M of both GEMMs
  const int sk = int(shape.seqlen_k), d = int(shape.headdim), dv = int(shape.headdim_v);
  const int groups = int(shape.batch * shape.heads_kv);
  const float one = 1.0f, zero = 0.0f;
  void* scores = buffers.workspace;
  // Row-major X[r][c] is column-major X^T. S (M x sk) = Q K^T becomes S^T = K Q^T: cuBLAS
  // computes (sk x M) = op(K^T as d x sk, transposed) * (Q^T as d x M).
  if (Status status = cublas_status(
          cublasGemmStridedBatchedEx(*handle, CUBLAS_OP_T, CUBLAS_OP_N, sk, group_rows, d, &one,
                                     buffers.k, type, d, std::int64_t(sk) * d, buffers.q, type, d,
                                     std::int64_t(group_rows) * d, &zero, scores, type, sk,
                                     std::int64_t(group_rows) * sk, groups, CUBLAS_COMPUTE_32F,
                                     CUBLAS_GEMM_DEFAULT),
          "S = Q K^T");
      !status)
    return status;

  const float scale_log2 = float(1.0 / std::sqrt(double(shape.headdim)) * double(kLog2e));
  const unsigned rows = unsigned(shape.batch * shape.heads_q * shape.seqlen_q);
  row_softmax_kernel<Element>
      <<<rows, kSoftmaxThreads, 0, stream>>>(static_cast<Element*>(scores), buffers.lse,
                                             int(shape.seqlen_q), sk, shape.causal, scale_log2);
  if (Status status = cuda_status(cudaGetLastError(), "naive: softmax launch"); !status)
    return status;

  // O (M x dv) = P V becomes O^T = V^T P^T: (dv x M) = (V^T as dv x sk) * (P^T as sk x M).
  return cublas_status(
      cublasGemmStridedBatchedEx(
          *handle, CUBLAS_OP_N, CUBLAS_OP_N, dv, group_rows, sk, &one, buffers.v, type, dv,
          std::int64_t(sk) * dv, scores, type, sk, std::int64_t(group_rows) * sk, &zero, buffers.o,
          type, dv, std::int64_t(group_rows) * dv, groups, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
      "O = P V");
}

Status launch(const AttnShape& shape, const AttnBuffers& buffers, Stream stream) {
  return shape.dtype == Dtype::bf16 ? launch_for_element<__nv_bfloat16>(shape, buffers, stream)
                                    : launch_for_element<__half>(shape, buffers, stream);
}

}  // namespace

extern const Kernel naive_kernel;  // listed in registry.cpp
const Kernel naive_kernel{
    .name = "naive",
    .summary =
        "standard attention: cuBLAS S = QK^T, row softmax kernel, cuBLAS O = PV; S, P in HBM",
    .min_sm = 80,
    .unsupported_reason = unsupported_reason,
    .workspace_bytes = [](const AttnShape& shape, const DeviceCaps&) { return score_bytes(shape); },
    .launch = launch,
};

}  // namespace fa4::kernels
