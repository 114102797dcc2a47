// fa3_decode: split-KV attention for inference (FlashDecoding) on Hopper (sm_90a), with the query
// heads of one KV head packed into the rows of one tile (GQA packing), on fa3's building blocks:
// TMA loads completing on mbarriers, wgmma GEMMs and fa3's online softmax.
//
// Algorithm. A pack is one (batch, KV head): its g = heads_q / heads_kv query heads times seqlen_q
// queries are g * seqlen_q consecutive rows of Q and O (core/decode_tiles.hpp), so one tile of 64
// packed rows reads each key once for all g heads (decode at g = 8 fills 8 rows of the tile rather
// than 8 tiles reading the same keys). The key blocks a row block needs are cut into `splits`
// contiguous parts (decode_tiles::choose_splits: the smallest count that minimises the busiest
// SM's key blocks); the grid is (packs x row blocks, splits), one CTA per SM (the stages fill
// shared memory). Each CTA (kernel.cuh) has one consumer warpgroup and one producer warp:
//   producer (warp 4, lane 0): Q's 64 packed rows by TMA (rows past the pack are zero-filled),
//     then K and V of each key block of its part into a ring of stages (3 at hd128: 64 KiB each),
//     one full barrier per stage for both, an empty barrier a consumer warp arrives at;
//   consumer (warps 0-3): S = Q K^T (wgmma m64nNk16, both operands in shared memory), the mask
//     (keys past seqlen_k; causal bottom-right per packed row's query t = row % seqlen_q), fa3's
//     online softmax, O += P V (wgmma, P from registers, V N-major), then the stage is released.
//   Epilogue: one part writes O and LSE directly; several write O (normalized by the part's own
//     sum) and LSE as float32 partials into the workspace, and a combine kernel (launched with
//     programmatic dependent launch, so its launch overlaps the split kernel's tail) weights them
//     by exp(LSE_part - LSE), one warp per row.
//
// Work and floor (decode: seqlen_q = 1, b8, 32 query heads over 8 KV heads, seqlen_k 32768,
// hd128, bf16): K and V are 2 * 8 * 8 * 32768 * 128 * 2 B = 1.07 GB, read once; Q, O and the
// partials are under 1 MB. FLOPs 4 * 8 * 32 * 32768 * 128 = 1.07 GFLOP (1 FLOP per byte): HBM-bound
// at every decode shape. Floor: the KV bytes over the measured read bandwidth (notes).
// Tensor cores per key block at hd128: 2 x 8 wgmma m64n128k16 = ~1000 cycles for 64 KiB, which one
// SM's share of HBM (4.3 TB/s / 132) streams in ~2000 cycles, so one consumer warpgroup keeps up
// without overlapping S and P V.
//
// Entries: fa3_decode (the split count chosen per shape) and fa3_decode_nosplit (one part: GQA
// packing alone, the ablation). decode.hpp launches with a given split count. Registers, the
// measurements and the history: lib/kernels/decode/NOTES.md.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "core/decode_tiles.hpp"
#include "core/kv_pages.hpp"
#include "kernels/cuda_status.hpp"
#include "kernels/decode/decode.hpp"
#include "kernels/decode/kernel.cuh"
#include "kernels/fa3/hopper_host.cuh"
#include "kernels/fa3/tensor_map.cuh"
#include "kernels/registry.hpp"
#include "kernels/toolbox.cuh"

