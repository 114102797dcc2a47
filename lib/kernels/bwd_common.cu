// The backward pass's preprocessing and dQ conversion kernels and the workspace layout; what they
// compute and the layout's contract: bwd_common.hpp. Both kernels are memory-bound streams with
// 16-byte accesses: preprocessing reads O and dO (2 * b*h_q*sq*dv*2 bytes) and writes LSE*log2e, D,
// the zeroed tile counters, the tile-index table (16 bytes per key block) and, when asked, zeros
// over dq slot 0 (b*h_q*rows_padded*d*4 bytes); the conversion reads the dq slots and writes dQ
// (b*h_q*sq*d*2 bytes); the group reduction reads the key-gradient partials (b*h_q*sk*(d+dv)*2
// bytes) and writes dK and dV (b*h_kv*sk*(d+dv)*2 bytes).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "kernels/bwd_common.hpp"
#include "kernels/cuda_status.hpp"
#include "kernels/toolbox.cuh"

namespace fa4::kernels::bwd {
namespace {

constexpr int kVector = 8;         // 16-bit elements per 16-byte access
constexpr int kThreadsPerRow = 8;  // preprocessing: lanes sharing one row's dot product
constexpr int kBlockThreads = 256;

std::size_t aligned(std::size_t bytes) {
  return (bytes + kArrayAlignment - 1) / kArrayAlignment * kArrayAlignment;
}

// Pair i (values 2i and 2i + 1) of a 16-byte vector of 8 Element values, in float32.
template <typename Element>
__device__ __forceinline__ float2 pair_at(const uint4& v, int i) {
  if constexpr (std::is_same_v<Element, __half>)
    return __half22float2(reinterpret_cast<const __half2*>(&v)[i]);
  else
    return __bfloat1622float2(reinterpret_cast<const __nv_bfloat162*>(&v)[i]);
}

template <typename Element>
__device__ __forceinline__ float dot8(const uint4& a, const uint4& b) {
  float sum = 0.0f;
#pragma unroll
  for (int i = 0; i < kVector / 2; ++i) {
    const float2 fx = pair_at<Element>(a, i), fy = pair_at<Element>(b, i);
    sum = fmaf(fx.x, fy.x, sum);
    sum = fmaf(fx.y, fy.y, sum);
  }
  return sum;
}

// sum[i] += the 8 values of v.
template <typename Element>
__device__ __forceinline__ void add8(const uint4& v, float (&sum)[kVector]) {
#pragma unroll
  for (int i = 0; i < kVector / 2; ++i) {
    const float2 f = pair_at<Element>(v, i);
    sum[2 * i] += f.x;
    sum[2 * i + 1] += f.y;
  }
}

// 8 values times `scale`, rounded to Element, as one 16-byte vector.
template <typename Element>
__device__ __forceinline__ uint4 pack8(const float (&v)[kVector], float scale) {
  uint4 packed;
  std::uint32_t* words = reinterpret_cast<std::uint32_t*>(&packed);
#pragma unroll
  for (int i = 0; i < kVector / 2; ++i) {
    if constexpr (std::is_same_v<Element, __half>) {
      const __half2 pair = __floats2half2_rn(v[2 * i] * scale, v[2 * i + 1] * scale);
      words[i] = *reinterpret_cast<const std::uint32_t*>(&pair);
    } else {
      const __nv_bfloat162 pair = __floats2bfloat162_rn(v[2 * i] * scale, v[2 * i + 1] * scale);
      words[i] = *reinterpret_cast<const std::uint32_t*>(&pair);
    }
  }
  return packed;
}

struct PreprocessParams {
  const void* o;
  const void* dout;
  const float* lse;
  float* lse_log2;
  float* d;
  float* dq_accum;  // nullptr: leave it
  int* tile_counters;
  int4* tile_ids;
  std::int64_t tile_id_entries;
  int rows_padded;
  int seqlen_q;
  int headdim;
  int headdim_v;
};

// kThreadsPerRow lanes per row (adjacent lanes of one warp): each sums a strided share of the
// row's 16-byte chunks of dO o O, then the group reduces with shuffles.
template <typename Element>
__global__ void __launch_bounds__(kBlockThreads) preprocess_kernel(const PreprocessParams p) {
  const std::int64_t padded_row =
      std::int64_t(blockIdx.x) * (kBlockThreads / kThreadsPerRow) + threadIdx.x / kThreadsPerRow;
  const int lane = int(threadIdx.x) % kThreadsPerRow;
  static_assert(kRowAlignment % (kBlockThreads / kThreadsPerRow) == 0,
                "rows is a multiple of the rows per block: every launched warp is full");
  const std::int64_t head_row = padded_row / p.rows_padded;  // (batch, head)
  const int row = int(padded_row % p.rows_padded);
  float sum = 0.0f;
  if (row < p.seqlen_q) {
    const std::int64_t offset = (head_row * p.seqlen_q + row) * p.headdim_v;
    const uint4* o = reinterpret_cast<const uint4*>(static_cast<const Element*>(p.o) + offset);
    const uint4* dout =
        reinterpret_cast<const uint4*>(static_cast<const Element*>(p.dout) + offset);
    for (int chunk = lane; chunk < p.headdim_v / kVector; chunk += kThreadsPerRow)
      sum += dot8<Element>(o[chunk], dout[chunk]);
  }
#pragma unroll
  for (int offset = kThreadsPerRow / 2; offset > 0; offset /= 2)
    sum += __shfl_xor_sync(0xffffffffu, sum, offset, kThreadsPerRow);
  if (lane == 0) {
    const float lse = row < p.seqlen_q ? p.lse[head_row * p.seqlen_q + row]
                                       : -std::numeric_limits<float>::infinity();
    // exp2(s * scale_log2 - (+inf)) = 0: rows that see no key, and padding, get P = 0.
    p.lse_log2[padded_row] = isinf(lse) ? std::numeric_limits<float>::infinity() : lse * kLog2e;
    p.d[padded_row] = sum;
  }
  if (padded_row == 0 && lane < kTileCounters) p.tile_counters[lane] = 0;
  const std::int64_t threads = std::int64_t(gridDim.x) * kBlockThreads;
  for (std::int64_t i = std::int64_t(blockIdx.x) * kBlockThreads + threadIdx.x;
       i < p.tile_id_entries; i += threads)
    p.tile_ids[i] = make_int4(int(i), 0, 0, 0);
  if (p.dq_accum) {
    float4* accum = reinterpret_cast<float4*>(p.dq_accum + padded_row * p.headdim);
    for (int i = lane; i < p.headdim / 4; i += kThreadsPerRow) accum[i] = make_float4(0, 0, 0, 0);
  }
}

struct ConvertParams {
  const float* dq_accum;
  void* dq;
  std::int64_t units;  // rows: b*h_q*sq*d / kVector vectors; mma_tiles: b*h_q*bands*d row pairs
  std::size_t slot_floats;
  int slots;
  int rows_padded;
  int seqlen_q;
  int headdim;
  int causal_shift;  // seqlen_k - seqlen_q
  int key_block;
  bool causal;
  float scale;
};

// The slots row `row` sums: with causal masking, only those whose first key it sees.
__device__ __forceinline__ int slots_of_row(const ConvertParams& p, int row) {
  if (!p.causal) return p.slots;
  const int last_key = row + p.causal_shift;  // the row sees keys 0..last_key
  return last_key < 0 ? 0 : min(p.slots, last_key / p.key_block + 1);
}

// rows order: a thread per 8 columns of one row.
template <typename Element>
__global__ void __launch_bounds__(kBlockThreads) convert_rows_kernel(const ConvertParams p) {
  const std::int64_t vector = std::int64_t(blockIdx.x) * kBlockThreads + threadIdx.x;
  if (vector >= p.units) return;
  const int vectors_per_row = p.headdim / kVector;
  const std::int64_t row_index = vector / vectors_per_row;  // (batch, head, row)
  const int column = int(vector % vectors_per_row) * kVector;
  const std::int64_t head_row = row_index / p.seqlen_q;
  const int row = int(row_index % p.seqlen_q);
  const int slots = slots_of_row(p, row);
  const float* accum = p.dq_accum + (head_row * p.rows_padded + row) * p.headdim + column;
  float sum[kVector] = {};
  for (int slot = 0; slot < slots; ++slot) {
    const float4* slot_vector = reinterpret_cast<const float4*>(accum + slot * p.slot_floats);
    alignas(16) float part[kVector];
    *reinterpret_cast<float4*>(part) = slot_vector[0];
    *reinterpret_cast<float4*>(part + 4) = slot_vector[1];
#pragma unroll
    for (int i = 0; i < kVector; ++i) sum[i] += part[i];
  }
  reinterpret_cast<uint4*>(static_cast<Element*>(p.dq) + row_index * p.headdim)[column / kVector] =
      pack8<Element>(sum, p.scale);
}

// mma_tiles order: a thread per row pair (g, g + 8) of one 16 x 8 tile, the 64 contiguous bytes
// of lanes 4g .. 4g + 3; adjacent threads take adjacent tiles of the band, so the writes of a row
// are contiguous.
template <typename Element>
__global__ void __launch_bounds__(kBlockThreads) convert_tiles_kernel(const ConvertParams p) {
  const std::int64_t unit = std::int64_t(blockIdx.x) * kBlockThreads + threadIdx.x;
  if (unit >= p.units) return;
  const int tiles_per_band = p.headdim / kDqTileColumns;
  const int bands = (p.seqlen_q + kDqTileRows - 1) / kDqTileRows;
  const int tile = int(unit % tiles_per_band);
  const std::int64_t pair_index = unit / tiles_per_band;  // (batch, head, band, g)
  const int g = int(pair_index % (kDqTileRows / 2));
  const std::int64_t band_index = pair_index / (kDqTileRows / 2);
  const std::int64_t head_row = band_index / bands;
  const int row = int(band_index % bands) * kDqTileRows + g;  // and row + 8
  const int slots_top = slots_of_row(p, row), slots_bottom = slots_of_row(p, row + 8);
  const float4* accum = reinterpret_cast<const float4*>(
      p.dq_accum + head_row * p.rows_padded * p.headdim +
      dq_tile_offset(row - g, tile * kDqTileColumns, p.headdim) + 4 * (4 * g));
  float top[kVector] = {}, bottom[kVector] = {};
  for (int slot = 0; slot < max(slots_top, slots_bottom); ++slot) {
    const float4* slot_lanes = accum + slot * p.slot_floats / 4;
    // Lane 4g + t holds (g, 2t), (g, 2t + 1), (g + 8, 2t), (g + 8, 2t + 1).
#pragma unroll
    for (int t = 0; t < 4; ++t) {
      const float4 v = slot_lanes[t];
      if (slot < slots_top) {
        top[2 * t] += v.x;
        top[2 * t + 1] += v.y;
      }
      if (slot < slots_bottom) {
        bottom[2 * t] += v.z;
        bottom[2 * t + 1] += v.w;
      }
    }
  }
  Element* out = static_cast<Element*>(p.dq) + (head_row * p.seqlen_q + row) * p.headdim +
                 tile * kDqTileColumns;
  if (row < p.seqlen_q) *reinterpret_cast<uint4*>(out) = pack8<Element>(top, p.scale);
  if (row + 8 < p.seqlen_q)
    *reinterpret_cast<uint4*>(out + 8 * p.headdim) = pack8<Element>(bottom, p.scale);
}

// One tensor of the group reduction: dK or dV.
struct GroupReduceTensor {
  const void* partials;       // [batch * heads_q][seqlen_k][headdim]
  void* out;                  // [batch * heads_kv][seqlen_k][headdim]
  std::int64_t vectors;       // batch * heads_kv * seqlen_k * headdim / kVector
  std::int64_t head_vectors;  // seqlen_k * headdim / kVector
};
struct GroupReduceParams {
  GroupReduceTensor tensors[2];  // blockIdx.y: dK, dV
  int group;                     // heads_q / heads_kv
};

template <typename Element>
__global__ void __launch_bounds__(kBlockThreads) group_reduce_kernel(const GroupReduceParams p) {
  const GroupReduceTensor& t = p.tensors[blockIdx.y];
  const std::int64_t vector = std::int64_t(blockIdx.x) * kBlockThreads + threadIdx.x;
  if (vector >= t.vectors) return;
  const std::int64_t kv_head = vector / t.head_vectors;
  const uint4* part = static_cast<const uint4*>(t.partials) + kv_head * p.group * t.head_vectors +
                      (vector - kv_head * t.head_vectors);
  float sum[kVector] = {};
  for (int g = 0; g < p.group; ++g) add8<Element>(part[g * t.head_vectors], sum);
  static_cast<uint4*>(t.out)[vector] = pack8<Element>(sum, 1.0f);
}

unsigned blocks_for(std::int64_t work_items, int items_per_block) {
  return unsigned((work_items + items_per_block - 1) / items_per_block);
}

Status check_vector_dims(const AttnShape& shape, const char* what) {
  if (shape.headdim % kVector != 0 || shape.headdim_v % kVector != 0)
    return Error{std::string(what) + ": headdim and headdim_v must be multiples of 8, got " +
                 std::to_string(shape.headdim) + " and " + std::to_string(shape.headdim_v)};
  if (shape.dtype != Dtype::bf16 && shape.dtype != Dtype::fp16)
    return Error{std::string(what) + ": bf16 or fp16 only, not " +
                 std::string(to_string(shape.dtype))};
  return Ok{};
}

}  // namespace

WorkspaceLayout workspace_layout(const AttnShape& shape, std::int64_t dq_slots, DqOrder dq_order,
                                 bool key_grad_partials) {
  WorkspaceLayout layout;
  layout.rows_padded = (shape.seqlen_q + kRowAlignment - 1) / kRowAlignment * kRowAlignment;
  layout.dq_slots = dq_slots;
  layout.dq_order = dq_order;
  const std::size_t rows = std::size_t(shape.batch * shape.heads_q * layout.rows_padded);
  layout.dq_slot_floats = rows * std::size_t(shape.headdim);
  layout.lse_log2_offset = 0;
  layout.d_offset = aligned(rows * sizeof(float));
  layout.tile_counters_offset = layout.d_offset + aligned(rows * sizeof(float));
  layout.tile_ids_offset = layout.tile_counters_offset + aligned(kTileCounters * sizeof(int));
  const std::int64_t tile_heads = key_grad_partials ? shape.heads_q : shape.heads_kv;
  layout.tile_id_entries =
      shape.batch * tile_heads * ((shape.seqlen_k + kMinKeyBlock - 1) / kMinKeyBlock) + 1;
  layout.dq_accum_offset =
      layout.tile_ids_offset + aligned(std::size_t(layout.tile_id_entries) * sizeof(int4));
  layout.bytes =
      layout.dq_accum_offset + std::size_t(dq_slots) * layout.dq_slot_floats * sizeof(float);
  if (key_grad_partials) {
    const std::size_t key_rows = std::size_t(shape.batch * shape.heads_q * shape.seqlen_k);
    const std::size_t element = element_bytes(shape.dtype);
    layout.key_grad_partials = true;
    layout.dk_partials_offset = aligned(layout.bytes);
    layout.dv_partials_offset =
        layout.dk_partials_offset + aligned(key_rows * std::size_t(shape.headdim) * element);
    layout.bytes = layout.dv_partials_offset + key_rows * std::size_t(shape.headdim_v) * element;
  }
  return layout;
}

WorkspaceArrays workspace_arrays(const WorkspaceLayout& layout, void* workspace) {
  unsigned char* base = static_cast<unsigned char*>(workspace);
  return WorkspaceArrays{
      .lse_log2 = reinterpret_cast<float*>(base + layout.lse_log2_offset),
      .d = reinterpret_cast<float*>(base + layout.d_offset),
      .tile_counters = reinterpret_cast<int*>(base + layout.tile_counters_offset),
      .tile_ids = reinterpret_cast<std::int32_t*>(base + layout.tile_ids_offset),
      .dq_accum = reinterpret_cast<float*>(base + layout.dq_accum_offset),
      .dk_partials = layout.key_grad_partials ? base + layout.dk_partials_offset : nullptr,
      .dv_partials = layout.key_grad_partials ? base + layout.dv_partials_offset : nullptr};
}

Status launch_preprocess(const AttnShape& shape, const AttnBuffers& buffers,
                         const WorkspaceLayout& layout, bool zero_dq_accum, Stream stream) {
  if (Status s = check_vector_dims(shape, "backward preprocessing"); !s) return s;
  const WorkspaceArrays arrays = workspace_arrays(layout, buffers.workspace);
  const PreprocessParams params{.o = buffers.o,
                                .dout = buffers.dout,
                                .lse = buffers.lse,
                                .lse_log2 = arrays.lse_log2,
                                .d = arrays.d,
                                .dq_accum = zero_dq_accum ? arrays.dq_accum : nullptr,
                                .tile_counters = arrays.tile_counters,
                                .tile_ids = reinterpret_cast<int4*>(arrays.tile_ids),
                                .tile_id_entries = layout.tile_id_entries,
                                .rows_padded = int(layout.rows_padded),
                                .seqlen_q = int(shape.seqlen_q),
                                .headdim = int(shape.headdim),
                                .headdim_v = int(shape.headdim_v)};
  const std::int64_t rows = shape.batch * shape.heads_q * layout.rows_padded;
  const unsigned blocks = blocks_for(rows, kBlockThreads / kThreadsPerRow);
  if (shape.dtype == Dtype::bf16)
    preprocess_kernel<__nv_bfloat16><<<blocks, kBlockThreads, 0, stream>>>(params);
  else
    preprocess_kernel<__half><<<blocks, kBlockThreads, 0, stream>>>(params);
  return cuda_status(cudaGetLastError(), "backward preprocessing: kernel launch");
}

Status launch_dq_convert(const AttnShape& shape, const AttnBuffers& buffers,
                         const WorkspaceLayout& layout, std::int64_t key_block, Stream stream) {
  if (Status s = check_vector_dims(shape, "dQ conversion"); !s) return s;
  const bool tiles = layout.dq_order == DqOrder::mma_tiles;
  const std::int64_t bands = (shape.seqlen_q + kDqTileRows - 1) / kDqTileRows;
  const ConvertParams params{
      .dq_accum = workspace_arrays(layout, buffers.workspace).dq_accum,
      .dq = buffers.dq,
      .units = tiles ? shape.batch * shape.heads_q * bands * shape.headdim
                     : shape.batch * shape.heads_q * shape.seqlen_q * shape.headdim / kVector,
      .slot_floats = layout.dq_slot_floats,
      .slots = int(layout.dq_slots),
      .rows_padded = int(layout.rows_padded),
      .seqlen_q = int(shape.seqlen_q),
      .headdim = int(shape.headdim),
      .causal_shift = int(shape.seqlen_k - shape.seqlen_q),
      .key_block = int(key_block),
      .causal = shape.causal,
      .scale = float(1.0 / std::sqrt(double(shape.headdim)))};
  const unsigned blocks = blocks_for(params.units, kBlockThreads);
  const bool bf16 = shape.dtype == Dtype::bf16;
  if (tiles && bf16)
    convert_tiles_kernel<__nv_bfloat16><<<blocks, kBlockThreads, 0, stream>>>(params);
  else if (tiles)
    convert_tiles_kernel<__half><<<blocks, kBlockThreads, 0, stream>>>(params);
  else if (bf16)
    convert_rows_kernel<__nv_bfloat16><<<blocks, kBlockThreads, 0, stream>>>(params);
  else
    convert_rows_kernel<__half><<<blocks, kBlockThreads, 0, stream>>>(params);
  return cuda_status(cudaGetLastError(), "dQ conversion: kernel launch");
}

Status launch_group_reduce(const AttnShape& shape, const AttnBuffers& buffers,
                           const WorkspaceLayout& layout, Stream stream) {
  if (Status s = check_vector_dims(shape, "key-gradient group reduction"); !s) return s;
  if (!layout.key_grad_partials)
    return Error{"key-gradient group reduction: the workspace layout holds no partials"};
  const WorkspaceArrays arrays = workspace_arrays(layout, buffers.workspace);
  const std::int64_t kv_rows = shape.batch * shape.heads_kv * shape.seqlen_k;
  const auto tensor = [&](const void* partials, void* out, std::int64_t dim) {
    return GroupReduceTensor{.partials = partials,
                             .out = out,
                             .vectors = kv_rows * dim / kVector,
                             .head_vectors = shape.seqlen_k * dim / kVector};
  };
  const GroupReduceParams params{
      .tensors = {tensor(arrays.dk_partials, buffers.dk, shape.headdim),
                  tensor(arrays.dv_partials, buffers.dv, shape.headdim_v)},
      .group = int(shape.heads_q / shape.heads_kv)};
  const dim3 grid(
      blocks_for(kv_rows * std::max(shape.headdim, shape.headdim_v) / kVector, kBlockThreads), 2);
  if (shape.dtype == Dtype::bf16)
    group_reduce_kernel<__nv_bfloat16><<<grid, kBlockThreads, 0, stream>>>(params);
  else
    group_reduce_kernel<__half><<<grid, kBlockThreads, 0, stream>>>(params);
  return cuda_status(cudaGetLastError(), "key-gradient group reduction: kernel launch");
}

}  // namespace fa4::kernels::bwd
