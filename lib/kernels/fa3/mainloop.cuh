// fa3's mainloop: the shared-memory map, the producer (TMA loads of Q and the K/V circular
// buffers) and the consumer warpgroups' loop over key blocks (wgmma GEMMs, online softmax,
// ping-pong turns and the intra-warpgroup overlap).
//
// Load order of one tile with n key blocks (items, consumed in this order by the overlapped loop):
//   0: Q   1: K[n-1]   then K[n-2], V[n-1], K[n-3], V[n-2], ..., K[0], V[1]   last (2n): V[0]
// Key blocks go from the last to the first, so the causal diagonal's masked blocks come first.
// K and V have their own pipelines (kStages buffers each, full/empty mbarriers), so S = Q K^T of
// the next block can start while V of the current one is still in flight.
#pragma once

#include "kernels/fa3/softmax.cuh"
#include "kernels/fa3/tile_scheduler.cuh"
#include "kernels/fa3/traits.cuh"
#include "kernels/fa3/wgmma.cuh"

namespace fa4::kernels::fa3 {

template <class T>
struct SharedMap {
  std::uint32_t base;  // 1024-byte aligned
  __device__ __forceinline__ std::uint32_t q(int stage) const {
    return base + T::kQOffset + std::uint32_t(stage * T::kQBytes);
  }
  __device__ __forceinline__ std::uint32_t k(int stage) const {
    return base + T::kKOffset + std::uint32_t(stage * T::kKvBytes);
  }
  __device__ __forceinline__ std::uint32_t v(int stage) const {
    return base + T::kVOffset + std::uint32_t(stage * T::kKvBytes);
  }
  __device__ __forceinline__ std::uint32_t barrier(int i) const {
    return base + T::kBarrierOffset + std::uint32_t(8 * i);
  }
  static constexpr int kKvBarrier0 = 2 * T::kQStages;
  __device__ __forceinline__ std::uint32_t q_full(int s) const { return barrier(s); }
  __device__ __forceinline__ std::uint32_t q_empty(int s) const {
    return barrier(T::kQStages + s);
  }
  __device__ __forceinline__ std::uint32_t k_full(int s) const { return barrier(kKvBarrier0 + s); }
  __device__ __forceinline__ std::uint32_t k_empty(int s) const {
    return barrier(kKvBarrier0 + T::kStages + s);
  }
  __device__ __forceinline__ std::uint32_t v_full(int s) const {
    return barrier(kKvBarrier0 + 2 * T::kStages + s);
  }
  __device__ __forceinline__ std::uint32_t v_empty(int s) const {
    return barrier(kKvBarrier0 + 3 * T::kStages + s);
  }

  // One thread: full barriers take the producer's single arrival (plus TMA bytes); empty barriers
  // take one arrival from each consumer warp, except a Q buffer that stages O (kTmaStoreO): one
  // arrival per consumer warpgroup, from the thread that stored O once the store has read it.
  __device__ __forceinline__ void init_barriers() const {
#pragma unroll
    for (int s = 0; s < T::kQStages; ++s) {
      mbarrier_init(q_full(s), 1);
      mbarrier_init(q_empty(s), T::kTmaStoreO ? kConsumerWarpgroups : T::kConsumerWarps);
    }
#pragma unroll
    for (int s = 0; s < T::kStages; ++s) {
      mbarrier_init(k_full(s), 1);
      mbarrier_init(k_empty(s), T::kConsumerWarps);
      mbarrier_init(v_full(s), 1);
      mbarrier_init(v_empty(s), T::kConsumerWarps);
    }
    fence_barrier_init();
  }
};

// Item numbers of the load order above.
__device__ __forceinline__ int k_item(int block, int n) {
  return block == n - 1 ? 1 : 2 + 2 * (n - 2 - block);
}
__device__ __forceinline__ int v_item(int block, int n) {
  return block == 0 ? 2 * n : 3 + 2 * (n - 1 - block);
}

// The producer: one thread issues every TMA copy. In the warp-specialized kernel it is thread 0
// of the producer warpgroup and runs ahead freely (bounded by the empty barriers); in fa3_no_ws it
// is thread 0 of consumer warpgroup 0, which issues a few items ahead of its own consumption.
template <class T>
struct Producer {
  PipelineState k_state;
  PipelineState v_state;
  std::uint32_t q_loads = 0;
  int issued = 0;  // items of the current tile issued so far
  int n_blocks = 0;
  int m0 = 0, bh_q = 0, bh_kv = 0;

