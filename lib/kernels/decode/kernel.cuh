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

// ---- the partition (core/decode_tiles.hpp) ----

// A CTA's run of key blocks within one row block: its pack (batch * heads_kv + KV head), the
// row block within the pack, the sequence's keys, the first key block and how many; `whole` when
// the run is the row block's every key block (O and LSE are written directly), else the partial
// slot it writes.
struct Segment {
  int pack;
  int row_block;
  int keys;
  int first_block;
  int blocks;
  bool whole;
  int slot;
  __device__ __forceinline__ int row0() const { return row_block * decode_tiles::kBlockM; }
};

template <class Plan>
__device__ __forceinline__ int sequence_keys(const Params& p, const Plan& plan, int b) {
  if constexpr (__is_same(Plan, RaggedPlan))
    return plan.keys[b];
  else
    return p.seqlen_k;
}
template <class Plan>
__device__ __forceinline__ std::int64_t sequence_first_unit(const Params& p, const Plan& plan,
                                                            int b) {
  if constexpr (__is_same(Plan, RaggedPlan))
    return plan.first_unit[b];
  else
    return std::int64_t(b) * p.heads_kv * p.uniform_pack_units;
}
// The sequence unit u belongs to: the last whose first unit is at most u (empty sequences own
// no unit and are passed over).
template <class Plan>
__device__ __forceinline__ int sequence_of_unit(const Params& p, const Plan& plan, std::int64_t u) {
  if constexpr (__is_same(Plan, RaggedPlan)) {
    int low = 0, high = p.rows / (p.heads_q * p.geometry.seqlen_q);  // [low, high): the batch
    while (high - low > 1) {
      const int mid = (low + high) / 2;
      if (plan.first_unit[mid] <= u)
        low = mid;
      else
        high = mid;
    }
    return low;
  } else {
    return int(u / (std::int64_t(p.heads_kv) * p.uniform_pack_units));
  }
}

// The balanced partition's segment at unit u of part c, which ends at unit `end`.
template <class Plan>
__device__ __forceinline__ Segment balanced_segment(const Params& p, const Plan& plan,
                                                    std::int64_t u, std::int64_t end, int c) {
  const decode_tiles::PackGeometry& g = p.geometry;
  const int b = sequence_of_unit(p, plan, u);
  const int keys = sequence_keys(p, plan, b);
  const std::int64_t units_per_pack = decode_tiles::pack_units(g, keys);
  const std::int64_t in_sequence = u - sequence_first_unit(p, plan, b);
  const int head = int(in_sequence / units_per_pack);
  int in_pack = int(in_sequence % units_per_pack);
  int row_block = 0;
  while (in_pack >= decode_tiles::row_block_units(g, keys, row_block))
    in_pack -= decode_tiles::row_block_units(g, keys, row_block++);
  const int units = decode_tiles::row_block_units(g, keys, row_block);
  const int blocks = int(min(end - u, std::int64_t(units - in_pack)));
  const int pack = b * p.heads_kv + head;
  return Segment{pack,
                 row_block,
                 keys,
                 in_pack,
                 blocks,
                 in_pack == 0 && blocks == units,
                 pack * g.row_blocks + row_block + c};
}

// The split partition's one segment of this CTA: row block blockIdx.x, part blockIdx.y of its
// key blocks (possibly none).
template <class Plan>
__device__ __forceinline__ Segment split_segment(const Params& p, const Plan& plan) {
  const decode_tiles::PackGeometry& g = p.geometry;
  const int r = int(blockIdx.x);
  const int pack = r / g.row_blocks;
  const int row_block = r % g.row_blocks;
  const int keys = sequence_keys(p, plan, pack / p.heads_kv);
  const decode_tiles::SplitPart part = decode_tiles::split_part(
      decode_tiles::row_block_units(g, keys, row_block), p.splits, int(blockIdx.y));
  return Segment{pack,
                 row_block,
                 keys,
                 part.first,
                 part.blocks,
                 p.splits == 1,
                 r * p.splits + int(blockIdx.y)};
}

