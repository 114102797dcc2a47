// fa3_decode's device kernels: the split kernel (one CTA per pack, row block and key-range part)
// and the combine that weights the parts by their LSE. The algorithm is in decode.cu's header.
#pragma once

#include <cstdint>

#include "kernels/decode/traits.cuh"
#include "kernels/fa3/mainloop.cuh"
#include "kernels/fa3/softmax.cuh"
#include "kernels/toolbox.cuh"

namespace fa4::kernels::decode {
namespace {

using fa3::kFullMask;
using fa3::kMinusInfinity;
using fa3::kRowsPerThread;

inline constexpr int kConsumerBarrier = 1;  // named barrier of the consumer warpgroup (0: CTA)

template <class T>
struct SharedMap {
  std::uint32_t base;  // 1024-byte aligned
  __device__ __forceinline__ std::uint32_t q() const { return base + T::kQOffset; }
  __device__ __forceinline__ std::uint32_t k(int stage) const {
    return base + T::kStageOffset + std::uint32_t(stage * T::kStageBytes);
  }
  __device__ __forceinline__ std::uint32_t v(int stage) const {
    return k(stage) + std::uint32_t(T::kKvBytes);
  }
  __device__ __forceinline__ std::uint32_t barrier(int i) const {
    return base + T::kBarrierOffset + std::uint32_t(8 * i);
  }
  __device__ __forceinline__ std::uint32_t q_full() const { return barrier(0); }
  __device__ __forceinline__ std::uint32_t full(int s) const { return barrier(1 + s); }
  __device__ __forceinline__ std::uint32_t empty(int s) const {
    return barrier(1 + T::kStages + s);
  }
  // Full barriers take the producer's arrival plus the TMA bytes; empty ones a consumer warp each.
  __device__ __forceinline__ void init_barriers() const {
    mbarrier_init(q_full(), 1);
#pragma unroll
    for (int s = 0; s < T::kStages; ++s) {
      mbarrier_init(full(s), 1);
      mbarrier_init(empty(s), kConsumerWarps);
    }
    fence_barrier_init();
  }
};

// A CTA's work: its pack (batch * heads_kv + KV head), the first packed row of its block, its
// sequence's key count and its part of the block's key blocks.
struct Work {
  int pack;
  int row0;
  int keys;
  int first_block;
  int blocks;
};

// Causal (bottom-right aligned): query t sees keys up to t + keys - seqlen_q, so the block needs
// keys up to its largest t's limit; the parts split those key blocks evenly.
template <class T>
__device__ __forceinline__ Work cta_work(const Params& p) {
  const int pack = int(blockIdx.x) / p.row_blocks;
  const int row0 = int(blockIdx.x) % p.row_blocks * T::kBlockM;
  const int keys = p.seqlens_k ? p.seqlens_k[pack / p.heads_kv] : p.seqlen_k;
  int key_end = keys;
  if (p.causal) {
    const int last = min(row0 + T::kBlockM, p.packed_rows) - 1;
    const bool wraps = last - row0 + 1 >= p.seqlen_q || row0 % p.seqlen_q > last % p.seqlen_q;
    const int max_t = wraps ? p.seqlen_q - 1 : last % p.seqlen_q;
    key_end = min(keys, max_t + keys - p.seqlen_q + 1);
  }
  const int total = key_end <= 0 ? 0 : (key_end + T::kBlockN - 1) / T::kBlockN;
  const int per_part = (total + p.splits - 1) / p.splits;
  const int first = int(blockIdx.y) * per_part;
  return Work{pack, row0, keys, first, max(0, min(total, first + per_part) - first)};
}

// Q's packed rows of the CTA's block, by TMA (one thread).
template <class T>
__device__ __forceinline__ void load_q(const Params& p, const SharedMap<T>& smem,
                                       const Work& work) {
  mbarrier_arrive_expect_tx(smem.q_full(), T::kQBytes);
#pragma unroll
  for (int cb = 0; cb < T::kColumnBlocks; ++cb)
    tma_load_3d(smem.q() + std::uint32_t(cb * T::kQBlockBytes), &p.q_map, smem.q_full(),
                cb * fa3::kColumnBlock, work.row0, work.pack);
}

// The producer of a contiguous cache (lane 0): Q once, then K and V of each key block into the
// next stage (one full barrier for both), running ahead as far as the empty barriers allow.
template <class T>
__device__ __forceinline__ void produce(const Params& p, const SharedMap<T>& smem,
                                        const Work& work) {
  load_q<T>(p, smem, work);
  PipelineState stage;
  for (int i = 0; i < work.blocks; ++i) {
    mbarrier_wait(smem.empty(stage.index), stage.phase ^ 1u);
    mbarrier_arrive_expect_tx(smem.full(stage.index), T::kStageBytes);
    const int key0 = (work.first_block + i) * T::kBlockN;
#pragma unroll
    for (int cb = 0; cb < T::kColumnBlocks; ++cb) {
      const std::uint32_t offset = std::uint32_t(cb * T::kKvBlockBytes);
      tma_load_3d(smem.k(stage.index) + offset, &p.k_map, smem.full(stage.index),
                  cb * fa3::kColumnBlock, key0, work.pack);
      tma_load_3d(smem.v(stage.index) + offset, &p.v_map, smem.full(stage.index),
                  cb * fa3::kColumnBlock, key0, work.pack);
    }
    stage.template advance<T::kStages>();
  }
}

// The producer of a paged cache (the whole warp): a key block is kBlockN / page_rows boxes, one
// per lane, each lane reading its page from the block table before the stage is free, so the
// table's latency hides behind the wait. Boxes wholly past the sequence's keys are not loaded
// (their pages may not exist) and the full barrier expects only the boxes loaded.
template <class T>
__device__ __forceinline__ void produce_paged(const Params& p, const SharedMap<T>& smem,
                                              const Work& work) {
  const int lane = int(threadIdx.x) % kWarpSize;
  if (lane == 0) load_q<T>(p, smem, work);
  const int boxes_per_block = T::kBlockN / p.page_rows;
  const int box_bytes = p.page_rows * kSwizzleBytes;
  const int head = work.pack % p.heads_kv;
  const std::int32_t* table =
      p.block_table + std::int64_t(work.pack / p.heads_kv) * p.pages_per_sequence;
  PipelineState stage;
  for (int i = 0; i < work.blocks; ++i) {
    const int key0 = (work.first_block + i) * T::kBlockN;
    const int boxes = min(boxes_per_block, (work.keys - key0 + p.page_rows - 1) / p.page_rows);
    const int key = key0 + lane * p.page_rows;
    const int page_row = key % p.page_size;
    const int page = lane < boxes ? table[key / p.page_size] : 0;
    if (lane == 0) {
      mbarrier_wait(smem.empty(stage.index), stage.phase ^ 1u);
      mbarrier_arrive_expect_tx(smem.full(stage.index),
                                std::uint32_t(2 * T::kColumnBlocks * boxes * box_bytes));
    }
    __syncwarp();
    if (lane < boxes) {
      const int slab = page * p.heads_kv + head;
#pragma unroll
      for (int cb = 0; cb < T::kColumnBlocks; ++cb) {
        const std::uint32_t offset = std::uint32_t(cb * T::kKvBlockBytes + lane * box_bytes);
        tma_load_3d(smem.k(stage.index) + offset, &p.k_map, smem.full(stage.index),
                    cb * fa3::kColumnBlock, page_row, slab);
        tma_load_3d(smem.v(stage.index) + offset, &p.v_map, smem.full(stage.index),
                    cb * fa3::kColumnBlock, page_row, slab);
      }
    }
    stage.template advance<T::kStages>();
  }
}

// Rows [first_row, kBlockN) of a V stage as zeros: a ragged or paged cache's rows past the keys
// are unwritten slots (or stale rows of an earlier block) that P = 0 would not cancel if they held
// NaN. A 128-byte swizzled row stays within its 128 bytes, so rows are plain byte ranges; the
// stores are made visible to wgmma (the async proxy) before the consumer warpgroup goes on.
template <class T>
__device__ __forceinline__ void zero_v_rows_from(std::uint32_t v, int first_row) {
  constexpr int kWordsPerRow = kSwizzleBytes / 4;
  const int thread = int(threadIdx.x);
  for (int cb = 0; cb < T::kColumnBlocks; ++cb) {
    const std::uint32_t block = v + std::uint32_t(cb * T::kKvBlockBytes);
    for (int word = first_row * kWordsPerRow + thread; word < T::kBlockN * kWordsPerRow;
         word += kConsumerWarps * kWarpSize)
      st_shared_u32(block + std::uint32_t(4 * word), 0u);
  }
  fence_proxy_async_shared();
  named_barrier_sync(kConsumerBarrier, kConsumerWarps * kWarpSize);
}

// Scores a packed row may not see (past its sequence's keys, or past its query's causal limit)
// become -inf. `row0` is the packed row of this thread's first accumulator row.
template <class T>
__device__ __forceinline__ void mask_scores(float (&s)[T::kSRegs], int key0, int row0, int keys,
                                            const Params& p) {
  const int quad_lane = int(threadIdx.x) % 4;
  const int causal_shift = keys - p.seqlen_q;
#pragma unroll
  for (int h = 0; h < kRowsPerThread; ++h) {
    const int row = row0 + 8 * h;
    const int key_end = p.causal ? min(keys, row % p.seqlen_q + causal_shift + 1) : keys;
#pragma unroll
    for (int j = 0; j < T::kBlockN / 8; ++j)
#pragma unroll
      for (int c = 0; c < 2; ++c)
        if (key0 + 8 * j + 2 * quad_lane + c >= key_end) s[4 * j + 2 * h + c] = kMinusInfinity;
  }
}

// One part's O (normalized by the part's own row sums) and LSE: straight into O and LSE when the
// key range is not split, else into the float32 partials. Rows past the pack are not stored;
// a row that saw no key gets O = 0 and LSE = -inf.
template <class T>
__device__ __forceinline__ void store_part(const Params& p, const float (&o)[T::kORegs],
                                           const fa3::OnlineSoftmax<T>& softmax,
                                           const Work& work) {
  using Element = typename T::Element;
  const int row0 = fa3::thread_row0(work.row0);
  const int quad_lane = int(threadIdx.x) % 4;
#pragma unroll
  for (int h = 0; h < kRowsPerThread; ++h) {
    float sum = softmax.row_sum[h];
    sum += __shfl_xor_sync(kFullMask, sum, 1);
    sum += __shfl_xor_sync(kFullMask, sum, 2);
    const int packed_row = row0 + 8 * h;
    if (packed_row >= p.packed_rows) continue;
    const float inverse = sum > 0.0f ? 1.0f / sum : 0.0f;
    const float lse = sum > 0.0f ? (softmax.row_max[h] * p.scale_log2 + __log2f(sum)) * kLn2
                                 : kMinusInfinity;
    const std::int64_t row = std::int64_t(work.pack) * p.packed_rows + packed_row;
    if (p.splits == 1) {
      Element* out = static_cast<Element*>(p.o) + row * T::kHeadDim + 2 * quad_lane;
#pragma unroll
      for (int j = 0; j < T::kHeadDim / 8; ++j)
        *reinterpret_cast<std::uint32_t*>(out + 8 * j) =
            pack_pair<Element>(o[4 * j + 2 * h] * inverse, o[4 * j + 2 * h + 1] * inverse);
      if (quad_lane == 0) p.lse[row] = lse;
    } else {
      const std::int64_t part_row = std::int64_t(blockIdx.y) * p.rows + row;
      float* out = p.o_partial + part_row * T::kHeadDim + 2 * quad_lane;
#pragma unroll
      for (int j = 0; j < T::kHeadDim / 8; ++j)
        *reinterpret_cast<float2*>(out + 8 * j) =
            make_float2(o[4 * j + 2 * h] * inverse, o[4 * j + 2 * h + 1] * inverse);
      if (quad_lane == 0) p.lse_partial[part_row] = lse;
    }
  }
}

// The consumer warpgroup: per key block S = Q K^T (SS wgmma), mask, online softmax, O += P V (RS
// wgmma), then the stage goes back to the producer.
template <class T>
__device__ __forceinline__ void consume(const Params& p, const SharedMap<T>& smem,
                                        const Work& work) {
  float o[T::kORegs];
#pragma unroll
  for (int i = 0; i < T::kORegs; ++i) o[i] = 0.0f;
  fa3::OnlineSoftmax<T> softmax;
  softmax.reset();
  if (work.blocks > 0) {
    float s[T::kSRegs];
    std::uint32_t pr[T::kPRegs];
    float correction[kRowsPerThread];
    const int row0 = fa3::thread_row0(work.row0);
    const int causal_shift = work.keys - p.seqlen_q;
    const bool unwritten_tail = p.block_table != nullptr || p.seqlens_k != nullptr;
    mbarrier_wait(smem.q_full(), 0);
    PipelineState stage;
    for (int i = 0; i < work.blocks; ++i) {
      const int key0 = (work.first_block + i) * T::kBlockN;
      const int key_last = key0 + T::kBlockN - 1;
      mbarrier_wait(smem.full(stage.index), stage.phase);
      fa3::gemm_qk<T>(s, smem.q(), smem.k(stage.index));
      wgmma_wait<0>();
      fence_operands(s);
      if (key_last >= work.keys || (p.causal && key_last > causal_shift))
        mask_scores<T>(s, key0, row0, work.keys, p);
      if (unwritten_tail && key_last >= work.keys)
        zero_v_rows_from<T>(smem.v(stage.index), work.keys - key0);
      softmax.update(s, p.scale_log2, correction);
      fa3::rescale_o<T>(o, correction);
      fa3::convert_p<T>(s, pr);
      fa3::gemm_pv<T>(o, pr, smem.v(stage.index));
      wgmma_wait<0>();
      fence_operands(o);
      fa3::release(smem.empty(stage.index));
      stage.template advance<T::kStages>();
    }
  }
  store_part<T>(p, o, softmax, work);
}

// Lets the combine (launched with programmatic stream serialization) be scheduled once every CTA
// of this grid is resident; it still waits for this grid's completion before reading.
__device__ __forceinline__ void allow_dependent_launch() {
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
}
__device__ __forceinline__ void wait_for_prerequisite_grid() {
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
}

template <class T>
__global__ void __launch_bounds__(T::kThreads, 1)
    decode_split_kernel(const __grid_constant__ Params p) {
  extern __shared__ __align__(1024) unsigned char shared_raw[];
  const std::uint32_t raw = smem_u32(shared_raw);
  const SharedMap<T> smem{(raw + kSwizzleAtomBytes - 1) & ~std::uint32_t(kSwizzleAtomBytes - 1)};
  allow_dependent_launch();
  const Work work = cta_work<T>(p);
  if (threadIdx.x == 0) {
    smem.init_barriers();
    prefetch_tensor_map(&p.q_map);
    prefetch_tensor_map(&p.k_map);
    prefetch_tensor_map(&p.v_map);
  }
  __syncthreads();
  if (int(threadIdx.x) / kWarpSize == kProducerWarp) {
    if (work.blocks > 0) {
      if (p.block_table)
        produce_paged<T>(p, smem, work);
      else if (threadIdx.x % kWarpSize == 0)
        produce<T>(p, smem, work);
    }
  } else {
    consume<T>(p, smem, work);
  }
}

// ---- combine: one warp per row ----

inline constexpr int kCombineWarps = 4;
inline constexpr int kSplitsPerLane = decode_tiles::kMaxSplits / kWarpSize;

__device__ __forceinline__ float warp_max(float x) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2)
    x = fmaxf(x, __shfl_xor_sync(kFullMask, x, offset));
  return x;
}
__device__ __forceinline__ float warp_sum(float x) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) x += __shfl_xor_sync(kFullMask, x, offset);
  return x;
}

