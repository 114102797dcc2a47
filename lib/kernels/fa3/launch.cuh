// fa3's kernel and its host launch, shared by fa3.cu (fa3 and its ablations) and fa4/fa4.cu
// (fa3's pipeline with FA4's softmax policy), each in its own translation unit so they compile
// in parallel. The algorithm is described in fa3.cu's header block.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>

#include "kernels/cuda_status.hpp"
#include "kernels/fa3/epilogue.cuh"
#include "kernels/fa3/mainloop.cuh"
#include "kernels/fa3/tile_scheduler.cuh"
#include "kernels/fa3/traits.cuh"
#include "kernels/registry.hpp"

namespace fa4::kernels {
namespace fa3 {
namespace {


constexpr float kLog2e = 1.4426950408889634f;

// The consumer warpgroups' loop over the CTA's tiles. `wg` is 0 or 1.
template <class T>
__device__ __forceinline__ void consumer_loop(const Params& p, const SharedMap<T>& smem, int wg,
                                              bool issues_loads) {
  if constexpr (T::kVariant.pingpong) {
    // Warpgroup 0 takes the first turn: warpgroup 1 hands it over before its own first wait.
    if (wg == 1) named_barrier_arrive(kSchedulerBarrier + 0, kConsumerThreads);
  }
  ConsumerState state;
  Producer<T> producer;  // used only where `issues_loads` (fa3_no_ws)
  for (TileScheduler scheduler(p); scheduler.valid(p); scheduler.advance()) {
    if (!scheduler.has_tile(p)) continue;
    const Tile tile = scheduler.current(p);
    const int n = key_blocks<T>(p, tile.m_block);
    const int wg_row0 = tile.m_block * T::kBlockM + wg * kMmaM;
    const int bh_q = tile.batch * p.heads_q + tile.head;
    float o[T::kORegs];
    OnlineSoftmax<T> softmax;
    if (n > 0) {
      if (issues_loads) producer.start_tile(p, tile, n);
      consume_tile<T>(p, smem, state, wg, n, wg_row0, o, softmax, producer, issues_loads);
      if constexpr (T::kTmaStoreO) {
        store_tile_via_tma<T>(p, o, softmax, wg, wg_row0, bh_q, smem.q(state.q_stage),
                              smem.q_empty(state.q_stage));
        continue;
      }
    } else {
#pragma unroll
      for (int i = 0; i < T::kORegs; ++i) o[i] = 0.0f;
      softmax.reset();
    }
    store_tile<T>(p, o, softmax, wg_row0, bh_q);
  }
  if constexpr (T::kTmaStoreO) {
    if (int(threadIdx.x) % kWarpgroupThreads == 0) tma_store_wait_all();
  }
  if constexpr (T::kVariant.fa4_softmax) {
    if (int(threadIdx.x) % kWarpSize == 0 && p.rescale_counts != nullptr) {
      atomicAdd(p.rescale_counts, static_cast<unsigned long long>(state.rescale_blocks));
      atomicAdd(p.rescale_counts + 1, static_cast<unsigned long long>(state.rescale_skipped));
    }
  }
}

// The next tile of this CTA that has key blocks, from `scheduler`'s current round on.
template <class T>
__device__ __forceinline__ bool next_work(const Params& p, TileScheduler& scheduler, Tile& tile,
                                          int& n) {
  for (; scheduler.valid(p); scheduler.advance()) {
    if (!scheduler.has_tile(p)) continue;
    tile = scheduler.current(p);
    n = key_blocks<T>(p, tile.m_block);
    if (n > 0) return true;  // n == 0: every row masked, the consumers write O = 0 without loads
  }
  return false;
}

// The producer thread of the warp-specialized kernel. With a double-buffered Q, the next tile's
// Q is issued right after the current tile's first three items (K[n-1], K[n-2], V[n-1]), so it
// lands while the current tile runs; its buffer is free once the tile before the current one
// has stored O.
template <class T>
__device__ __forceinline__ void producer_loop(const Params& p, const SharedMap<T>& smem) {
  Producer<T> producer;
  TileScheduler scheduler(p);
  Tile tile{};
  int n = 0;
  bool have = next_work<T>(p, scheduler, tile, n);
  if constexpr (T::kQStages == 2) {
    if (have) producer.load_q(p, smem, tile.m_block * T::kBlockM, tile.batch * p.heads_q + tile.head);
  }
  while (have) {
    producer.start_tile(p, tile, n);
    TileScheduler next = scheduler;
    next.advance();
    Tile next_tile{};
    int next_n = 0;
    const bool next_have = next_work<T>(p, next, next_tile, next_n);
    if constexpr (T::kQStages == 2) {
      producer.issued = 1;  // this tile's Q was issued one tile ahead
      producer.issue_through(p, smem, 3);
      if (next_have)
        producer.load_q(p, smem, next_tile.m_block * T::kBlockM,
                        next_tile.batch * p.heads_q + next_tile.head);
    }
    producer.issue_through(p, smem, 2 * n);
    scheduler = next;
    tile = next_tile;
    n = next_n;
    have = next_have;
  }
}

template <class T>
__global__ void __launch_bounds__(T::kThreads, 1) fa3_forward_kernel(const __grid_constant__ Params p) {
  extern __shared__ __align__(1024) unsigned char shared_raw[];
  const std::uint32_t raw = smem_u32(shared_raw);
  const SharedMap<T> smem{(raw + kSwizzleAtomBytes - 1) & ~std::uint32_t(kSwizzleAtomBytes - 1)};
  if (threadIdx.x == 0) {
    smem.init_barriers();
    prefetch_tensor_map(&p.q_map);
    prefetch_tensor_map(&p.k_map);
    prefetch_tensor_map(&p.v_map);
    if constexpr (T::kTmaStoreO) prefetch_tensor_map(&p.o_map);
  }
  __syncthreads();
  const int warpgroup = int(threadIdx.x) / kWarpgroupThreads;
  if constexpr (T::kVariant.warp_specialized) {
    if (warpgroup == 0) {
      warpgroup_release_registers<kProducerRegisters>();
      if (threadIdx.x == 0) producer_loop<T>(p, smem);
    } else {
      warpgroup_claim_registers<kConsumerRegisters>();
      consumer_loop<T>(p, smem, warpgroup - 1, false);
    }
  } else {
    consumer_loop<T>(p, smem, warpgroup, threadIdx.x == 0);
  }
}

// ---- host ----

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
  const unsigned grid = unsigned(std::min(params.tiles, sms));
  // Causal sections (tile_scheduler.cuh): the fewest heads whose tiles fill whole snake round
  // pairs, at most all of them (FA3's global heaviest-first order).
  const int round_pair = 2 * int(grid);
  const int heads_total = int(shape.batch * shape.heads_q);
  params.causal_group = std::min(heads_total, round_pair / std::gcd(params.m_blocks, round_pair));
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

// fa3's key-block width, a pure function of the shape, measured on the H200 (NOTES.md):
//   wide (192 keys) at hd64 from seqlen_k 4096 (run 3: +2% at s4096, +3-5% at s16384, but -9% at
//     s1024, where 192 does not divide the sequence; at hd128 176-key blocks moved -1.5..+2%);
//   narrow (48 keys, two Q buffers) at hd256 up to seqlen_k 512 (run 8: +13% causal, +4%
//     non-causal at s512; -8% non-causal at s1024, +1% causal, -10..-14% from s2048).
enum class KeyBlocks { standard, wide, narrow };
KeyBlocks key_blocks_for(const AttnShape& shape) {
  constexpr std::int64_t kWideFromSeqlen = 4096;
  constexpr std::int64_t kNarrowUpToSeqlen = 512;
  if (shape.headdim == 64 && shape.seqlen_k >= kWideFromSeqlen) return KeyBlocks::wide;
  if (shape.headdim == 256 && shape.seqlen_k <= kNarrowUpToSeqlen) return KeyBlocks::narrow;
  return KeyBlocks::standard;
}

// fa3 itself: FA3's three scheduling ideas on, key blocks as key_blocks_for picks them.
Status launch_fa3(const AttnShape& shape, const AttnBuffers& buffers, Stream stream) {
  switch (key_blocks_for(shape)) {
    case KeyBlocks::wide:
      return launch<Variant{.wide_key_blocks = true}>(shape, buffers, stream);
    case KeyBlocks::narrow:
      return launch_headdim<Variant{.narrow_key_blocks = true}, 256>(shape, buffers, stream,
                                                                    SoftmaxOptions{});
    case KeyBlocks::standard:
      break;
  }
  return launch<Variant{}>(shape, buffers, stream);
}

std::optional<std::string> unsupported_reason(const AttnShape& shape, const DeviceCaps& device) {
  constexpr std::int64_t kMaxSeqlen = std::int64_t{1} << 30;  // int row indices with headroom
  constexpr std::int64_t kMaxTiles = std::int64_t{1} << 30;   // int tile indices
  if (device.sm != 90)
    return "fa3 is built for sm_90a (wgmma, setmaxnreg), which runs on compute capability 9.0 "
           "only; " + device.name + " has " + std::to_string(device.sm / 10) + "." +
           std::to_string(device.sm % 10);
  if (shape.dtype != Dtype::bf16 && shape.dtype != Dtype::fp16)
    return "fa3 computes bf16 and fp16 only, not " + std::string(to_string(shape.dtype));
  if (shape.headdim != shape.headdim_v)
    return "fa3 needs headdim == headdim_v (got " + std::to_string(shape.headdim) + " and " +
           std::to_string(shape.headdim_v) + ")";
  if (shape.headdim != 64 && shape.headdim != 128 && shape.headdim != 256)
    return "fa3 has tiles for head dims 64, 128 and 256, not " + std::to_string(shape.headdim);
  if (shape.seqlen_q > kMaxSeqlen || shape.seqlen_k > kMaxSeqlen)
    return "fa3 indexes rows with 32-bit integers: seqlen at most 2^30";
  if ((shape.seqlen_q + 127) / 128 * shape.heads_q * shape.batch > kMaxTiles)
    return "fa3 numbers its tiles with 32-bit integers: at most 2^30 tiles";
  return std::nullopt;
}

std::size_t no_workspace(const AttnShape&) { return 0; }

}  // namespace
}  // namespace fa3
}  // namespace fa4::kernels
