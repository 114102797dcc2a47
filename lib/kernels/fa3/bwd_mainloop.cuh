// fa3_bwd's mainloop: the shared-memory map, the producer warpgroup's two roles (TMA loads, the
// dQ bulk reduce) and one consumer warpgroup's step over a query
// block (five GEMMs, the recomputed softmax and dS). fa3_bwd.cu's header has the algorithm.
//
// Consumer warpgroup w owns keys 64w..64w+63 of the CTA's key block, the M dimension of its
// transposed products, in the wgmma accumulator layout (softmax.cuh): with warp v of the
// warpgroup, g = lane / 4, t = lane % 4, register 4j + 2h + c holds (key 16v + g + 8h, column
// 8j + 2t + c), columns being queries for S^T, dP^T and head dims for dV, dK.
#pragma once

#include "kernels/bwd_common.hpp"
#include "kernels/fa3/bwd_tile_scheduler.cuh"
#include "kernels/fa3/bwd_traits.cuh"
#include "kernels/fa3/softmax.cuh"
#include "kernels/fa3/wgmma.cuh"

namespace fa4::kernels::fa3 {

template <class T>
struct BwdSharedMap {
  std::uint32_t base;  // 1024-byte aligned
  __device__ __forceinline__ std::uint32_t k() const { return base + T::kKOffset; }
  __device__ __forceinline__ std::uint32_t v() const { return base + T::kVOffset; }
  __device__ __forceinline__ std::uint32_t q(int s) const {
    return base + T::kQOffset + std::uint32_t(s * T::kQBytes);
  }
  __device__ __forceinline__ std::uint32_t dout(int s) const {
    return base + T::kDoOffset + std::uint32_t(s * T::kQBytes);
  }
  __device__ __forceinline__ std::uint32_t ds(int s) const {
    return base + T::kDsOffset + std::uint32_t(s * T::kDsBytes);
  }
  __device__ __forceinline__ std::uint32_t dq() const { return base + T::kDqOffset; }
  __device__ __forceinline__ std::uint32_t lse(int s) const {
    return base + T::kLseOffset + std::uint32_t(s * T::kBlockM * 4);
  }
  __device__ __forceinline__ std::uint32_t delta(int s) const {
    return base + T::kDeltaOffset + std::uint32_t(s * T::kBlockM * 4);
  }
  __device__ __forceinline__ std::uint32_t barrier(int i) const {
    return base + T::kBarrierOffset + std::uint32_t(8 * i);
  }
  // The schedule's slots (bwd_traits.cuh): the claimed tile (the consumers'), and the reduce
  // warp's ring of the same tiles.
  __device__ __forceinline__ std::uint32_t tile_slot() const { return base + T::kScheduleOffset; }
  __device__ __forceinline__ std::uint32_t reduce_tile_slot(int s) const {
    return base + T::kScheduleOffset + std::uint32_t((1 + s) * T::kScheduleSlotBytes);
  }
  __device__ __forceinline__ std::uint32_t kv_full() const { return barrier(0); }
  __device__ __forceinline__ std::uint32_t kv_empty() const { return barrier(1); }
  __device__ __forceinline__ std::uint32_t dq_full() const { return barrier(2); }
  __device__ __forceinline__ std::uint32_t dq_empty() const { return barrier(3); }
  __device__ __forceinline__ std::uint32_t q_full(int s) const { return barrier(4 + s); }
  __device__ __forceinline__ std::uint32_t q_empty(int s) const {
    return barrier(4 + T::kStages + s);
  }
  __device__ __forceinline__ std::uint32_t do_full(int s) const {
    return barrier(4 + 2 * T::kStages + s);
  }
  __device__ __forceinline__ std::uint32_t do_empty(int s) const {
    return barrier(4 + 3 * T::kStages + s);
  }
  __device__ __forceinline__ std::uint32_t reduce_tile_full(int s) const {
    return barrier(4 + 4 * T::kStages + s);
  }
  __device__ __forceinline__ std::uint32_t reduce_tile_empty(int s) const {
    return barrier(6 + 4 * T::kStages + s);
  }

