// fa3_bwd's host side: the preprocessing kernel (bwd_common), the main kernel (twice at hd256:
// dV, then dK and dQ), the dQ conversion; tensor maps and the tile grid.
#pragma once

#include <cmath>
#include <optional>
#include <string>

#include "core/fa3_tiles.hpp"
#include "kernels/bwd_common.hpp"
#include "kernels/cuda_status.hpp"
#include "kernels/fa3/bwd_kernel.cuh"
#include "kernels/fa3/hopper_host.cuh"
#include "kernels/fa3/tensor_map.cuh"
#include "kernels/fa3/tile_scheduler.cuh"
#include "kernels/registry.hpp"
#include "kernels/toolbox.cuh"

namespace fa4::kernels::fa3 {
namespace {

template <class T>
Status launch_bwd_main(const AttnShape& shape, const AttnBuffers& buffers,
                       const bwd::WorkspaceLayout& layout, int launch, Stream stream) {
  const auto kernel = fa3_backward_kernel<T>;
  static const cudaError_t opt_in =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, T::kSharedBytes);
  if (Status status = cuda_status(opt_in, "fa3_bwd: raising the shared-memory limit"); !status)
    return status;
  const Result<int> sms = current_device_sms("fa3_bwd");
  if (!sms) return sms.error();
  const Result<int> l2_bytes =
      current_device_attribute("fa3_bwd", cudaDevAttrL2CacheSize, "L2 cache size");
  if (!l2_bytes) return l2_bytes.error();