  __device__ __forceinline__ void start_tile(const Params& p, const Tile& tile, int n) {
    issued = 0;
    n_blocks = n;
    m0 = tile.m_block * T::kBlockM;
    bh_q = tile.batch * p.heads_q + tile.head;
    bh_kv = tile.batch * (p.heads_q / p.heads_per_kv_head) + tile.head / p.heads_per_kv_head;
  }

  // Q of the tile at query row `m` of (batch * heads) row `bh` into the next Q buffer.
  __device__ __forceinline__ void load_q(const Params& p, const SharedMap<T>& smem, int m,
                                         int bh) {
    const int stage = int(q_loads % T::kQStages);
    mbarrier_wait(smem.q_empty(stage), ((q_loads / T::kQStages) & 1u) ^ 1u);
    mbarrier_arrive_expect_tx(smem.q_full(stage), T::kQBytes);
#pragma unroll
    for (int cb = 0; cb < T::kColumnBlocks; ++cb)
      tma_load_3d(smem.q(stage) + std::uint32_t(cb * T::kQBlockBytes), &p.q_map,
                  smem.q_full(stage), cb * kColumnBlock, m, bh);
    ++q_loads;
  }
  __device__ __forceinline__ void load_q(const Params& p, const SharedMap<T>& smem) {
    load_q(p, smem, m0, bh_q);
  }

  // K or V block `block` into the next stage of its pipeline.
  __device__ __forceinline__ void load_kv(const CUtensorMap* map, std::uint32_t tile_base,
                                          std::uint32_t full, std::uint32_t empty,
                                          PipelineState& state, int block) {
    mbarrier_wait(empty, state.phase ^ 1u);
    mbarrier_arrive_expect_tx(full, T::kKvBytes);
#pragma unroll
    for (int cb = 0; cb < T::kColumnBlocks; ++cb)
      tma_load_3d(tile_base + std::uint32_t(cb * T::kKvBlockBytes), map, full,
                  cb * kColumnBlock, block * T::kBlockN, bh_kv);
    state.template advance<T::kStages>();
  }

  __device__ __forceinline__ void issue(const Params& p, const SharedMap<T>& smem, int item) {
    const int n = n_blocks;
    if (item == 0) {
      load_q(p, smem);
      return;
    }
    bool is_v;
    int block;
    if (item == 1) {
      is_v = false;
      block = n - 1;
    } else if (item == 2 * n) {
      is_v = true;
      block = 0;
    } else {
      const int r = (item - 2) / 2;
      is_v = (item % 2) == 1;
      block = is_v ? n - 1 - r : n - 2 - r;
    }
    if (is_v)
      load_kv(&p.v_map, smem.v(v_state.index), smem.v_full(v_state.index),
              smem.v_empty(v_state.index), v_state, block);
    else
      load_kv(&p.k_map, smem.k(k_state.index), smem.k_full(k_state.index),
              smem.k_empty(k_state.index), k_state, block);
  }

