// fa3_decode: split-KV attention for inference (FlashDecoding) on Hopper (sm_90a), with the query
// heads of one KV head packed into the rows of one tile (GQA packing), on fa3's building blocks:
// TMA loads completing on mbarriers, wgmma GEMMs and fa3's online softmax.
//
// Algorithm. A pack is one (batch, KV head): its g = heads_q / heads_kv query heads times seqlen_q
// queries are g * seqlen_q consecutive rows of Q and O (core/decode_tiles.hpp), so one tile of 64
// packed rows reads each key once for all g heads (decode at g = 8 fills 8 rows of the tile rather
// than 8 tiles reading the same keys). Work is cut by core/decode_tiles.hpp: a ragged batch's
// every (row block, key block) unit is numbered and equal ranges are dealt to one CTA per SM
// (balanced: each SM streams the same bytes whatever the lengths; a CTA runs a segment per row
// block its range touches); a uniform batch's row blocks are split into SMs / row blocks parts
// (FlashDecoding), one CTA each, or a forced `splits`. One CTA per SM (the stages fill shared
// memory), one consumer warpgroup and one producer warp (kernel.cuh):
//   producer (warp 4; lane 0, or every lane for a paged cache, one page per lane): K and V of each
//     key block of its segments into a ring of stages (3 at hd128: 64 KiB each), one full barrier
//     per stage for both, an empty barrier a consumer warp arrives at;
//   consumer (warps 0-3): Q's 64 packed rows by TMA (rows past the pack are zero-filled; the next
//     segment's Q as soon as the last S of this one is done), S = Q K^T (wgmma m64nNk16, both
//     operands in shared memory), the mask (keys past the sequence's keys; causal bottom-right
//     per packed row's query t = row % seqlen_q), V rows past the keys zeroed for a paged or
//     ragged cache, fa3's online softmax, O += P V (wgmma, P from registers, V N-major), then the
//     stage is released.
//   Epilogue: a segment that is its row block's whole key range writes O and LSE directly; the
//     others write O (normalized by the part's own sum) and LSE as float32 partials into the
//     workspace, and a combine kernel (launched with programmatic dependent launch, so its launch
//     overlaps the split kernel's tail) weights them by exp(LSE_part - LSE), one warp per row.
//
// Work and floor (decode: seqlen_q = 1, b8, 32 query heads over 8 KV heads, seqlen_k 32768,
// hd128, bf16): K and V are 2 * 8 * 8 * 32768 * 128 * 2 B = 1.07 GB, read once; Q, O and the
// partials are under 1 MB. FLOPs 4 * 8 * 32 * 32768 * 128 = 1.07 GFLOP (1 FLOP per byte): HBM-bound
// at every decode shape. Floor: the KV bytes over the measured read bandwidth (notes).
// Tensor cores per key block at hd128: 2 x 8 wgmma m64n128k16 = ~1000 cycles for 64 KiB, which one
// SM's share of HBM (4.3 TB/s / 132) streams in ~2000 cycles, so one consumer warpgroup keeps up
// without overlapping S and P V.
//
// Entries: fa3_decode (decode_tiles::chosen_partition, or the shape's split count) and
// fa3_decode_nosplit (one part per row block: GQA packing alone, the ablation). decode.hpp launches
// with a given split or part count. Registers, the measurements and the history:
// lib/kernels/decode/NOTES.md.
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

// How the work is cut: balanced over `parts` CTAs, or `splits` parts per row block.
struct Partition {
  bool balanced;
  int parts_or_splits;
};

std::int64_t partial_slots(const AttnShape& shape, const Partition& partition) {
  const std::int64_t row_blocks = decode_tiles::row_blocks(shape);
  if (partition.balanced)
    return decode_tiles::balanced_slots(row_blocks, partition.parts_or_splits);
  return partition.parts_or_splits == 1 ? 0 : row_blocks * partition.parts_or_splits;
}

std::size_t workspace_bytes(const AttnShape& shape, const Partition& partition) {
  return std::size_t(partial_slots(shape, partition)) * decode_tiles::kBlockM *
         std::size_t(shape.headdim_v + 1) * sizeof(float);
}

