// fa3_bwd's device kernel: the producer warpgroup's roles and the consumer warpgroups' loop over
// the CTA's tiles (fa3_bwd.cu's header has the algorithm).
#pragma once

#include "kernels/fa3/bwd_epilogue.cuh"
#include "kernels/fa3/bwd_mainloop.cuh"
#include "kernels/fa3/bwd_tile_scheduler.cuh"

namespace fa4::kernels::fa3 {

template <class T>
__device__ __forceinline__ void bwd_consumer_loop(const BwdParams& p, const BwdSharedMap<T>& smem,
                                                  int wg) {
  BwdConsumerState st;
  for (;; ++st.tiles) {
    float dv[T::kAccRegs];
    float dk[T::kAccRegs];
#pragma unroll
    for (int i = 0; i < T::kAccRegs; ++i) {
      dv[i] = 0.0f;
      dk[i] = 0.0f;
    }
    mbarrier_wait(smem.kv_full(), st.tiles & 1u);
    const int t = int(ld_shared_u32(smem.tile_slot()));
    if (t >= p.tiles) break;
    const BwdTile tile = tile_at<T>(p, t);
    consume_tile<T>(p, smem, st, wg, tile, dv, dk);
    store_key_grads<T>(p, smem, wg, tile, dv, dk);
  }
  if (int(threadIdx.x) % kWarpgroupThreads == 0) tma_store_wait_all();
}

template <class T>
__global__ void __launch_bounds__(T::kThreads, 1)
    fa3_backward_kernel(const __grid_constant__ BwdParams p) {
  extern __shared__ __align__(1024) unsigned char shared_raw[];
  const std::uint32_t raw = smem_u32(shared_raw);
  const BwdSharedMap<T> smem{(raw + kSwizzleAtomBytes - 1) & ~std::uint32_t(kSwizzleAtomBytes - 1)};
  if (threadIdx.x == 0) {
    smem.init_barriers();
    prefetch_tensor_map(&p.q_map);
    prefetch_tensor_map(&p.do_map);
    prefetch_tensor_map(&p.k_map);
    prefetch_tensor_map(&p.v_map);
    prefetch_tensor_map(&p.dk_map);
    prefetch_tensor_map(&p.dv_map);
    prefetch_tensor_map(&p.lse_map);
    prefetch_tensor_map(&p.delta_map);
    prefetch_tensor_map(&p.tile_id_map);
    if constexpr (T::kBulkReduce) prefetch_tensor_map(&p.dq_map);
  }
  __syncthreads();
  const int warpgroup = int(threadIdx.x) / kWarpgroupThreads;
  if (warpgroup == 0) {
    warpgroup_release_registers<kProducerRegisters>();
    if (threadIdx.x == 0)
      load_tiles<T>(p, smem);
    else if (T::kBulkReduce && threadIdx.x == kWarpSize)
      reduce_dq<T>(p, smem);
  } else {
    warpgroup_claim_registers<kConsumerRegisters>();
    bwd_consumer_loop<T>(p, smem, warpgroup - 1);
  }
}

}  // namespace fa4::kernels::fa3