// The segments of this CTA, in order: `visit(segment, next, has_next)`. The balanced partition
// gives every segment at least one key block; the split partition one segment, maybe empty.
template <class Plan, class Visit>
__device__ __forceinline__ void for_each_segment(const Params& p, const Plan& plan, Visit visit) {
  if (!p.balanced) {
    visit(split_segment(p, plan), Segment{}, false);
    return;
  }
  const int c = int(blockIdx.x);
  std::int64_t u = decode_tiles::first_unit(c, p.units, p.parts);
  const std::int64_t end = decode_tiles::first_unit(c + 1, p.units, p.parts);
  if (u >= end) return;
  Segment segment = balanced_segment(p, plan, u, end, c);
  for (;;) {
    u += segment.blocks;
    const bool has_next = u < end;
    const Segment next = has_next ? balanced_segment(p, plan, u, end, c) : Segment{};
    visit(segment, next, has_next);
    if (!has_next) return;
    segment = next;
  }
}

// ---- loads ----

// Q's packed rows of a segment's row block, by TMA (one thread), completing phase `phase` of
// q_full.
template <class T>
__device__ __forceinline__ void load_q(const Params& p, const SharedMap<T>& smem,
                                       const Segment& segment) {
  mbarrier_arrive_expect_tx(smem.q_full(), T::kQBytes);
#pragma unroll
  for (int cb = 0; cb < T::kColumnBlocks; ++cb)
    tma_load_3d(smem.q() + std::uint32_t(cb * T::kQBlockBytes), &p.q_map, smem.q_full(),
                cb * fa3::kColumnBlock, segment.row0(), segment.pack);
}

// K and V of a segment's key blocks from a contiguous cache (lane 0) into the next stages (one
// full barrier for both), running ahead as far as the empty barriers allow.
template <class T>
__device__ __forceinline__ void produce(const Params& p, const SharedMap<T>& smem,
                                        const Segment& segment, PipelineState& stage) {
  for (int i = 0; i < segment.blocks; ++i) {
    mbarrier_wait(smem.empty(stage.index), stage.phase ^ 1u);
    mbarrier_arrive_expect_tx(smem.full(stage.index), T::kStageBytes);
    const int key0 = (segment.first_block + i) * T::kBlockN;
#pragma unroll
    for (int cb = 0; cb < T::kColumnBlocks; ++cb) {
      const std::uint32_t offset = std::uint32_t(cb * T::kKvBlockBytes);
      tma_load_3d(smem.k(stage.index) + offset, &p.k_map, smem.full(stage.index),
                  cb * fa3::kColumnBlock, key0, segment.pack);
      tma_load_3d(smem.v(stage.index) + offset, &p.v_map, smem.full(stage.index),
                  cb * fa3::kColumnBlock, key0, segment.pack);
    }
    stage.template advance<T::kStages>();
  }
}