RaggedPlan ragged_plan(const AttnShape& shape) {
  RaggedPlan plan{};
  const decode_tiles::PackGeometry g = decode_tiles::geometry(shape);
  std::int64_t units = 0;
  for (std::int64_t b = 0; b < shape.batch; ++b) {
    plan.keys[b] = std::int32_t(shape.seqlens_k[std::size_t(b)]);
    plan.first_unit[b] = std::int32_t(units);
    units += decode_tiles::pack_units(g, plan.keys[b]) * shape.heads_kv;
  }
  plan.first_unit[shape.batch] = std::int32_t(units);
  return plan;
}

template <class T, class Plan>
Status launch_plan(const AttnShape& shape, const AttnBuffers& buffers, Stream stream,
                   const Partition& partition, const Plan& plan) {
  const auto split_kernel = decode_split_kernel<T, Plan>;
  static const cudaError_t opt_in = cudaFuncSetAttribute(
      split_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, T::kSharedBytes);
  if (Status status = cuda_status(opt_in, "fa3_decode: raising the shared-memory limit"); !status)
    return status;

  Params params{};
  const std::int64_t packs = shape.batch * shape.heads_kv;
  // K and V as the tensor maps see them: a contiguous [packs][seqlen_k] or the page pool's
  // [pool_pages * heads_kv][page_size], in boxes of a key block or of a page shorter than one.
  const bool paged = shape.page_size > 0;
  const std::int64_t kv_rows = paged ? shape.page_size : shape.seqlen_k;
  const std::int64_t kv_slabs = paged ? kv_pages::pool_pages(shape) * shape.heads_kv : packs;
  const int kv_box_rows =
      paged ? int(std::min<std::int64_t>(shape.page_size, T::kBlockN)) : T::kBlockN;
  if (Status status = fa3::tma::encode_tensor_maps(
          "fa3_decode", shape.dtype, shape.headdim,
          {{&params.q_map, buffers.q, decode_tiles::packed_rows(shape), packs, T::kBlockM},
           {&params.k_map, buffers.k, kv_rows, kv_slabs, kv_box_rows},
           {&params.v_map, buffers.v, kv_rows, kv_slabs, kv_box_rows}});
      !status)
    return status;
  if (paged && buffers.block_table == nullptr)
    return Error{"fa3_decode: a paged shape needs AttnBuffers::block_table"};
  const std::int64_t rows = query_rows(shape);
  params.o = buffers.o;
  params.lse = buffers.lse;
  if (partial_slots(shape, partition) > 0) {
    params.o_partial = static_cast<float*>(buffers.workspace);
    params.lse_partial = params.o_partial +
                         partial_slots(shape, partition) * decode_tiles::kBlockM * shape.headdim_v;
  }
  params.block_table = paged ? buffers.block_table : nullptr;
  params.geometry = decode_tiles::geometry(shape);
  params.heads_q = int(shape.heads_q);
  params.heads_kv = int(shape.heads_kv);
  params.seqlen_k = int(shape.seqlen_k);
  params.page_size = int(shape.page_size);
  params.pages_per_sequence = paged ? int(kv_pages::pages_per_sequence(shape)) : 0;
  params.page_rows = kv_box_rows;
  params.rows = int(rows);
  params.balanced = partition.balanced;
  params.splits = partition.balanced ? 1 : partition.parts_or_splits;
  params.units = decode_tiles::total_units(shape);
  // No more parts than units: a part without units inside a row block's range of parts would
  // leave its slot unwritten.
  params.parts = partition.balanced
                     ? int(decode_tiles::balanced_parts(params.units, partition.parts_or_splits))
                     : 0;
  params.uniform_pack_units = decode_tiles::pack_units(params.geometry, params.seqlen_k);
  params.scale_log2 = float(1.0 / std::sqrt(double(shape.headdim)) * double(kLog2e));

  const dim3 grid = partition.balanced ? dim3(unsigned(params.parts))
                                       : dim3(unsigned(decode_tiles::row_blocks(shape)),
                                              unsigned(partition.parts_or_splits));
  split_kernel<<<grid, T::kThreads, T::kSharedBytes, stream>>>(params, plan);
  if (Status status = cuda_status(cudaGetLastError(), "fa3_decode: split kernel launch"); !status)
    return status;
  if (partial_slots(shape, partition) == 0) return Ok{};

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
      cudaLaunchKernelEx(&config, decode_combine_kernel<typename T::Element, T::kHeadDim, Plan>,
                         params, plan),
      "fa3_decode: combine kernel launch");
}