namespace fa4::kernels {
namespace decode {
namespace {

std::int64_t query_rows(const AttnShape& shape) {
  return shape.batch * shape.heads_q * shape.seqlen_q;
}

template <class T>
Status launch_traits(const AttnShape& shape, const AttnBuffers& buffers, Stream stream,
                     int splits) {
  const auto split_kernel = decode_split_kernel<T>;
  static const cudaError_t opt_in = cudaFuncSetAttribute(
      split_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, T::kSharedBytes);
  if (Status status = cuda_status(opt_in, "fa3_decode: raising the shared-memory limit"); !status)
    return status;

  Params params{};
  const std::int64_t packs = shape.batch * shape.heads_kv;
  const std::int64_t packed_rows = decode_tiles::packed_rows(shape);
  // K and V as the tensor maps see them: a contiguous [packs][seqlen_k] or the page pool's
  // [pool_pages * heads_kv][page_size], in boxes of a key block or of a page shorter than one.
  const bool paged = shape.page_size > 0;
  const std::int64_t kv_rows = paged ? shape.page_size : shape.seqlen_k;
  const std::int64_t kv_slabs = paged ? kv_pages::pool_pages(shape) * shape.heads_kv : packs;
  const int kv_box_rows =
      paged ? int(std::min<std::int64_t>(shape.page_size, T::kBlockN)) : T::kBlockN;
  if (Status status = fa3::tma::encode_tensor_maps(
          "fa3_decode", shape.dtype, shape.headdim,
          {{&params.q_map, buffers.q, packed_rows, packs, T::kBlockM},
           {&params.k_map, buffers.k, kv_rows, kv_slabs, kv_box_rows},
           {&params.v_map, buffers.v, kv_rows, kv_slabs, kv_box_rows}});
      !status)
    return status;
  if (paged && buffers.block_table == nullptr)
    return Error{"fa3_decode: a paged shape needs AttnBuffers::block_table"};
  if (!shape.seqlens_k.empty() && buffers.seqlens_k == nullptr)
    return Error{"fa3_decode: a ragged batch needs AttnBuffers::seqlens_k"};
  params.block_table = paged ? buffers.block_table : nullptr;
  params.seqlens_k = shape.seqlens_k.empty() ? nullptr : buffers.seqlens_k;
  params.heads_kv = int(shape.heads_kv);
  params.page_size = int(shape.page_size);
  params.pages_per_sequence = paged ? int(kv_pages::pages_per_sequence(shape)) : 0;
  params.page_rows = kv_box_rows;
  const std::int64_t rows = query_rows(shape);
  params.o = buffers.o;
  params.lse = buffers.lse;
  if (splits > 1) {
    params.o_partial = static_cast<float*>(buffers.workspace);
    params.lse_partial = params.o_partial + std::int64_t(splits) * rows * shape.headdim_v;
  }
  params.seqlen_q = int(shape.seqlen_q);
  params.seqlen_k = int(shape.seqlen_k);
  params.packed_rows = int(packed_rows);
  params.row_blocks = int(decode_tiles::row_blocks_per_pack(shape));
  params.splits = splits;
  params.rows = int(rows);
  params.causal = shape.causal;
  params.scale_log2 = float(1.0 / std::sqrt(double(shape.headdim)) * double(kLog2e));

  const dim3 grid(unsigned(decode_tiles::row_blocks(shape)), unsigned(splits));
  split_kernel<<<grid, T::kThreads, T::kSharedBytes, stream>>>(params);
  if (Status status = cuda_status(cudaGetLastError(), "fa3_decode: split kernel launch"); !status)
    return status;
  if (splits == 1) return Ok{};

  cudaLaunchAttribute overlap{};
  overlap.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  overlap.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(unsigned((rows + kCombineWarps - 1) / kCombineWarps));
  config.blockDim = dim3(kCombineWarps * kWarpSize);
  config.stream = stream;
  config.attrs = &overlap;
  config.numAttrs = 1;
  return cuda_status(
      cudaLaunchKernelEx(&config, decode_combine_kernel<typename T::Element, T::kHeadDim>, params),
      "fa3_decode: combine kernel launch");
}

template <typename Element>
Status launch_for_element(const AttnShape& shape, const AttnBuffers& buffers, Stream stream,
                          int splits) {
  switch (shape.headdim) {
    case 64:
      return launch_traits<Traits<Element, 64>>(shape, buffers, stream, splits);
    case 128:
      return launch_traits<Traits<Element, 128>>(shape, buffers, stream, splits);
    case 256:
      return launch_traits<Traits<Element, 256>>(shape, buffers, stream, splits);
    default:
      return Error{"fa3_decode: head dim " + std::to_string(shape.headdim) +
                   " has no tile configuration"};
  }
}

Result<int> chosen_splits(const AttnShape& shape) {
  const Result<int> sms = current_device_sms("fa3_decode");
  if (!sms) return sms.error();
  return decode_tiles::splits_for(shape, *sms);
}

Status launch_chosen(const AttnShape& shape, const AttnBuffers& buffers, Stream stream) {
  const Result<int> splits = chosen_splits(shape);
  if (!splits) return splits.error();
  return launch_with_splits(shape, buffers, stream, *splits);
}

Status launch_unsplit(const AttnShape& shape, const AttnBuffers& buffers, Stream stream) {
  return launch_with_splits(shape, buffers, stream, 1);
}

std::size_t workspace_chosen(const AttnShape& shape, const DeviceCaps& device) {
  return workspace_bytes_for_splits(shape, decode_tiles::splits_for(shape, device.multiprocessors));
}

// Page sizes a TMA box can load: a multiple of 8 rows (one 1024-byte swizzle atom), and either a
// whole number of pages per key block or of key blocks per page.
std::optional<std::string> unsupported_page_size(const AttnShape& shape) {
  if (shape.page_size == 0) return std::nullopt;
  const std::int64_t block = decode_tiles::key_block(shape.headdim);
  if (shape.page_size % 8 == 0 && (block % shape.page_size == 0 || shape.page_size % block == 0))
    return std::nullopt;
  return "fa3_decode loads pages by TMA in 8-row swizzle atoms, whole pages per " +
         std::to_string(block) + "-key block: page sizes 8, 16, 32, 64 or a multiple of " +
         std::to_string(block) + " at head dim " + std::to_string(shape.headdim) + ", not " +
         std::to_string(shape.page_size);
}

// fa3's checks (a Hopper device, bf16/fp16, d == dv in 64/128/256), the page size, the split
// count, and the kernel's 32-bit indices: packed rows, row blocks, query rows and page slabs below
// 2^31.
std::optional<std::string> unsupported_reason(const AttnShape& shape, const DeviceCaps& device) {
  constexpr std::int64_t kMaxIndex = (std::int64_t{1} << 31) - 1;
  if (auto reason = fa3::unsupported_hopper_device("fa3_decode", device)) return reason;
  if (auto reason = unsupported_tiled_shape("fa3_decode", shape)) return reason;
  if (auto reason = unsupported_page_size(shape)) return reason;
  if (shape.splits > decode_tiles::kMaxSplits)
    return "fa3_decode combines at most " + std::to_string(decode_tiles::kMaxSplits) +
           " key-range parts, not " + std::to_string(shape.splits);
  if (query_rows(shape) > kMaxIndex || decode_tiles::row_blocks(shape) > kMaxIndex ||
      (shape.page_size && kv_pages::pool_pages(shape) * shape.heads_kv > kMaxIndex))
    return "fa3_decode numbers query rows, row blocks and pages with 32-bit integers: batch * "
           "heads_q * seqlen_q and pages * heads_kv at most 2^31 - 1";
  return std::nullopt;
}

std::optional<std::string> unsupported_unsplit(const AttnShape& shape, const DeviceCaps& device) {
  if (shape.splits > 1)
    return "fa3_decode_nosplit runs one key-range part; " + std::to_string(shape.splits) +
           " parts need fa3_decode";
  return unsupported_reason(shape, device);
}

// An entry that reads the shape's serving fields (kernels/registry.hpp).
constexpr Kernel serving(Kernel kernel) {
  kernel.serving = true;
  return kernel;
}

}  // namespace

std::size_t workspace_bytes_for_splits(const AttnShape& shape, int splits) {
  if (splits <= 1) return 0;
  return std::size_t(splits) * std::size_t(query_rows(shape)) *
         std::size_t(shape.headdim_v + 1) * sizeof(float);
}

Status launch_with_splits(const AttnShape& shape, const AttnBuffers& buffers, Stream stream,
                          int splits) {
  if (splits < 1 || splits > decode_tiles::kMaxSplits)
    return Error{"fa3_decode: " + std::to_string(splits) + " key-range parts; 1 to " +
                 std::to_string(decode_tiles::kMaxSplits) + " are supported"};
  return shape.dtype == Dtype::bf16
             ? launch_for_element<__nv_bfloat16>(shape, buffers, stream, splits)
             : launch_for_element<__half>(shape, buffers, stream, splits);
}

}  // namespace decode

// The registry's decode entries (declared in registry.cpp).
extern const Kernel fa3_decode_kernel;
const Kernel fa3_decode_kernel = decode::serving(fa3::hopper_kernel(
    "fa3_decode",
    "Split-KV decode (FlashDecoding) on fa3's building blocks: the query heads of a KV head packed "
    "into one tile's rows, the key range split across CTAs, parts combined by LSE; contiguous or "
    "paged caches, ragged batches",
    decode::launch_chosen, decode::workspace_chosen, decode::unsupported_reason, Pass::fwd));

extern const Kernel fa3_decode_nosplit_kernel;
const Kernel fa3_decode_nosplit_kernel = decode::serving(fa3::hopper_kernel(
    "fa3_decode_nosplit",
    "fa3_decode without split-KV: one CTA per pack and row block (GQA "
    "packing alone)",
    decode::launch_unsplit, no_workspace, decode::unsupported_unsplit, Pass::fwd));

}  // namespace fa4::kernels