  // Arrivals: full barriers, the TMA thread (plus the copies' bytes); K/V empty, one thread per
  // consumer warpgroup once its dK/dV store has read K's and V's buffers; Q, dO empty, one per
  // consumer warp; dQ full, every consumer thread (each fences its staging writes for the async
  // proxy); dQ empty, the reduce warp's lane 0; the reduce warp's tile ring, the TMA thread
  // (full, plus the index copy's bytes) and the reduce warp's lane 0 (empty).
  __device__ __forceinline__ void init_barriers() const {
    mbarrier_init(kv_full(), 1);
    mbarrier_init(kv_empty(), kConsumerWarpgroups);
    mbarrier_init(dq_full(), kConsumerThreads);
    mbarrier_init(dq_empty(), 1);
#pragma unroll
    for (int s = 0; s < T::kStages; ++s) {
      mbarrier_init(q_full(s), 1);
      mbarrier_init(q_empty(s), T::kConsumerWarps);
      mbarrier_init(do_full(s), 1);
      mbarrier_init(do_empty(s), T::kConsumerWarps);
    }
#pragma unroll
    for (int s = 0; s < 2; ++s) {
      mbarrier_init(reduce_tile_full(s), 1);
      mbarrier_init(reduce_tile_empty(s), 1);
    }
    fence_barrier_init();
  }
};

// ---- producer warpgroup ----

// One tile's loads (load_tiles below).
inline constexpr std::uint32_t kTileIndexBytes = 16;  // one entry of the tile-index table

template <class T>
__device__ __forceinline__ void load_tile(const BwdParams& p, const BwdSharedMap<T>& smem,
                                          const BwdTile& tile, PipelineState& ring) {
  const int bh_kv_load = tile.bh_kv / p.kv_load_group;
#pragma unroll
  for (int cb = 0; cb < T::kColumnBlocks; ++cb) {
    const std::uint32_t offset = std::uint32_t(cb * T::kKvBlockBytes);
    tma_load_3d(smem.k() + offset, &p.k_map, smem.kv_full(), cb * kColumnBlock,
                tile.n_block * T::kBlockN, bh_kv_load);
    if constexpr (T::kLoadsV)
      tma_load_3d(smem.v() + offset, &p.v_map, smem.kv_full(), cb * kColumnBlock,
                  tile.n_block * T::kBlockN, bh_kv_load);
  }
  BwdQueryBlock qb = query_block(p, tile, 0);
#pragma unroll 1
  for (int i = 0; i < tile.iterations; ++i) {
    const int m0 = qb.m_block * T::kBlockM;
    const auto load_q = [&]() {
      mbarrier_wait(smem.q_empty(ring.index), ring.phase ^ 1u);
      mbarrier_arrive_expect_tx(smem.q_full(ring.index), T::kQBytes + T::kStatBytes);
#pragma unroll
      for (int cb = 0; cb < T::kColumnBlocks; ++cb)
        tma_load_3d(smem.q(ring.index) + std::uint32_t(cb * T::kQBlockBytes), &p.q_map,
                    smem.q_full(ring.index), cb * kColumnBlock, m0, qb.bh_q);
      tma_load_2d(smem.lse(ring.index), &p.lse_map, smem.q_full(ring.index), m0, qb.bh_q);
    };
    const auto load_do = [&]() {
      mbarrier_wait(smem.do_empty(ring.index), ring.phase ^ 1u);
      mbarrier_arrive_expect_tx(smem.do_full(ring.index),
                                T::kQBytes + (T::kDkDq ? T::kStatBytes : 0));
#pragma unroll
      for (int cb = 0; cb < T::kColumnBlocks; ++cb)
        tma_load_3d(smem.dout(ring.index) + std::uint32_t(cb * T::kQBlockBytes), &p.do_map,
                    smem.do_full(ring.index), cb * kColumnBlock, m0, qb.bh_q);
      if constexpr (T::kDkDq)  // D, for dS^T
        tma_load_2d(smem.delta(ring.index), &p.delta_map, smem.do_full(ring.index), m0, qb.bh_q);
    };
    if constexpr (T::kLoadDoFirst) {
      load_do();
      load_q();
    } else {
      load_q();
      load_do();
    }
    ring.template advance<T::kStages>();
    if (++qb.m_block == p.m_blocks) {  // the next query head of the group
      qb.m_block = tile.m_first;
      ++qb.bh_q;
    }
  }
}

// Warp 0, lane 0, for each tile it claims: the tile's index into the reduce warp's ring
// (kBulkReduce); once the consumers are done with the last tile's K and V buffers, the index into
// the consumers' slot, then K and V (K alone in the dV pass), all completing kv_full's
// transactions, then Q with its rows' LSE * log2 e, and dO with its rows' D (dO alone in the dV
// pass; dO first in the dK/dQ pass), of every query iteration into the ring (the padded workspace
// rows need no bounds checks). An index travels as a TMA copy of its entry in the
// identity table (p.tile_id_map), so the slot is written by the TMA unit as K and V are, and the
// barrier's wait orders it for every reader (a thread's store would be a hazard to racecheck,
// which does not model the barrier). Past the last tile, the index p.tiles alone ends the
// consumers' and the reduce warp's loops.
template <class T>
__device__ __forceinline__ void load_tiles(const BwdParams& p, const BwdSharedMap<T>& smem) {
  PipelineState ring;
  int t = first_tile();
#pragma unroll 1
  for (std::uint32_t tiles_done = 0;; ++tiles_done, t = claim_next_tile(p)) {
    const bool last = t >= p.tiles;
    const int index = last ? p.tiles : t;
    if constexpr (T::kBulkReduce) {  // the reduce warp's copy, two tiles deep
      const int slot = int(tiles_done & 1u);
      mbarrier_wait(smem.reduce_tile_empty(slot), ((tiles_done >> 1) & 1u) ^ 1u);
      mbarrier_arrive_expect_tx(smem.reduce_tile_full(slot), kTileIndexBytes);
      tma_load_2d(smem.reduce_tile_slot(slot), &p.tile_id_map, smem.reduce_tile_full(slot), 0,
                  index);
    }
    mbarrier_wait(smem.kv_empty(), (tiles_done & 1u) ^ 1u);
    mbarrier_arrive_expect_tx(smem.kv_full(),
                              kTileIndexBytes + (last ? 0 : T::kKeyBlockLoadBytes));
    tma_load_2d(smem.tile_slot(), &p.tile_id_map, smem.kv_full(), 0, index);
    if (last) return;
    load_tile<T>(p, smem, tile_at<T>(p, index), ring);
  }
}

// Warp 1's lane 0 (kBulkReduce): for each tile the producer hands it (an index past the last ends
// the loop), adds each query iteration's dQ tile, staged by the consumers, into the float32
// accumulator, one tensor reduce-add per 32-column box (padding rows included: never read).
template <class T>
__device__ __forceinline__ void reduce_dq(const BwdParams& p, const BwdSharedMap<T>& smem) {
  std::uint32_t staged_tiles = 0;
#pragma unroll 1
  for (std::uint32_t tiles = 0;; ++tiles) {
    const int slot = int(tiles & 1u);
    mbarrier_wait(smem.reduce_tile_full(slot), (tiles >> 1) & 1u);
    const int t = int(ld_shared_u32(smem.reduce_tile_slot(slot)));
    mbarrier_arrive(smem.reduce_tile_empty(slot));
    if (t >= p.tiles) break;
    const BwdTile tile = tile_at<T>(p, t);
#pragma unroll 1
    for (int i = 0; i < tile.iterations; ++i, ++staged_tiles) {
      const BwdQueryBlock qb = query_block(p, tile, i);
      mbarrier_wait(smem.dq_full(), staged_tiles & 1u);
#pragma unroll
      for (int box = 0; box < T::kDqBoxes; ++box)
        tma_reduce_add_4d(&p.dq_map, smem.dq() + std::uint32_t(box * T::kDqBoxBytes),
                          box * T::kDqBoxColumns, 0, qb.m_block * T::kBlockM, qb.bh_q);
      tma_store_commit();
      tma_store_wait_read();
      mbarrier_arrive(smem.dq_empty());
    }
  }
  tma_store_wait_all();
}

// ---- consumer GEMMs (one warpgroup) ----

// A k step's byte offset as an addend to a descriptor's start-address field (bits 0-13, address
// >> 4; shared addresses stay under 2^18, so the field never carries). Each step's descriptor is
// then the operand's one descriptor plus a constant: computed from the address per step instead,
// ptxas keeps every step's 64-bit descriptor of the loop-invariant K and V operands live across the
// query loop, and the registers that takes make it serialize the wgmmas (C7512) or spill.
__device__ __forceinline__ std::uint64_t step_field(int bytes) { return std::uint64_t(bytes >> 4); }

// acc (64 x N) = A B^T over `steps` k16 slices, both operands K-major in shared memory (A rows
// `a_rows` apart per column block, B's column blocks `b_block_bytes` apart).
template <int N, bool IsBf16, int Steps, int ABlockBytes, int BBlockBytes, bool TransposedB>
__device__ __forceinline__ void gemm_ss(float (&acc)[N / 2], std::uint32_t a, std::uint32_t b,
                                        bool accumulate) {
  fence_operands(acc);
  wgmma_fence();
#pragma unroll
  for (int ks = 0; ks < Steps; ++ks) {
    const int cb = ks / (kColumnBlock / kMmaK);
    const int in_block = (ks % (kColumnBlock / kMmaK)) * kMmaK * 2;
    const std::uint64_t desc_a = kmajor_descriptor(a) + step_field(cb * ABlockBytes + in_block);
    if constexpr (TransposedB) {
      // B N-major (K as B for dQ = dS K): 16 k rows per step, column blocks BBlockBytes apart.
      Wgmma<N, IsBf16>::ss_tb(
          acc, desc_a, mnmajor_descriptor(b, BBlockBytes) + step_field(ks * kMmaK * kSwizzleBytes),
          accumulate || ks > 0);
    } else {
      Wgmma<N, IsBf16>::ss(acc, desc_a,
                           kmajor_descriptor(b) + step_field(cb * BBlockBytes + in_block),
                           accumulate || ks > 0);
    }
  }
  wgmma_commit();
  fence_operands(acc);
}

// acc (64 keys x d) += A B: A (keys x queries) from registers, B (queries x d) N-major in shared
// memory (Q or dO, column blocks kQBlockBytes apart). Issued only: the caller fences and commits.
template <class T>
__device__ __forceinline__ void rs_issue(float (&acc)[T::kAccRegs], std::uint32_t (&a)[T::kPRegs],
                                         std::uint32_t b) {
  fence_operands(acc);
  fence_operands(a);
  wgmma_fence();
#pragma unroll
  for (int ks = 0; ks < T::kBlockM / kMmaK; ++ks) {
    const std::uint32_t frag[4] = {a[4 * ks], a[4 * ks + 1], a[4 * ks + 2], a[4 * ks + 3]};
    Wgmma<T::kHeadDim, T::kIsBf16>::rs(
        acc, frag, mnmajor_descriptor(b, T::kQBlockBytes) + step_field(ks * T::kRowStepBytes), 1);
  }
}
template <class T>
__device__ __forceinline__ void gemm_rs(float (&acc)[T::kAccRegs], std::uint32_t (&a)[T::kPRegs],
                                        std::uint32_t b) {
  rs_issue<T>(acc, a, b);
  wgmma_commit();
  fence_operands(acc);
}

template <class T>
__device__ __forceinline__ void convert_pairs(const float (&x)[T::kSRegs],
                                              std::uint32_t (&packed)[T::kPRegs]) {
#pragma unroll
  for (int i = 0; i < T::kPRegs; ++i)
    packed[i] = pack_pair<typename T::Element>(x[2 * i], x[2 * i + 1]);
}

// dS^T (this warpgroup's 64 keys x kBlockM queries, packed) into column block w of the dS tile,
// transposed to [query][key] with the 128-byte swizzle (stmatrix .trans: conflict-free).
template <class T>
__device__ __forceinline__ void store_ds(const std::uint32_t (&ds)[T::kPRegs], std::uint32_t tile,
                                         int wg) {
  const int lane = int(threadIdx.x) % kWarpSize;
  const int warp = (int(threadIdx.x) % kWarpgroupThreads) / kWarpSize;
  const int matrix = lane / 8;
  const int row = lane % 8;
  const int chunk = 2 * warp + matrix % 2;  // keys 16 warp + 8 (matrix % 2) .. +7
  const std::uint32_t block = tile + std::uint32_t(wg * T::kDsBlockBytes);
#pragma unroll
  for (int j = 0; j < T::kBlockM / 8; j += 2) {
    const int query = 8 * (j + matrix / 2) + row;
    stmatrix_x4_trans(block + std::uint32_t(query * kSwizzleBytes + ((chunk ^ row) * 16)),
                      ds[2 * j], ds[2 * j + 1], ds[2 * j + 2], ds[2 * j + 3]);
  }
}

// One warp lane signals that its warp is done with a buffer (empty barriers count warps).
__device__ __forceinline__ void release_buffer(std::uint32_t empty_barrier) {
  if (threadIdx.x % kWarpSize == 0) mbarrier_arrive(empty_barrier);
}

struct BwdConsumerState {
  PipelineState ring;
  std::uint32_t iterations = 0;  // query iterations so far (dS stage, dQ staging phase)
  std::uint32_t tiles = 0;
};

// A 64-column chunk of this warpgroup's dQ out: into the staging tile for the reduce warp, or
// atomics.
template <class T>
__device__ __forceinline__ void emit_dq(const BwdParams& p, const BwdSharedMap<T>& smem,
                                        const float (&dq)[T::kDqRegs], int row0, int col0, int bh_q,
                                        int m0, std::uint32_t iteration) {
  const int lane = int(threadIdx.x) % kWarpSize;
  const int g = lane / 4, t = lane % 4;
  const int warp_row = row0 + (int(threadIdx.x) % kWarpgroupThreads) / kWarpSize * 16 + g;
  if constexpr (T::kBulkReduce) {
    // Columns col0 + 8j + 2t, +1 of row r: box (col0 + 8j) / 32, box row q = 2 (r % kDqHalfRows)
    // + r / kDqHalfRows, 16-byte chunk (2 (j % 4) + t / 2) ^ (q % 8). q % 8 = 2 (g % 4) + r /
    // kDqHalfRows: a half warp's four rows take four distinct chunk pairs, one wavefront per
    // half warp. The chunk's j part is an XOR of the row's address (boxes and rows are 128-byte
    // aligned).
    mbarrier_wait(smem.dq_empty(), (iteration & 1u) ^ 1u);
#pragma unroll
    for (int h = 0; h < kRowsPerThread; ++h) {
      const int r = warp_row + 8 * h;
      const int q = 2 * (r % T::kDqHalfRows) + r / T::kDqHalfRows;
      const std::uint32_t row =
          smem.dq() + std::uint32_t(col0 / T::kDqBoxColumns * T::kDqBoxBytes + q * kSwizzleBytes +
                                    ((t / 2) ^ (q % 8)) * 16 + 8 * (t % 2));
#pragma unroll
      for (int j = 0; j < kColumnBlock / 8; ++j) {
        const std::uint32_t at =
            (row ^ std::uint32_t((j % 4) * 32)) + std::uint32_t(j / 4 * T::kDqBoxBytes);
        asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(at), "f"(dq[4 * j + 2 * h]),
                     "f"(dq[4 * j + 2 * h + 1])
                     : "memory");
      }
    }
    fence_proxy_async_shared();
    mbarrier_arrive(smem.dq_full());
  } else {
    // The warp's 16 rows x 8 columns 8j .. 8j + 7 are one tile of the accumulator's mma_tiles
    // order (bwd_common.hpp), in the accumulator's own order: registers 4j .. 4j + 3 at 4 * lane.
    float* out = p.dq_accum + std::int64_t(bh_q) * p.rows_padded * T::kHeadDim +
                 bwd::dq_tile_offset(m0 + warp_row - g, col0, T::kHeadDim) + 4 * lane;
#pragma unroll
    for (int j = 0; j < kColumnBlock / 8; ++j)
      atomicAdd(reinterpret_cast<float4*>(out + bwd::dq_tile_offset(0, 8 * j, T::kHeadDim)),
                make_float4(dq[4 * j], dq[4 * j + 1], dq[4 * j + 2], dq[4 * j + 3]));
  }
}