// The same from a paged cache (the whole warp): a key block is kBlockN / page_rows boxes, one
// per lane, each lane reading its page from the block table before the stage is free, so the
// table's latency hides behind the wait. Boxes wholly past the sequence's keys are not loaded
// (their pages may not exist) and the full barrier expects only the boxes loaded.
template <class T>
__device__ __forceinline__ void produce_paged(const Params& p, const SharedMap<T>& smem,
                                              const Segment& segment, PipelineState& stage) {
  const int lane = int(threadIdx.x) % kWarpSize;
  const int boxes_per_block = T::kBlockN / p.page_rows;
  const int box_bytes = p.page_rows * kSwizzleBytes;
  const int head = segment.pack % p.heads_kv;
  const std::int32_t* table =
      p.block_table + std::int64_t(segment.pack / p.heads_kv) * p.pages_per_sequence;
  for (int i = 0; i < segment.blocks; ++i) {
    const int key0 = (segment.first_block + i) * T::kBlockN;
    const int boxes = min(boxes_per_block, (segment.keys - key0 + p.page_rows - 1) / p.page_rows);
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
  const int causal_shift = keys - p.geometry.seqlen_q;
#pragma unroll
  for (int h = 0; h < kRowsPerThread; ++h) {
    const int row = row0 + 8 * h;
    const int key_end =
        p.geometry.causal ? min(keys, row % p.geometry.seqlen_q + causal_shift + 1) : keys;
#pragma unroll
    for (int j = 0; j < T::kBlockN / 8; ++j)
#pragma unroll
      for (int c = 0; c < 2; ++c)
        if (key0 + 8 * j + 2 * quad_lane + c >= key_end) s[4 * j + 2 * h + c] = kMinusInfinity;
  }
}

// A segment's O (normalized by its own row sums) and LSE: straight into O and LSE when it is its
// row block's whole key range, else into its partial slot. Rows past the pack are not stored; a
// row that saw no key gets O = 0 and LSE = -inf.
template <class T>
__device__ __forceinline__ void store_segment(const Params& p, const float (&o)[T::kORegs],
                                              const fa3::OnlineSoftmax<T>& softmax,
                                              const Segment& segment) {
  using Element = typename T::Element;
  const int local_row0 = fa3::thread_row0(0);
  const int quad_lane = int(threadIdx.x) % 4;
#pragma unroll
  for (int h = 0; h < kRowsPerThread; ++h) {
    float sum = softmax.row_sum[h];
    sum += __shfl_xor_sync(kFullMask, sum, 1);
    sum += __shfl_xor_sync(kFullMask, sum, 2);
    const int local_row = local_row0 + 8 * h;
    const int packed_row = segment.row0() + local_row;
    if (packed_row >= p.geometry.packed_rows) continue;
    const float inverse = sum > 0.0f ? 1.0f / sum : 0.0f;
    const float lse = sum > 0.0f ? (softmax.row_max[h] * p.scale_log2 + __log2f(sum)) * kLn2
                                 : kMinusInfinity;
    if (segment.whole) {
      const std::int64_t row = std::int64_t(segment.pack) * p.geometry.packed_rows + packed_row;
      Element* out = static_cast<Element*>(p.o) + row * T::kHeadDim + 2 * quad_lane;
#pragma unroll
      for (int j = 0; j < T::kHeadDim / 8; ++j)
        *reinterpret_cast<std::uint32_t*>(out + 8 * j) =
            pack_pair<Element>(o[4 * j + 2 * h] * inverse, o[4 * j + 2 * h + 1] * inverse);
      if (quad_lane == 0) p.lse[row] = lse;
    } else {
      const std::int64_t part_row = std::int64_t(segment.slot) * T::kBlockM + local_row;
      float* out = p.o_partial + part_row * T::kHeadDim + 2 * quad_lane;
#pragma unroll
      for (int j = 0; j < T::kHeadDim / 8; ++j)
        *reinterpret_cast<float2*>(out + 8 * j) =
            make_float2(o[4 * j + 2 * h] * inverse, o[4 * j + 2 * h + 1] * inverse);
      if (quad_lane == 0) p.lse_partial[part_row] = lse;
    }
  }
}

// The consumer warpgroup over one segment: per key block S = Q K^T (SS wgmma), mask, online
// softmax, O += P V (RS wgmma), then the stage goes back to the producer. Q of the next segment
// is loaded (by thread 0) as soon as the last S of this one is done with Q, so its latency hides
// behind the last block's softmax, P V and the store.
template <class T>
__device__ __forceinline__ void consume_segment(const Params& p, const SharedMap<T>& smem,
                                                const Segment& segment, const Segment& next,
                                                bool has_next, int index, PipelineState& stage) {
  float o[T::kORegs];
#pragma unroll
  for (int i = 0; i < T::kORegs; ++i) o[i] = 0.0f;
  fa3::OnlineSoftmax<T> softmax;
  softmax.reset();
  if (segment.blocks > 0) {
    float s[T::kSRegs];
    std::uint32_t pr[T::kPRegs];
    float correction[kRowsPerThread];
    const int row0 = fa3::thread_row0(segment.row0());
    const int causal_shift = segment.keys - p.geometry.seqlen_q;
    const bool unwritten_tail = p.block_table != nullptr || p.seqlen_k != segment.keys;
    mbarrier_wait(smem.q_full(), std::uint32_t(index & 1));
    for (int i = 0; i < segment.blocks; ++i) {
      const int key0 = (segment.first_block + i) * T::kBlockN;
      const int key_last = key0 + T::kBlockN - 1;
      mbarrier_wait(smem.full(stage.index), stage.phase);
      fa3::gemm_qk<T>(s, smem.q(), smem.k(stage.index));
      wgmma_wait<0>();
      fence_operands(s);
      if (has_next && i == segment.blocks - 1) {
        named_barrier_sync(kConsumerBarrier, kConsumerWarps * kWarpSize);  // every warp's S done
        if (threadIdx.x == 0) load_q<T>(p, smem, next);
      }
      if (key_last >= segment.keys || (p.geometry.causal && key_last > causal_shift))
        mask_scores<T>(s, key0, row0, segment.keys, p);
      if (unwritten_tail && key_last >= segment.keys)
        zero_v_rows_from<T>(smem.v(stage.index), segment.keys - key0);
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
  store_segment<T>(p, o, softmax, segment);
}

// Lets the combine (launched with programmatic stream serialization) be scheduled once every CTA
// of this grid is resident; it still waits for this grid's completion before reading.
__device__ __forceinline__ void allow_dependent_launch() {
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
}
__device__ __forceinline__ void wait_for_prerequisite_grid() {
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
}

template <class T, class Plan>
__global__ void __launch_bounds__(T::kThreads, 1)
    decode_split_kernel(const __grid_constant__ Params p, const __grid_constant__ Plan plan) {
  extern __shared__ __align__(1024) unsigned char shared_raw[];
  const std::uint32_t raw = smem_u32(shared_raw);
  const SharedMap<T> smem{(raw + kSwizzleAtomBytes - 1) & ~std::uint32_t(kSwizzleAtomBytes - 1)};
  allow_dependent_launch();
  if (threadIdx.x == 0) {
    smem.init_barriers();
    prefetch_tensor_map(&p.q_map);
    prefetch_tensor_map(&p.k_map);
    prefetch_tensor_map(&p.v_map);
  }
  __syncthreads();
  PipelineState stage;
  if (int(threadIdx.x) / kWarpSize == kProducerWarp) {
    const bool lane0 = threadIdx.x % kWarpSize == 0;
    if (!p.block_table && !lane0) return;
    for_each_segment(p, plan, [&](const Segment& segment, const Segment&, bool) {
      if (p.block_table)
        produce_paged<T>(p, smem, segment, stage);
      else
        produce<T>(p, smem, segment, stage);
    });
  } else {
    int index = 0;
    for_each_segment(p, plan, [&](const Segment& segment, const Segment& next, bool has_next) {
      if (index == 0 && threadIdx.x == 0 && segment.blocks > 0) load_q<T>(p, smem, segment);
      consume_segment<T>(p, smem, segment, next, has_next, index++, stage);
    });
  }
}

// ---- combine: one warp per row ----

inline constexpr int kCombineWarps = 4;
inline constexpr int kPartsPerLane = decode_tiles::kMaxParts / kWarpSize;

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

// The partial slots of a row block: the first and how many; count 0 when a CTA wrote O and LSE
// directly; -1 when no CTA saw the row block (no key: O = 0, LSE = -inf here).
struct Slots {
  std::int64_t first;
  int count;
};
template <class Plan>
__device__ __forceinline__ Slots slots_of(const Params& p, const Plan& plan, int pack,
                                          int row_block) {
  const decode_tiles::PackGeometry& g = p.geometry;
  const std::int64_t r = std::int64_t(pack) * g.row_blocks + row_block;
  if (!p.balanced) return Slots{r * p.splits, p.splits};
  const int b = pack / p.heads_kv;
  const int keys = sequence_keys(p, plan, b);
  const int units = decode_tiles::row_block_units(g, keys, row_block);
  if (units == 0) return Slots{0, -1};
  const std::int64_t first = sequence_first_unit(p, plan, b) +
                             (pack % p.heads_kv) * decode_tiles::pack_units(g, keys) +
                             decode_tiles::units_before(g, keys, row_block);
  const std::int64_t c_lo = decode_tiles::part_of(first, p.units, p.parts);
  const std::int64_t c_hi = decode_tiles::part_of(first + units - 1, p.units, p.parts);
  return Slots{r + c_lo, c_lo == c_hi ? 0 : int(c_hi - c_lo + 1)};
}

// O = sum over parts of exp(LSE_part - LSE) * O_part with LSE = log sum exp(LSE_part); a row no
// part saw a key for gets O = 0 and LSE = -inf. Lane l owns head dims [l * d / 32, (l + 1) * d
// / 32).
template <typename Element, int HeadDim, class Plan>
__global__ void __launch_bounds__(kCombineWarps* kWarpSize)
    decode_combine_kernel(const __grid_constant__ Params p, const __grid_constant__ Plan plan) {
  constexpr int kColumns = HeadDim / kWarpSize;
  __shared__ float weights[kCombineWarps][decode_tiles::kMaxParts];
  wait_for_prerequisite_grid();
  const int warp = int(threadIdx.x) / kWarpSize;
  const int lane = int(threadIdx.x) % kWarpSize;
  const std::int64_t row = std::int64_t(blockIdx.x) * kCombineWarps + warp;
  if (row >= p.rows) return;
  const decode_tiles::PackGeometry& g = p.geometry;
  const int t = int(row % g.seqlen_q);
  const int head = int(row / g.seqlen_q % p.heads_q);
  const int b = int(row / (std::int64_t(g.seqlen_q) * p.heads_q));
  const int group = p.heads_q / p.heads_kv;
  const int pack = b * p.heads_kv + head / group;
  const int packed_row = head % group * g.seqlen_q + t;
  const Slots slots = slots_of(p, plan, pack, packed_row / decode_tiles::kBlockM);
  if (slots.count == 0) return;  // written by the CTA that saw the whole row block
  const std::int64_t local_row = packed_row % decode_tiles::kBlockM;

  float lse[kPartsPerLane];
  float max_lse = kMinusInfinity;
#pragma unroll
  for (int i = 0; i < kPartsPerLane; ++i) {
    const int part = lane + kWarpSize * i;
    lse[i] = part < slots.count
                 ? p.lse_partial[(slots.first + part) * decode_tiles::kBlockM + local_row]
                 : kMinusInfinity;
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
    for (int i = 0; i < kPartsPerLane; ++i) sum += __expf(lse[i] - max_lse);
    total = max_lse + __logf(warp_sum(sum));
#pragma unroll
    for (int i = 0; i < kPartsPerLane; ++i) {
      const int part = lane + kWarpSize * i;
      if (part < slots.count) weights[warp][part] = __expf(lse[i] - total);
    }
    __syncwarp();
    for (int part = 0; part < slots.count; ++part) {
      const float weight = weights[warp][part];
      if (weight == 0.0f) continue;  // warp-uniform: a part that saw no key
      const float* o_part = p.o_partial +
                            ((slots.first + part) * decode_tiles::kBlockM + local_row) * HeadDim +
                            lane * kColumns;
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
