// fa3's device kernel: the CTA's roles over its tiles. Warpgroup 0 is the producer (one thread
// issues the TMA loads, producer_loop) and warpgroups 1-2 the consumers (consumer_loop: the
// mainloop, then the epilogue); fa3_no_ws has consumers only, thread 0 issuing the loads. Shared by
// fa3.cu (fa3 and its ablations) and fa4/fa4.cu (fa3's pipeline with FA4's softmax policy), each
// in its own translation unit; the host launch is in launch.cuh, the algorithm in fa3.cu's header.
#pragma once

#include <cstdint>

#include "kernels/fa3/epilogue.cuh"
#include "kernels/fa3/mainloop.cuh"
#include "kernels/fa3/tile_scheduler.cuh"
#include "kernels/fa3/traits.cuh"

namespace fa4::kernels {
namespace fa3 {
namespace {

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
    if (have)
      producer.load_q(p, smem, tile.m_block * T::kBlockM, tile.batch * p.heads_q + tile.head);
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
__global__ void __launch_bounds__(T::kThreads, 1)
    fa3_forward_kernel(const __grid_constant__ Params p) {
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

}  // namespace
}  // namespace fa3
}  // namespace fa4::kernels