// A query block's per-row statistic (LSE * log2 e, or D) at this thread's accumulator columns:
// columns 8j + 2t and 8j + 2t + 1 in registers 2j and 2j + 1.
template <class T>
__device__ __forceinline__ void load_row_stats(std::uint32_t stats, float (&r)[T::kStatRegs]) {
  const int t = int(threadIdx.x) % 4;
#pragma unroll
  for (int j = 0; j < T::kBlockM / 8; ++j)
    asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];\n"
                 : "=f"(r[2 * j]), "=f"(r[2 * j + 1])
                 : "r"(stats + std::uint32_t((8 * j + 2 * t) * 4)));
}

// P^T = 2^(S^T scale log2 e - LSE log2 e) in place (`lse`: load_row_stats); keys past seqlen_k
// or past a query's causal limit get 0. `key0`: this thread's first key row; m0: the query
// block's first row.
template <class T>
__device__ __forceinline__ void probabilities(const BwdParams& p, float (&s)[T::kSRegs],
                                              const float (&lse)[T::kStatRegs], int key0,
                                              int n_block, int m0) {
  const int t = int(threadIdx.x) % 4;
#pragma unroll
  for (int j = 0; j < T::kBlockM / 8; ++j) {
#pragma unroll
    for (int h = 0; h < kRowsPerThread; ++h) {
      s[4 * j + 2 * h] = fast_exp2(fmaf(s[4 * j + 2 * h], p.scale_log2, -lse[2 * j]));
      s[4 * j + 2 * h + 1] = fast_exp2(fmaf(s[4 * j + 2 * h + 1], p.scale_log2, -lse[2 * j + 1]));
    }
  }
  const int causal_shift = p.seqlen_k - p.seqlen_q;
  const int key_end = n_block * T::kBlockN + T::kBlockN;
  if (key_end > p.seqlen_k || (p.causal && key_end - 1 > m0 + causal_shift)) {
#pragma unroll
    for (int h = 0; h < kRowsPerThread; ++h) {
      const int key = key0 + 8 * h;
      const int first_query = p.causal ? key - causal_shift : 0;  // query >= this sees the key
#pragma unroll
      for (int j = 0; j < T::kBlockM / 8; ++j)
#pragma unroll
        for (int c = 0; c < 2; ++c)
          if (key >= p.seqlen_k || m0 + 8 * j + 2 * t + c < first_query)
            s[4 * j + 2 * h + c] = 0.0f;
    }
  }
}

