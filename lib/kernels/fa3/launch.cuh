// fa3's host launch: the TMA tensor maps of Q, K, V and O, the kernel's Params, the persistent grid
// (tile_scheduler.cuh), and the instantiation for the shape's dtype, head dim and key blocks
// (core/fa3_tiles.hpp); the registry's check of what fa3 can run. Shared by fa3.cu and
// fa4/fa4.cu; the device kernel is in kernel.cuh.
#pragma once

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "core/fa3_tiles.hpp"
#include "kernels/cuda_status.hpp"
#include "kernels/fa3/kernel.cuh"
#include "kernels/fa3/tile_scheduler.cuh"
#include "kernels/fa3/traits.cuh"
#include "kernels/registry.hpp"
#include "kernels/toolbox.cuh"

namespace fa4::kernels {
namespace fa3 {
namespace {

Result<PFN_cuTensorMapEncodeTiled_v12000> tensor_map_encoder() {
  static PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  if (encode != nullptr) return encode;
  void* function = nullptr;
  cudaDriverEntryPointQueryResult found{};
  constexpr unsigned kDriverApiVersion = 12000;  // the cuTensorMapEncodeTiled signature used here
  if (Status status = cuda_status(
          cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &function, kDriverApiVersion,
                                           cudaEnableDefault, &found),
          "fa3: looking up cuTensorMapEncodeTiled");
      !status)
    return status.error();
  if (found != cudaDriverEntryPointSuccess || function == nullptr)
    return Error{"fa3: the CUDA driver has no cuTensorMapEncodeTiled; update the driver (>= 12.0)"};
  encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(function);
  return encode;
}

// A 3-D view {headdim, seqlen, batch * heads} of a [batch][heads][seqlen][headdim] tensor, read
// in boxes of {64, rows, 1} with the 128-byte swizzle the wgmma descriptors expect.
Result<CUtensorMap> make_tensor_map(PFN_cuTensorMapEncodeTiled_v12000 encode, const void* data,
                                    Dtype dtype, std::int64_t headdim, std::int64_t seqlen,
                                    std::int64_t rows_of_heads, int box_rows) {
  CUtensorMap map{};
  const cuuint64_t dims[3] = {cuuint64_t(headdim), cuuint64_t(seqlen), cuuint64_t(rows_of_heads)};
  const cuuint64_t strides[2] = {cuuint64_t(headdim * 2), cuuint64_t(seqlen * headdim * 2)};
  const cuuint32_t box[3] = {cuuint32_t(kColumnBlock), cuuint32_t(box_rows), 1};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  const CUresult result = encode(
      &map, dtype == Dtype::bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
      3, const_cast<void*>(data), dims, strides, box, element_strides,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS)
    return Error{"fa3: cuTensorMapEncodeTiled failed with CUresult " + std::to_string(int(result)) +
                 " (box {64, " + std::to_string(box_rows) + ", 1} over {" +
                 std::to_string(headdim) + ", " + std::to_string(seqlen) + ", " +
                 std::to_string(rows_of_heads) + "})"};
  return map;
}

// Runtime setting of the fa4 softmax policy (ignored by fa3's): conditional rescaling. (The
// emulated exp2 share is Variant::emulated_eighths, a compile-time choice.)
struct SoftmaxOptions {
  bool conditional_rescale = false;
};

template <class T>
Status launch_traits(const AttnShape& shape, const AttnBuffers& buffers, Stream stream,
                     SoftmaxOptions options) {
  const auto kernel = fa3_forward_kernel<T>;
  static const cudaError_t opt_in =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, T::kSharedBytes);
  if (Status status = cuda_status(opt_in, "fa3: raising the shared-memory limit"); !status)
    return status;
  auto encode = tensor_map_encoder();
  if (!encode) return encode.error();
  int device = 0, sms = 0;
  if (Status status = cuda_status(cudaGetDevice(&device), "fa3: cudaGetDevice"); !status)
    return status;
  if (Status status = cuda_status(
          cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device),
          "fa3: reading the SM count");
      !status)
    return status;

  const std::int64_t d = shape.headdim;
  auto q_map = make_tensor_map(*encode, buffers.q, shape.dtype, d, shape.seqlen_q,
                               shape.batch * shape.heads_q, T::kBlockM);
  if (!q_map) return q_map.error();
  auto k_map = make_tensor_map(*encode, buffers.k, shape.dtype, d, shape.seqlen_k,
                               shape.batch * shape.heads_kv, T::kBlockN);
  if (!k_map) return k_map.error();
  auto v_map = make_tensor_map(*encode, buffers.v, shape.dtype, d, shape.seqlen_k,
                               shape.batch * shape.heads_kv, T::kBlockN);
  if (!v_map) return v_map.error();
  auto o_map = make_tensor_map(*encode, buffers.o, shape.dtype, d, shape.seqlen_q,
                               shape.batch * shape.heads_q, kMmaM);
  if (!o_map) return o_map.error();