template <class T>
Status launch_traits(const AttnShape& shape, const AttnBuffers& buffers, Stream stream,
                     const Partition& partition) {
  if (shape.seqlens_k.empty())
    return launch_plan<T>(shape, buffers, stream, partition, UniformPlan{});
  return launch_plan<T>(shape, buffers, stream, partition, ragged_plan(shape));
}

template <typename Element>
Status launch_for_element(const AttnShape& shape, const AttnBuffers& buffers, Stream stream,
                          const Partition& partition) {
  switch (shape.headdim) {
    case 64:
      return launch_traits<Traits<Element, 64>>(shape, buffers, stream, partition);
    case 128:
      return launch_traits<Traits<Element, 128>>(shape, buffers, stream, partition);
    case 256:
      return launch_traits<Traits<Element, 256>>(shape, buffers, stream, partition);
    default:
      return Error{"fa3_decode: head dim " + std::to_string(shape.headdim) +
                   " has no tile configuration"};
  }
}

Status launch_partition(const AttnShape& shape, const AttnBuffers& buffers, Stream stream,
                        const Partition& partition) {
  return shape.dtype == Dtype::bf16
             ? launch_for_element<__nv_bfloat16>(shape, buffers, stream, partition)
             : launch_for_element<__half>(shape, buffers, stream, partition);
}

// The registry entry's partition: the shape's split count when it forces one, else
// decode_tiles::chosen_partition (balanced for a ragged batch, split for a uniform one).
Partition chosen_partition(const AttnShape& shape, int sms) {
  if (shape.splits) return Partition{false, int(shape.splits)};
  const decode_tiles::ChosenPartition chosen = decode_tiles::chosen_partition(shape, sms);
  return Partition{chosen.balanced, int(chosen.count)};
}

Status launch_chosen(const AttnShape& shape, const AttnBuffers& buffers, Stream stream) {
  const Result<int> sms = current_device_sms("fa3_decode");
  if (!sms) return sms.error();
  return launch_partition(shape, buffers, stream, chosen_partition(shape, *sms));
}

Status launch_unsplit(const AttnShape& shape, const AttnBuffers& buffers, Stream stream) {
  return launch_partition(shape, buffers, stream, Partition{false, 1});
}

std::size_t workspace_chosen(const AttnShape& shape, const DeviceCaps& device) {
  return workspace_bytes(shape, chosen_partition(shape, device.multiprocessors));
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
  if (device.multiprocessors > decode_tiles::kMaxParts)
    return "fa3_decode's combine weighs at most " + std::to_string(decode_tiles::kMaxParts) +
           " parts, one per SM; " + device.name + " has " + std::to_string(device.multiprocessors) +
           " SMs";
  if (shape.seqlens_k.size() > std::size_t(kMaxRaggedBatch))
    return "fa3_decode passes a ragged batch's key counts in its kernel parameters: at most " +
           std::to_string(kMaxRaggedBatch) + " sequences, not " +
           std::to_string(shape.seqlens_k.size());
  if (query_rows(shape) > kMaxIndex || decode_tiles::row_blocks(shape) > kMaxIndex ||
      decode_tiles::total_units(shape) > kMaxIndex ||
      (shape.page_size && kv_pages::pool_pages(shape) * shape.heads_kv > kMaxIndex))
    return "fa3_decode numbers query rows, row blocks, key blocks and pages with 32-bit "
           "integers: batch * heads_q * seqlen_q, the key blocks of every row block and pages * "
           "heads_kv at most 2^31 - 1";
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
  return workspace_bytes(shape, Partition{false, splits});
}

std::size_t workspace_bytes_for_parts(const AttnShape& shape, int parts) {
  return workspace_bytes(shape, Partition{true, parts});
}

Status launch_with_splits(const AttnShape& shape, const AttnBuffers& buffers, Stream stream,
                          int splits) {
  if (splits < 1 || splits > decode_tiles::kMaxSplits)
    return Error{"fa3_decode: " + std::to_string(splits) + " key-range parts; 1 to " +
                 std::to_string(decode_tiles::kMaxSplits) + " are supported"};
  return launch_partition(shape, buffers, stream, Partition{false, splits});
}

Status launch_with_parts(const AttnShape& shape, const AttnBuffers& buffers, Stream stream,
                         int parts) {
  if (parts < 1 || parts > decode_tiles::kMaxParts)
    return Error{"fa3_decode: " + std::to_string(parts) + " balanced parts; 1 to " +
                 std::to_string(decode_tiles::kMaxParts) + " are supported"};
  return launch_partition(shape, buffers, stream, Partition{true, parts});
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
