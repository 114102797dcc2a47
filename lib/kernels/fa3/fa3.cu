// fa3: FlashAttention-3 forward (Shah et al., arXiv 2407.08608) on Hopper (sm_90a): wgmma, TMA,
// warp specialization, ping-pong and intra-warpgroup overlap; plus three ablation variants.
//
// Algorithm. A persistent grid (one CTA per SM) walks 128-row query tiles in a snake order,
// heaviest causal tiles first (tile_scheduler.cuh).
// Each CTA has 3 warpgroups (384 threads, __launch_bounds__(384, 1)):
//   producer (warpgroup 0, setmaxnreg 24): one thread issues TMA copies (cp.async.bulk.tensor,
//     128-byte swizzle) of Q and of K/V blocks into 2-stage circular buffers, each slot guarded
//     by a full mbarrier (TMA transaction bytes) and an empty mbarrier (one arrival per consumer
//     warp) (mainloop.cuh);
//   consumers (warpgroups 1-2, setmaxnreg 240): warpgroup w owns query rows 64w..64w+63 of the
//     tile and, over key blocks j from last to first:
//       S = Q_w K_j^T        wgmma m64n{kBlockN}k16, both operands from shared memory (SS)
//       online softmax       exp2 with the scale folded in (softmax.cuh)
//       O += P V_j           wgmma m64n{d}k16, P from registers (RS), V N-major (transposed B)
//     Intra-warpgroup overlap: S_(j-1) = Q K_(j-1)^T and O += P_j V_j are issued back to back and
//     the softmax of S_(j-1) runs while P V still runs (two S register tiles: S and P).
//     Ping-pong: named barriers (bar.sync 1|2, 256) hand the tensor cores from one consumer
//     warpgroup to the other after each issue, so one's softmax overlaps the other's GEMMs.
//   Epilogue: O / l and LSE = (m * scale * log2 e + log2 l) * ln 2 stored from registers.
// FA3 pairs its two consumer warpgroups the same way: both share one 128-row tile and one K/V
// pipeline (kBlockM = 128, 64 rows each), and the scheduler barrier alternates their GEMM issue.
//
// Over fa2: wgmma (a warpgroup-wide asynchronous MMA, 64 x N per instruction, operands read
// straight from swizzled shared memory: no ldmatrix) instead of mma.sync; TMA instead of
// per-thread cp.async; a dedicated producer warpgroup and register reallocation; GEMM/softmax
// overlap within and across warpgroups; a persistent scheduler (heaviest causal tiles first).
//
// Work: FLOPs = 4 * b * h_q * sq * sk * d (causal: the unmasked area, core/shape.hpp).
// HBM bytes: Q, O once (2 * b*h_q*sq*d*2), LSE b*h_q*sq*4, K and V once per kv head when the
// tiles of one head share L2 (2 * b*h_kv*sk*d*2); L2 sees K and V once per query tile.
// At hd128, sq = sk = 8192, b2 h16: 1.1 TFLOP against 134 MB: compute-bound (floor at the
// measured 782 TFLOP/s GEMM ceiling: 1.41 ms; HBM floor at 4.8 TB/s: 28 us).
//
// Tiles (bf16/fp16), kBlockM x kBlockN, shared memory = Q + 2 stages x (K + V):
//   hd64:  128 x 128, 16 + 2 x (16 + 16) =  80 KiB   (128 x 192 when wide: 112 KiB)
//   hd128: 128 x 128, 32 + 2 x (32 + 32) = 160 KiB   (128 x 176 in fa3_wide: 208 KiB)
//   hd256: 128 x  80, 64 + 2 x (40 + 40) = 224 KiB   (227 KiB limit)
// Registers and spills (ptxas -v) and the measured figures: lib/kernels/fa3/NOTES.md.
//
// Key blocks: fa3 takes 192-key blocks at hd64 when seqlen_k >= 4096 (use_wide_key_blocks);
// fa3_wide forces FA3's wide blocks at every shape (hd64 192, hd128 176), so the GPU tests cover
// that instantiation too.
// Variants (registry entries): fa3_no_pingpong (no scheduler barriers), fa3_no_overlap (S, wait,
// softmax, P V, wait), fa3_no_ws (no producer warpgroup: 256 threads, thread 0 of consumer 0
// issues the TMA copies two items ahead of its own use; no ping-pong, no setmaxnreg).
//
// Benchmark: build-gpu/tests/kernels/kernel_timing --kernels fa2,fa3 --headdim 128
#include <cuda.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include <cmath>
#include <cstdint>
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
    float o[T::kORegs];
    OnlineSoftmax<T> softmax;
    if (n > 0) {
      if (issues_loads) producer.start_tile(p, tile, n);
      consume_tile<T>(p, smem, state, wg, n, wg_row0, o, softmax, producer, issues_loads);
    } else {
#pragma unroll
      for (int i = 0; i < T::kORegs; ++i) o[i] = 0.0f;
      softmax.reset();
    }
    store_tile<T>(p, o, softmax, wg_row0, tile.batch * p.heads_q + tile.head);
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
  }
  __syncthreads();
  const int warpgroup = int(threadIdx.x) / kWarpgroupThreads;
  if constexpr (T::kVariant.warp_specialized) {
    if (warpgroup == 0) {
      warpgroup_release_registers<kProducerRegisters>();
      if (threadIdx.x == 0) {
        Producer<T> producer;
        for (TileScheduler scheduler(p); scheduler.valid(p); scheduler.advance()) {
          if (!scheduler.has_tile(p)) continue;
          const Tile tile = scheduler.current(p);
          const int n = key_blocks<T>(p, tile.m_block);
          if (n == 0) continue;  // every row masked: the consumers write O = 0 without loads
          producer.start_tile(p, tile, n);
          producer.issue_through(p, smem, 2 * n);
        }
      }
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

template <class T>
Status launch_traits(const AttnShape& shape, const AttnBuffers& buffers, Stream stream) {
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

  Params params{};
  params.q_map = *q_map;
  params.k_map = *k_map;
  params.v_map = *v_map;
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
  kernel<<<grid, T::kThreads, T::kSharedBytes, stream>>>(params);
  return cuda_status(cudaGetLastError(), "fa3: kernel launch");
}

template <Variant V, typename Element>
Status launch_for_element(const AttnShape& shape, const AttnBuffers& buffers, Stream stream) {
  switch (shape.headdim) {
    case 64:
      return launch_traits<Traits<Element, 64, V>>(shape, buffers, stream);
    case 128:
      return launch_traits<Traits<Element, 128, V>>(shape, buffers, stream);
    case 256:
      return launch_traits<Traits<Element, 256, V>>(shape, buffers, stream);
    default:
      return Error{"fa3: head dim " + std::to_string(shape.headdim) + " has no tile configuration"};
  }
}

template <Variant V>
Status launch(const AttnShape& shape, const AttnBuffers& buffers, Stream stream) {
  return shape.dtype == Dtype::bf16 ? launch_for_element<V, __nv_bfloat16>(shape, buffers, stream)
                                    : launch_for_element<V, __half>(shape, buffers, stream);
}

// fa3's key-block width, a pure function of the shape. Measured on the H200 (NOTES.md, run 3,
// fa3_wide against fa3): 192-key blocks at hd64 gain 2% at s4096 and 3-5% at s16384 (causal and
// not) but lose 9% at s1024, where 192 does not divide the sequence and the last block is a third
// empty; at hd128 176-key blocks moved -1.5%..+2%, inside the run's noise, so hd128 stays at 128.
bool use_wide_key_blocks(const AttnShape& shape) {
  constexpr std::int64_t kWideFromSeqlen = 4096;
  return shape.headdim == 64 && shape.seqlen_k >= kWideFromSeqlen;
}

Status launch_fa3(const AttnShape& shape, const AttnBuffers& buffers, Stream stream) {
  return use_wide_key_blocks(shape) ? launch<Variant{.wide_key_blocks = true}>(shape, buffers, stream)
                                    : launch<Variant{}>(shape, buffers, stream);
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

extern const Kernel fa3_kernel;  // listed in registry.cpp
const Kernel fa3_kernel{
    .name = "fa3",
    .summary = "FlashAttention-3 forward: wgmma, TMA, warp specialization, ping-pong, "
               "intra-warpgroup overlap, persistent tiles",
    .min_sm = 90,
    .unsupported_reason = fa3::unsupported_reason,
    .workspace_bytes = fa3::no_workspace,
    .launch = fa3::launch_fa3,
};

extern const Kernel fa3_wide_kernel;
const Kernel fa3_wide_kernel{
    .name = "fa3_wide",
    .summary = "fa3 with FA3's wide key blocks at every shape (hd64 128x192, hd128 128x176)",
    .min_sm = 90,
    .unsupported_reason = fa3::unsupported_reason,
    .workspace_bytes = fa3::no_workspace,
    .launch = fa3::launch<fa3::Variant{.wide_key_blocks = true}>,
};

extern const Kernel fa3_no_pingpong_kernel;
const Kernel fa3_no_pingpong_kernel{
    .name = "fa3_no_pingpong",
    .summary = "fa3 without the ping-pong named barriers between consumer warpgroups",
    .min_sm = 90,
    .unsupported_reason = fa3::unsupported_reason,
    .workspace_bytes = fa3::no_workspace,
    .launch = fa3::launch<fa3::Variant{.pingpong = false}>,
};

extern const Kernel fa3_no_overlap_kernel;
const Kernel fa3_no_overlap_kernel{
    .name = "fa3_no_overlap",
    .summary = "fa3 without intra-warpgroup overlap (S, softmax, P V in sequence)",
    .min_sm = 90,
    .unsupported_reason = fa3::unsupported_reason,
    .workspace_bytes = fa3::no_workspace,
    .launch = fa3::launch<fa3::Variant{.intra_overlap = false}>,
};

extern const Kernel fa3_no_ws_kernel;
const Kernel fa3_no_ws_kernel{
    .name = "fa3_no_ws",
    .summary = "fa3 without warp specialization: consumer warpgroups issue their own TMA copies",
    .min_sm = 90,
    .unsupported_reason = fa3::unsupported_reason,
    .workspace_bytes = fa3::no_workspace,
    .launch = fa3::launch<fa3::Variant{.warp_specialized = false, .pingpong = false}>,
};

}  // namespace fa4::kernels