  // Issues every item up to and including `last` (clamped to the tile's last item).
  __device__ __forceinline__ void issue_through(const Params& p, const SharedMap<T>& smem,
                                                int last) {
    last = min(last, 2 * n_blocks);
    while (issued <= last) issue(p, smem, issued++);
  }
};

// ---- consumer GEMMs (one warpgroup) ----

// S (64 x kBlockN) = Q_wg K^T: both operands K-major in shared memory, d / 16 wgmmas, the first
// one overwriting S (scale-d = 0) so S needs no zeroing.
template <class T>
__device__ __forceinline__ void gemm_qk(float (&s)[T::kSRegs], std::uint32_t q_wg,
                                        std::uint32_t k_tile) {
  fence_operands(s);
  wgmma_fence();
#pragma unroll
  for (int ks = 0; ks < T::kQkSteps; ++ks) {
    const int cb = ks / T::kKStepsPerColumnBlock;
    const int in_block = (ks % T::kKStepsPerColumnBlock) * T::kKStepBytes;
    Wgmma<T::kBlockN, T::kIsBf16>::ss(
        s, kmajor_descriptor(q_wg + std::uint32_t(cb * T::kQBlockBytes + in_block)),
        kmajor_descriptor(k_tile + std::uint32_t(cb * T::kKvBlockBytes + in_block)), ks > 0);
  }
  wgmma_commit();
  fence_operands(s);
}

// O (64 x d) += P V: P from registers (A), V N-major in shared memory (B transposed).
template <class T>
__device__ __forceinline__ void gemm_pv(float (&o)[T::kORegs], std::uint32_t (&p)[T::kPRegs],
                                        std::uint32_t v_tile) {
  fence_operands(o);
  fence_operands(p);
  wgmma_fence();
#pragma unroll
  for (int ks = 0; ks < T::kPvSteps; ++ks) {
    const std::uint32_t a[4] = {p[4 * ks], p[4 * ks + 1], p[4 * ks + 2], p[4 * ks + 3]};
    Wgmma<T::kHeadDim, T::kIsBf16>::rs(
        o, a, mnmajor_descriptor(v_tile + std::uint32_t(ks * T::kVStepBytes), T::kKvBlockBytes),
        1);
  }
  wgmma_commit();
  fence_operands(o);
  fence_operands(p);
}

// Ping-pong turns: warpgroup w waits for its turn on barrier kSchedulerBarrier + w (its own
// threads plus the other warpgroup's arrival) and, once its GEMMs are issued, hands the turn over.
template <class T>
struct Scheduler {
  int wg;
  __device__ __forceinline__ void wait_turn() const {
    if constexpr (T::kVariant.pingpong) named_barrier_sync(kSchedulerBarrier + wg, kConsumerThreads);
  }
  __device__ __forceinline__ void pass_turn() const {
    if constexpr (T::kVariant.pingpong)
      named_barrier_arrive(kSchedulerBarrier + (1 - wg), kConsumerThreads);
  }
};

// One warp lane signals that its warp is done with a buffer (empty barriers count warps).
__device__ __forceinline__ void release(std::uint32_t empty_barrier) {
  if (threadIdx.x % kWarpSize == 0) mbarrier_arrive(empty_barrier);
}

// The sequence row of this thread's first accumulator row (g of its warp's 16), given the row
// of its warpgroup's first.
__device__ __forceinline__ int thread_row0(int wg_row0) {
  return wg_row0 + (int(threadIdx.x) % kWarpgroupThreads) / kWarpSize * 16 +
         (int(threadIdx.x) % kWarpSize) / 4;
}

struct ConsumerState {
  PipelineState k_state;
  PipelineState v_state;
  std::uint32_t q_loads = 0;
  int q_stage = 0;  // the Q buffer of the tile being consumed
  // fa4 softmax policy: per-warp rescale decisions after each tile's first block, and how many
  // were skipped (counted by lane 0 of each warp).
  unsigned rescale_blocks = 0;
  unsigned rescale_skipped = 0;
};

// The consumer warpgroup `wg`'s work on one tile of n >= 1 key blocks: O (unnormalized) and the
// softmax statistics. `issues_loads`: this thread is fa3_no_ws's producer (`producer` unused else).
template <class T>
__device__ __forceinline__ void consume_tile(const Params& p, const SharedMap<T>& smem,
                                             ConsumerState& st, int wg, int n, int wg_row0,
                                             float (&o)[T::kORegs], OnlineSoftmax<T>& softmax,
                                             Producer<T>& producer, bool issues_loads) {
  // fa3_no_ws: items this many ahead of the one being waited for are issued first (one K and one
  // V block ahead: the stage they need was freed two items ago).
  constexpr int kLookahead = 2;
  const auto acquire = [&](int item) {
    if constexpr (!T::kVariant.warp_specialized) {
      if (issues_loads) producer.issue_through(p, smem, item + kLookahead);
      __syncwarp();
    }
  };
  const Scheduler<T> turn{wg};
  st.q_stage = int(st.q_loads % T::kQStages);
  const std::uint32_t q_wg = smem.q(st.q_stage) + std::uint32_t(wg * T::kWarpgroupQBytes);
  const int causal_shift = p.seqlen_k - p.seqlen_q;
  // A block needs masking when it runs past seqlen_k or crosses this warpgroup's causal diagonal.
  const int row0 = thread_row0(wg_row0);
  const auto needs_mask = [&](int block) {
    const int key_last = block * T::kBlockN + T::kBlockN - 1;
    return key_last >= p.seqlen_k || (p.causal && key_last > wg_row0 + causal_shift);
  };

#pragma unroll
  for (int i = 0; i < T::kORegs; ++i) o[i] = 0.0f;
  softmax.reset();
  float s[T::kSRegs];
  std::uint32_t pr[T::kPRegs];
  float correction[kRowsPerThread];

  acquire(0);
  mbarrier_wait(smem.q_full(st.q_stage), (st.q_loads / T::kQStages) & 1u);
  ++st.q_loads;
  // Without kTmaStoreO the Q buffer is released after the tile's last Q K^T; with it, after the
  // epilogue's TMA store has read O out of it (epilogue.cuh).
  const auto release_q = [&]() {
    if constexpr (!T::kTmaStoreO) release(smem.q_empty(st.q_stage));
  };

  // S = Q K_block^T on its own (no P V beside it): issue, wait, free the K stage, mask.
  const auto s_alone = [&](int block) {
    acquire(k_item(block, n));
    mbarrier_wait(smem.k_full(st.k_state.index), st.k_state.phase);
    turn.wait_turn();
    gemm_qk<T>(s, q_wg, smem.k(st.k_state.index));
    turn.pass_turn();
    wgmma_wait<0>();
    fence_operands(s);
    release(smem.k_empty(st.k_state.index));
    st.k_state.template advance<T::kStages>();
    if (block == 0) release_q();
    if (needs_mask(block)) mask_scores<T>(s, block * T::kBlockN, row0, p);
  };
  // O += P V_block on its own (no S GEMM beside it): issue, wait, free the V stage. The no-overlap
  // loop takes a ping-pong turn for it (`takes_turn`); the overlapped loop's last P V (no S left
  // to pair it with) issues without one, as it always has.
  const auto pv_alone = [&](int block, bool takes_turn) {
    acquire(v_item(block, n));
    mbarrier_wait(smem.v_full(st.v_state.index), st.v_state.phase);
    if (takes_turn) turn.wait_turn();
    gemm_pv<T>(o, pr, smem.v(st.v_state.index));
    if (takes_turn) turn.pass_turn();
    wgmma_wait<0>();
    fence_operands(o);
    release(smem.v_empty(st.v_state.index));
    st.v_state.template advance<T::kStages>();
  };

  if constexpr (T::kVariant.intra_overlap) {
    // First block: S alone.
    s_alone(n - 1);
    softmax.template update_block<true>(s, p, correction, st.rescale_blocks, st.rescale_skipped);
    convert_p<T>(s, pr);

    for (int block = n - 2; block >= 0; --block) {
      // Issue S_next = Q K_block^T and O += P V_(block+1) back to back; the softmax of S_next
      // then runs while the P V GEMM still occupies the tensor cores.
      acquire(k_item(block, n));
      mbarrier_wait(smem.k_full(st.k_state.index), st.k_state.phase);
      turn.wait_turn();
      gemm_qk<T>(s, q_wg, smem.k(st.k_state.index));
      acquire(v_item(block + 1, n));
      mbarrier_wait(smem.v_full(st.v_state.index), st.v_state.phase);
      gemm_pv<T>(o, pr, smem.v(st.v_state.index));
      turn.pass_turn();
      wgmma_wait<1>();  // S_next is done; P V may still run
      fence_operands(s);
      release(smem.k_empty(st.k_state.index));
      st.k_state.template advance<T::kStages>();
      if (block == 0) release_q();
      if (needs_mask(block)) mask_scores<T>(s, block * T::kBlockN, row0, p);
      const bool rescaled = softmax.template update_block<false>(
          s, p, correction, st.rescale_blocks, st.rescale_skipped);
      wgmma_wait<0>();  // P V done: O and the P registers are free
      fence_operands(o);
      fence_operands(pr);
      release(smem.v_empty(st.v_state.index));
      st.v_state.template advance<T::kStages>();
      if (rescaled) rescale_o<T>(o, correction);
      convert_p<T>(s, pr);
    }
    pv_alone(0, false);  // the last P V
  } else {
    // No intra-warpgroup overlap: S, wait, softmax, P V, wait, block after block.
    for (int block = n - 1; block >= 0; --block) {
      s_alone(block);
      if (block == n - 1) {
        softmax.template update_block<true>(s, p, correction, st.rescale_blocks,
                                            st.rescale_skipped);
      } else if (softmax.template update_block<false>(s, p, correction, st.rescale_blocks,
                                                      st.rescale_skipped)) {
        rescale_o<T>(o, correction);
      }
      convert_p<T>(s, pr);
      pv_alone(block, true);
    }
  }
}

}  // namespace fa4::kernels::fa3