  const std::int64_t d = shape.headdim;
  const std::int64_t q_heads = shape.batch * shape.heads_q;
  const std::int64_t kv_heads = shape.batch * shape.heads_kv;
  // Split groups: the tiles' heads are the query heads, writing the workspace's partials.
  const bool split = layout.key_grad_partials;
  const bwd::WorkspaceArrays arrays = bwd::workspace_arrays(layout, buffers.workspace);
  const std::int64_t tile_heads = split ? q_heads : kv_heads;
  BwdParams params{};
  if (Status status = tma::encode_tensor_maps(
          "fa3_bwd", shape.dtype, d,
          {{&params.q_map, buffers.q, shape.seqlen_q, q_heads, T::kBlockM},
           {&params.do_map, buffers.dout, shape.seqlen_q, q_heads, T::kBlockM},
           {&params.k_map, buffers.k, shape.seqlen_k, kv_heads, T::kBlockN},
           {&params.v_map, buffers.v, shape.seqlen_k, kv_heads, T::kBlockN},
           {&params.dk_map, split ? arrays.dk_partials : buffers.dk, shape.seqlen_k, tile_heads,
            kBwdKeysPerWarpgroup},
           {&params.dv_map, split ? arrays.dv_partials : buffers.dv, shape.seqlen_k, tile_heads,
            kBwdKeysPerWarpgroup}});
      !status)
    return status;
  const std::int64_t rows = layout.rows_padded;
  const auto lse_map = tma::row_values_tensor_map(arrays.lse_log2, rows, q_heads, T::kBlockM);
  const auto delta_map = tma::row_values_tensor_map(arrays.d, rows, q_heads, T::kBlockM);
  if (!lse_map) return Error{"fa3_bwd: " + lse_map.error().message};
  if (!delta_map) return Error{"fa3_bwd: " + delta_map.error().message};
  const std::int64_t tiles = (shape.seqlen_k + T::kBlockN - 1) / T::kBlockN * tile_heads;
  static_assert(T::kBlockN % bwd::kMinKeyBlock == 0, "the tile-index table covers every tile");
  const auto tile_id_map = tma::tile_ids_tensor_map(arrays.tile_ids, tiles + 1);
  if (!tile_id_map) return Error{"fa3_bwd: " + tile_id_map.error().message};
  if constexpr (T::kBulkReduce) {
    const auto dq_map =
        tma::float_row_halves_tensor_map(arrays.dq_accum, d, rows, q_heads, T::kBlockM);
    if (!dq_map) return Error{"fa3_bwd: " + dq_map.error().message};
    params.dq_map = *dq_map;
  }
  params.lse_map = *lse_map;
  params.delta_map = *delta_map;
  params.dq_accum = arrays.dq_accum;
  params.tile_counter = arrays.tile_counters + launch;
  params.tile_id_map = *tile_id_map;
  params.seqlen_q = int(shape.seqlen_q);
  params.seqlen_k = int(shape.seqlen_k);
  params.heads_q = int(shape.heads_q);
  params.heads_kv = int(split ? shape.heads_q : shape.heads_kv);
  params.heads_per_kv_head = split ? 1 : int(shape.heads_q / shape.heads_kv);
  params.kv_load_group = split ? int(shape.heads_q / shape.heads_kv) : 1;
  params.batch = int(shape.batch);
  params.rows_padded = int(layout.rows_padded);
  params.m_blocks = int((shape.seqlen_q + T::kBlockM - 1) / T::kBlockM);
  params.n_blocks = int((shape.seqlen_k + T::kBlockN - 1) / T::kBlockN);
  params.tiles = int(tiles);
  params.causal = shape.causal;
  params.scale = float(1.0 / std::sqrt(double(d)));
  params.scale_log2 = float(1.0 / std::sqrt(double(d)) * double(kLog2e));
  if (params.tiles == 0) return Ok{};
  // The forward's grid (tile_scheduler.cuh's host half); the causal sections' size
  // (core/fa3_tiles.hpp) for bwd_tile_scheduler.cuh's order.
  const unsigned grid = T::kPersistent ? persistent_grid(params.tiles, *sms) : params.tiles;
  params.causal_group = fa3_tiles::bwd_causal_section_heads(
      params.n_blocks, int(tile_heads), params.heads_per_kv_head, shape.seqlen_q, int(d), grid,
      *l2_bytes);
  // The last section's rule is the persistent grid's: a grid of every tile (the no_persistent
  // ablation) would make it one section of all heads.
  params.causal_tail_heads = T::kPersistent
                                 ? fa3_tiles::bwd_causal_tail_heads(
                                       params.n_blocks, int(tile_heads), params.causal_group, grid)
                                 : params.causal_group;
  kernel<<<grid, T::kThreads, T::kSharedBytes, stream>>>(params);
  return cuda_status(cudaGetLastError(), "fa3_bwd: kernel launch");
}

template <BwdVariant V, typename Element>
Status launch_bwd_main_for(const AttnShape& shape, const AttnBuffers& buffers,
                           const bwd::WorkspaceLayout& layout, Stream stream) {
  switch (shape.headdim) {
    case 64:
      return launch_bwd_main<BwdTraits<Element, 64, V, BwdOutputs::all>>(shape, buffers, layout, 0,
                                                                         stream);
    case 128:
      return launch_bwd_main<BwdTraits<Element, 128, V, BwdOutputs::all>>(shape, buffers, layout, 0,
                                                                          stream);
    case 256:
      if (Status status = launch_bwd_main<BwdTraits<Element, 256, V, BwdOutputs::dv>>(
              shape, buffers, layout, 0, stream);
          !status)
        return status;
      return launch_bwd_main<BwdTraits<Element, 256, V, BwdOutputs::dk_dq>>(shape, buffers, layout,
                                                                            1, stream);
    default:
      return Error{"fa3_bwd: head dim " + std::to_string(shape.headdim) +
                   " has no tile configuration"};
  }
}

// The key block every configuration uses (the dQ conversion's causal slot rule needs it only
// for deterministic kernels; given for completeness).
inline constexpr std::int64_t kBwdKeyBlock = fa3_tiles::kBwdBlockN;

// The workspace: one dQ accumulator (row-major for the TMA reduce-adds, in mma_tiles order for
// the atomics), and dK, dV partials per query head where the groups split.
template <BwdVariant V>
bwd::WorkspaceLayout bwd_workspace_layout(const AttnShape& shape) {
  const bool split = fa3_tiles::bwd_split_gqa_groups(
      shape.causal, int(shape.heads_q / shape.heads_kv), shape.seqlen_q, int(shape.headdim));
  const bwd::DqOrder order =
      bwd_dq_bulk_reduces(V, int(shape.headdim)) ? bwd::DqOrder::rows : bwd::DqOrder::mma_tiles;
  return bwd::workspace_layout(shape, 1, order, split);
}

template <BwdVariant V>
Status launch_bwd(const AttnShape& shape, const AttnBuffers& buffers, Stream stream) {
  const bwd::WorkspaceLayout layout = bwd_workspace_layout<V>(shape);
  if (Status status = bwd::launch_preprocess(shape, buffers, layout, true, stream); !status)
    return status;
  const Status main = shape.dtype == Dtype::bf16
                          ? launch_bwd_main_for<V, __nv_bfloat16>(shape, buffers, layout, stream)
                          : launch_bwd_main_for<V, __half>(shape, buffers, layout, stream);
  if (!main) return main;
  if (layout.key_grad_partials)
    if (Status status = bwd::launch_group_reduce(shape, buffers, layout, stream); !status)
      return status;
  return bwd::launch_dq_convert(shape, buffers, layout, kBwdKeyBlock, stream);
}

std::size_t bwd_workspace_bytes(const AttnShape& shape, const DeviceCaps&) {
  return bwd_workspace_layout<BwdVariant{}>(shape).bytes;  // the order does not change the size
}

std::optional<std::string> bwd_unsupported_reason(const AttnShape& shape,
                                                  const DeviceCaps& device) {
  if (auto reason = unsupported_hopper_device("fa3_bwd", device)) return reason;
  if (auto reason = unsupported_tiled_shape("fa3_bwd", shape)) return reason;
  // Tiles count query heads where GQA groups split (bwd_workspace_layout): bound by those.
  if ((shape.seqlen_k + kBwdKeyBlock - 1) / kBwdKeyBlock * shape.heads_q * shape.batch >
      (std::int64_t{1} << 30))
    return "fa3_bwd numbers its tiles with 32-bit integers: at most 2^30 key blocks of query heads";
  return std::nullopt;
}

}  // namespace
}  // namespace fa4::kernels::fa3