  Params params{};
  params.q_map = *q_map;
  params.k_map = *k_map;
  params.v_map = *v_map;
  params.o_map = *o_map;
  params.o = buffers.o;
  params.lse = buffers.lse;
  params.seqlen_q = int(shape.seqlen_q);
  params.seqlen_k = int(shape.seqlen_k);
  params.heads_q = int(shape.heads_q);
  params.heads_per_kv_head = int(shape.heads_q / shape.heads_kv);
  params.batch = int(shape.batch);
  params.m_blocks = int((shape.seqlen_q + T::kBlockM - 1) / T::kBlockM);
  params.tiles = params.m_blocks * params.heads_q * params.batch;
  params.causal = shape.causal;
  params.scale_log2 = float(1.0 / std::sqrt(double(shape.headdim)) * double(kLog2e));
  if (params.tiles == 0) return Ok{};
  const unsigned grid = persistent_grid(params.tiles, sms);
  params.causal_group = causal_section_heads(params.m_blocks, params.heads_q * params.batch, grid);
  params.conditional_rescale = options.conditional_rescale ? 1 : 0;
  params.rescale_counts = static_cast<unsigned long long*>(buffers.workspace);
  kernel<<<grid, T::kThreads, T::kSharedBytes, stream>>>(params);
  return cuda_status(cudaGetLastError(), "fa3: kernel launch");
}

template <Variant V, typename Element>
Status launch_for_element(const AttnShape& shape, const AttnBuffers& buffers, Stream stream,
                          SoftmaxOptions options) {
  switch (shape.headdim) {
    case 64:
      return launch_traits<Traits<Element, 64, V>>(shape, buffers, stream, options);
    case 128:
      return launch_traits<Traits<Element, 128, V>>(shape, buffers, stream, options);
    case 256:
      return launch_traits<Traits<Element, 256, V>>(shape, buffers, stream, options);
    default:
      return Error{"fa3: head dim " + std::to_string(shape.headdim) + " has no tile configuration"};
  }
}

template <Variant V>
Status launch_with(const AttnShape& shape, const AttnBuffers& buffers, Stream stream,
                   SoftmaxOptions options) {
  return shape.dtype == Dtype::bf16
             ? launch_for_element<V, __nv_bfloat16>(shape, buffers, stream, options)
             : launch_for_element<V, __half>(shape, buffers, stream, options);
}

// One head dim's instantiations (bf16 and fp16), for a variant defined at that head dim only.
template <Variant V, int HeadDim>
Status launch_headdim(const AttnShape& shape, const AttnBuffers& buffers, Stream stream,
                      SoftmaxOptions options) {
  return shape.dtype == Dtype::bf16
             ? launch_traits<Traits<__nv_bfloat16, HeadDim, V>>(shape, buffers, stream, options)
             : launch_traits<Traits<__half, HeadDim, V>>(shape, buffers, stream, options);
}

template <Variant V>
Status launch(const AttnShape& shape, const AttnBuffers& buffers, Stream stream) {
  return launch_with<V>(shape, buffers, stream, SoftmaxOptions{});
}

// fa3 itself: FA3's three scheduling ideas on, key blocks as fa3_tiles::key_blocks_for picks them.
Status launch_fa3(const AttnShape& shape, const AttnBuffers& buffers, Stream stream) {
  switch (fa3_tiles::key_blocks_for(shape.headdim, shape.seqlen_k)) {
    case fa3_tiles::KeyBlocks::wide:
      return launch<Variant{.wide_key_blocks = true}>(shape, buffers, stream);
    case fa3_tiles::KeyBlocks::narrow:
      return launch_headdim<Variant{.narrow_key_blocks = true}, 256>(shape, buffers, stream,
                                                                    SoftmaxOptions{});
    case fa3_tiles::KeyBlocks::standard:
      break;
  }
  return launch<Variant{}>(shape, buffers, stream);
}

std::optional<std::string> unsupported_reason(const AttnShape& shape, const DeviceCaps& device) {
  constexpr std::int64_t kMaxTiles = std::int64_t{1} << 30;   // int tile indices
  if (device.sm != 90)
    return "fa3 is built for sm_90a (wgmma, setmaxnreg), which runs on compute capability 9.0 "
           "only; " + device.name + " has " + std::to_string(device.sm / 10) + "." +
           std::to_string(device.sm % 10);
  if (auto reason = unsupported_tiled_shape("fa3", shape)) return reason;
  const std::int64_t m_blocks = (shape.seqlen_q + fa3_tiles::kBlockM - 1) / fa3_tiles::kBlockM;
  if (m_blocks * shape.heads_q * shape.batch > kMaxTiles)
    return "fa3 numbers its tiles with 32-bit integers: at most 2^30 tiles";
  return std::nullopt;
}

// The registry entry of a kernel on fa3's pipeline (fa3, its variants, fa4): sm_90a, forward; fa3's
// shape check and no workspace unless the kernel says otherwise.
constexpr Kernel hopper_kernel(
    std::string_view name, std::string_view summary, decltype(Kernel::launch) launch,
    decltype(Kernel::workspace_bytes) workspace_bytes = no_workspace,
    decltype(Kernel::unsupported_reason) unsupported = unsupported_reason) {
  return Kernel{.name = name,
                .summary = summary,
                .min_sm = 90,
                .unsupported_reason = unsupported,
                .workspace_bytes = workspace_bytes,
                .launch = launch,
                .pass = Pass::fwd};
}

}  // namespace
}  // namespace fa3
}  // namespace fa4::kernels
