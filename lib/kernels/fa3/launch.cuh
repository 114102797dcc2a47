// fa3's host launch: the TMA tensor maps of Q, K, V and O (tensor_map.cuh), the kernel's Params,
// the persistent grid (tile_scheduler.cuh), and the instantiation for the shape's dtype, head dim
// and key blocks (core/fa3_tiles.hpp); the registry's check of what fa3 can run. Shared by fa3.cu
// and fa4/fa4.cu; the device kernel is in kernel.cuh.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "core/fa3_tiles.hpp"
#include "kernels/cuda_status.hpp"
#include "kernels/fa3/hopper_host.cuh"
#include "kernels/fa3/kernel.cuh"
#include "kernels/fa3/tensor_map.cuh"
#include "kernels/fa3/tile_scheduler.cuh"
#include "kernels/fa3/traits.cuh"
#include "kernels/registry.hpp"
#include "kernels/toolbox.cuh"

namespace fa4::kernels {
namespace fa3 {
namespace {

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
  const Result<int> sms = current_device_sms("fa3");
  if (!sms) return sms.error();

  Params params{};
  const std::int64_t q_heads = shape.batch * shape.heads_q;
  const std::int64_t kv_heads = shape.batch * shape.heads_kv;
  if (Status status =
          tma::encode_tensor_maps("fa3", shape.dtype, shape.headdim,
                                  {{&params.q_map, buffers.q, shape.seqlen_q, q_heads, T::kBlockM},
                                   {&params.k_map, buffers.k, shape.seqlen_k, kv_heads, T::kBlockN},
                                   {&params.v_map, buffers.v, shape.seqlen_k, kv_heads, T::kBlockN},
                                   {&params.o_map, buffers.o, shape.seqlen_q, q_heads, kMmaM}});
      !status)
    return status;
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
  const unsigned grid = persistent_grid(params.tiles, *sms);
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
  constexpr std::int64_t kMaxTiles = std::int64_t{1} << 30;  // int tile indices
  if (auto reason = unsupported_hopper_device("fa3", device)) return reason;
  if (auto reason = unsupported_tiled_shape("fa3", shape)) return reason;
  const std::int64_t m_blocks = (shape.seqlen_q + fa3_tiles::kBlockM - 1) / fa3_tiles::kBlockM;
  if (m_blocks * shape.heads_q * shape.batch > kMaxTiles)
    return "fa3 numbers its tiles with 32-bit integers: at most 2^30 tiles";
  return std::nullopt;
}

// The forward entries on fa3's pipeline (fa3, its variants, fa4): fa3's shape check and no
// workspace unless the kernel says otherwise.
constexpr Kernel hopper_kernel(
    std::string_view name, std::string_view summary, decltype(Kernel::launch) launch,
    decltype(Kernel::workspace_bytes) workspace_bytes = no_workspace,
    decltype(Kernel::unsupported_reason) unsupported = unsupported_reason) {
  return hopper_kernel(name, summary, launch, workspace_bytes, unsupported, Pass::fwd);
}

}  // namespace
}  // namespace fa3
}  // namespace fa4::kernels