// O = sum over parts of exp(LSE_part - LSE) * O_part with LSE = log sum exp(LSE_part); a row no
// part saw a key for gets O = 0 and LSE = -inf. Lane l owns head dims [l * d / 32, (l + 1) * d
// / 32).
template <typename Element, int HeadDim>
__global__ void __launch_bounds__(kCombineWarps* kWarpSize)
    decode_combine_kernel(const __grid_constant__ Params p) {
  constexpr int kColumns = HeadDim / kWarpSize;
  __shared__ float weights[kCombineWarps][decode_tiles::kMaxSplits];
  wait_for_prerequisite_grid();
  const int warp = int(threadIdx.x) / kWarpSize;
  const int lane = int(threadIdx.x) % kWarpSize;
  const std::int64_t row = std::int64_t(blockIdx.x) * kCombineWarps + warp;
  if (row >= p.rows) return;

  float lse[kSplitsPerLane];
  float max_lse = kMinusInfinity;
#pragma unroll
  for (int i = 0; i < kSplitsPerLane; ++i) {
    const int part = lane + kWarpSize * i;
    lse[i] = part < p.splits ? p.lse_partial[std::int64_t(part) * p.rows + row] : kMinusInfinity;
    max_lse = fmaxf(max_lse, lse[i]);
  }
  max_lse = warp_max(max_lse);
  float out[kColumns];
  float total = kMinusInfinity;
#pragma unroll
  for (int c = 0; c < kColumns; ++c) out[c] = 0.0f;
  if (max_lse != kMinusInfinity) {
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < kSplitsPerLane; ++i) sum += __expf(lse[i] - max_lse);
    total = max_lse + __logf(warp_sum(sum));
#pragma unroll
    for (int i = 0; i < kSplitsPerLane; ++i) {
      const int part = lane + kWarpSize * i;
      if (part < p.splits) weights[warp][part] = __expf(lse[i] - total);
    }
    __syncwarp();
    for (int part = 0; part < p.splits; ++part) {
      const float weight = weights[warp][part];
      if (weight == 0.0f) continue;  // warp-uniform: a part that saw no key
      const float* o_part =
          p.o_partial + (std::int64_t(part) * p.rows + row) * HeadDim + lane * kColumns;
#pragma unroll
      for (int c = 0; c < kColumns; c += 2) {
        const float2 pair = *reinterpret_cast<const float2*>(o_part + c);
        out[c] = fmaf(weight, pair.x, out[c]);
        out[c + 1] = fmaf(weight, pair.y, out[c + 1]);
      }
    }
  }
  Element* o = static_cast<Element*>(p.o) + row * HeadDim + lane * kColumns;
#pragma unroll
  for (int c = 0; c < kColumns; c += 2)
    *reinterpret_cast<std::uint32_t*>(o + c) = pack_pair<Element>(out[c], out[c + 1]);
  if (lane == 0) p.lse[row] = total;
}

}  // namespace
}  // namespace fa4::kernels::decode