// dS^T = P^T o (dP^T - D), packed to 16-bit pairs (`delta`: load_row_stats), and P^T packed
// too where `PackP`: one column pair at a time, so that the float32 tiles die as the packed ones
// fill (registers: P^T, dP^T and the packed tiles are never all live at once).
template <class T, bool PackP>
__device__ __forceinline__ void pack_score_gradients(const float (&pt)[T::kSRegs],
                                                     const float (&dpt)[T::kSRegs],
                                                     const float (&delta)[T::kStatRegs],
                                                     std::uint32_t (&dsp)[T::kPRegs],
                                                     std::uint32_t (&pp)[T::kPRegs]) {
  using Element = typename T::Element;
#pragma unroll
  for (int j = 0; j < T::kBlockM / 8; ++j) {
#pragma unroll
    for (int h = 0; h < kRowsPerThread; ++h) {
      const int k = 4 * j + 2 * h;
      dsp[2 * j + h] = pack_pair<Element>(pt[k] * (dpt[k] - delta[2 * j]),
                                          pt[k + 1] * (dpt[k + 1] - delta[2 * j + 1]));
      if constexpr (PackP) pp[2 * j + h] = pack_pair<Element>(pt[k], pt[k + 1]);
    }
  }
}

// Consumer warpgroup `wg`'s query loop over one tile: dV (and/or dK, dQ as T::kOutputs says)
// for the CTA's key block. With dK and dQ, per query iteration i (commit groups complete in order;
// all but the dP wait leave the group issued last in flight):
//   issue S(i); wait dK(i-1) (free Q, dO of i-1); issue dP(i); wait S(i); P(i) (exp2, while
//   dP(i) runs); wait dP(i); dS(i) and P(i) packed, dS(i) to shared memory; issue dV(i);
//   bar.sync (while dV(i) runs); issue dQ(i), dK(i); wait dQ(i) and hand it on (while dK(i) runs).
// hd256's dK/dQ pass (no dV) frees dO(i) at dP(i)'s wait and Q(i) at dK(i)'s, issued before dQ(i),
// so that both of the next block's loads run under this block's work on its one ring stage.
// No wgmma stays in flight on one path of a branch only, and no register set outlives its wait:
// ptxas serializes every wgmma of the kernel otherwise (warnings C7514, C7512; run 2's loop issued
// S(i+1) under `if` and got C7514). NOTES_BWD.md (run 4) has the variants tried.
template <class T>
__device__ __forceinline__ void consume_tile(const BwdParams& p, const BwdSharedMap<T>& smem,
                                             BwdConsumerState& st, int wg, const BwdTile& tile,
                                             float (&dv)[T::kAccRegs], float (&dk)[T::kAccRegs]) {
  const std::uint32_t k_wg = smem.k() + std::uint32_t(wg * T::kWarpgroupKvBytes);
  const std::uint32_t v_wg = smem.v() + std::uint32_t(wg * T::kWarpgroupKvBytes);
  const int key0 = tile.n_block * T::kBlockN + wg * kBwdKeysPerWarpgroup +
                   (int(threadIdx.x) % kWarpgroupThreads) / kWarpSize * 16 +
                   (int(threadIdx.x) % kWarpSize) / 4;
  float s[T::kSRegs];
  float dp[T::kSRegs];
  std::uint32_t pp[T::kPRegs];
  std::uint32_t dsp[T::kPRegs];
  float stats[T::kStatRegs];  // the query block's LSE * log2 e, then its D
  const auto issue_s = [&](const PipelineState& at) {
    mbarrier_wait(smem.q_full(at.index), at.phase);
    gemm_ss<T::kBlockM, T::kIsBf16, T::kHeadDim / kMmaK, T::kKvBlockBytes, T::kQBlockBytes, false>(
        s, k_wg, smem.q(at.index), false);
  };
  // The no-overlap ablation waits for each GEMM as soon as it is issued (the loop's own waits
  // then find nothing in flight).
  const auto wait_if_serial = [&]() {
    if constexpr (!T::kOverlapGemms) wgmma_wait<0>();
  };
  const auto release_stage = [&](int index) {
    release_buffer(smem.q_empty(index));
    release_buffer(smem.do_empty(index));
  };

  if constexpr (!T::kDkDq) {
    // dV alone (hd256's first pass), per query iteration i: issue S(i); wait dV(i-1) (free dO of
    // i-1); wait S(i) (free Q(i): a later block loads into its stage under P(i) and dV(i)); P(i);
    // issue dV(i), which runs under the next iteration's issue and waits.
    int previous = 0;  // the ring stage of iteration i - 1
    for (int i = 0; i < tile.iterations; ++i) {
      const BwdQueryBlock qb = query_block(p, tile, i);
      const PipelineState at = st.ring;
      issue_s(at);
      wgmma_wait<1>();  // dV(i-1); S(i) runs on
      fence_operands(dv);
      fence_operands(pp);
      if (i > 0) release_buffer(smem.do_empty(previous));
      load_row_stats<T>(smem.lse(at.index), stats);
      wgmma_wait<0>();  // S(i)
      fence_operands(s);
      release_buffer(smem.q_empty(at.index));
      probabilities<T>(p, s, stats, key0, tile.n_block, qb.m_block * T::kBlockM);
      mbarrier_wait(smem.do_full(at.index), at.phase);
      convert_pairs<T>(s, pp);
      gemm_rs<T>(dv, pp, smem.dout(at.index));
      wait_if_serial();
      previous = at.index;
      st.ring.template advance<T::kStages>();
    }
    wgmma_wait<0>();
    fence_operands(dv);
    if (tile.iterations > 0) release_buffer(smem.do_empty(previous));
    return;
  } else {
    int previous = 0;  // the ring stage of iteration i - 1
    const auto free_previous = [&]() {
      fence_operands(dsp);
      fence_operands(dk);
      if constexpr (T::kDv) fence_operands(dv);
      release_stage(previous);
    };
    BwdQueryBlock qb = query_block(p, tile, 0);
    for (int i = 0; i < tile.iterations; ++i) {
      const int m0 = qb.m_block * T::kBlockM;
      const PipelineState at = st.ring;
      // With dV, iteration i frees Q and dO of i - 1 together at dK(i-1)'s wait; one ring stage
      // (the ablation): Q(i) lands in the stage that iteration i - 1 frees. Without dV, each
      // iteration frees its own dO and Q (below).
      if (T::kDv && T::kStages == 1 && i > 0) {
        wgmma_wait<0>();  // dK(i-1)
        free_previous();
      }
      issue_s(at);
      wait_if_serial();
      if (T::kDv && T::kStages > 1 && i > 0) {
        wgmma_wait<1>();  // dK(i-1) (and dV(i-1), dQ(i-1) before it); S(i) runs on
        free_previous();
      }
      mbarrier_wait(smem.do_full(at.index), at.phase);
      gemm_ss<T::kBlockM, T::kIsBf16, T::kHeadDim / kMmaK, T::kKvBlockBytes, T::kQBlockBytes,
              false>(dp, v_wg, smem.dout(at.index), false);
      wait_if_serial();
      wgmma_wait<1>();  // S(i)
      fence_operands(s);
      load_row_stats<T>(smem.lse(at.index), stats);
      probabilities<T>(p, s, stats, key0, tile.n_block, m0);
      wgmma_wait<0>();  // dP(i)
      fence_operands(dp);
      load_row_stats<T>(smem.delta(at.index), stats);
      if constexpr (!T::kDv) release_buffer(smem.do_empty(at.index));  // dO(i+1) loads from here
      pack_score_gradients<T, T::kDv>(s, dp, stats, dsp, pp);
      const std::uint32_t ds_tile = smem.ds(int(st.iterations % T::kDsStages));
      store_ds<T>(dsp, ds_tile, wg);
      if constexpr (T::kDv) gemm_rs<T>(dv, pp, smem.dout(at.index));  // dV += P^T dO
      wait_if_serial();
      // Both warpgroups' dS columns are in shared memory before either reads the whole tile.
      fence_proxy_async_shared();
      named_barrier_sync(kDsReadyBarrier, kConsumerThreads);
      const int dq_row0 = T::kDqSplitRows ? wg * kMmaM : 0;
      const int dq_col0 = T::kDqSplitRows ? 0 : wg * T::kDqCols;
      float dq[T::kDqRegs];
      const auto issue_dq = [&](int col0) {
        gemm_ss<kColumnBlock, T::kIsBf16, T::kBlockN / kMmaK, T::kDsBlockBytes, T::kKvBlockBytes,
                true>(dq, ds_tile + std::uint32_t(dq_row0 * kSwizzleBytes),
                      smem.k() + std::uint32_t(col0 / kColumnBlock * T::kKvBlockBytes), false);
        wait_if_serial();
      };
      const auto issue_dk = [&]() {
        gemm_rs<T>(dk, dsp, smem.q(at.index));  // dK += dS^T Q
        wait_if_serial();
      };
      if constexpr (T::kDv) {
        issue_dq(dq_col0);
        issue_dk();
        wgmma_wait<1>();  // dQ(i) and dV(i); dK(i) runs on
        fence_operands(pp);
      } else {
        // dK first: Q(i) is free once it is done, and Q(i+1) loads under dQ(i).
        issue_dk();
        issue_dq(dq_col0);
        wgmma_wait<1>();  // dK(i); dQ(i) runs on
        fence_operands(dk);
        fence_operands(dsp);
        release_buffer(smem.q_empty(at.index));
        wgmma_wait<0>();  // dQ(i)
      }
      fence_operands(dq);
      emit_dq<T>(p, smem, dq, dq_row0, dq_col0, qb.bh_q, m0, st.iterations);
      // Further 64-column chunks (hd256): issued and reduced one after the other.
#pragma unroll
      for (int chunk = 1; chunk < T::kDqChunks; ++chunk) {
        const int col0 = dq_col0 + chunk * kColumnBlock;
        issue_dq(col0);
        wgmma_wait<0>();
        fence_operands(dq);
        emit_dq<T>(p, smem, dq, dq_row0, col0, qb.bh_q, m0, st.iterations);
      }
      previous = at.index;
      st.ring.template advance<T::kStages>();
      ++st.iterations;
      if (++qb.m_block == p.m_blocks) {  // the next query head of the group
        qb.m_block = tile.m_first;
        ++qb.bh_q;
      }
    }
    wgmma_wait<0>();
    if (T::kDv && tile.iterations > 0) free_previous();
  }
}

}  // namespace fa4::kernels::fa3
