// fa3_bwd's epilogue: a consumer warpgroup's dK (times the softmax scale) and dV, held in
// registers across the tile's query loop, rounded to 16 bits and stored by TMA. Once both
// warpgroups are done with K and V (dQ = dS K reads all of K), each writes its 64 key rows into
// its slice of K's and V's buffers in the 128-byte-swizzled layout TMA loaded them with
// (conflict-free 4-byte st.shared, as the forward's O epilogue), one thread stores the slices
// (rows past seqlen_k are clipped by TMA) and, once the stores have read them, frees the buffers
// for the next tile's K and V (hd256's dV pass loads no V: dV leaves through K's buffer).
#pragma once

#include "kernels/fa3/bwd_mainloop.cuh"

namespace fa4::kernels::fa3 {

// The accumulator tile (64 keys x d) times `scale` into a warpgroup slice of a K/V buffer.
template <class T>
__device__ __forceinline__ void write_key_rows(const float (&acc)[T::kAccRegs], float scale,
                                               std::uint32_t slice) {
  using Element = typename T::Element;
  const int lane = int(threadIdx.x) % kWarpSize;
  const int g = lane / 4, t = lane % 4;
  const int row_in_wg = (int(threadIdx.x) % kWarpgroupThreads) / kWarpSize * 16 + g;
#pragma unroll
  for (int h = 0; h < kRowsPerThread; ++h) {
    const std::uint32_t row = slice + std::uint32_t((row_in_wg + 8 * h) * kSwizzleBytes + 4 * t);
#pragma unroll
    for (int j = 0; j < T::kHeadDim / 8; ++j)
      st_shared_u32(row + std::uint32_t((j / 8) * T::kKvBlockBytes + (((j % 8) ^ g) * 16)),
                    pack_pair<Element>(acc[4 * j + 2 * h] * scale, acc[4 * j + 2 * h + 1] * scale));
  }
}

template <class T>
__device__ __forceinline__ void store_key_grads(const BwdParams& p, const BwdSharedMap<T>& smem,
                                                int wg, const BwdTile& tile,
                                                const float (&dv)[T::kAccRegs],
                                                const float (&dk)[T::kAccRegs]) {
  named_barrier_sync(kKvDoneBarrier, kConsumerThreads);
  const std::uint32_t slice = std::uint32_t(wg * T::kWarpgroupKvBytes);
  if constexpr (T::kDkDq) write_key_rows<T>(dk, p.scale, smem.k() + slice);
  if constexpr (T::kDv) write_key_rows<T>(dv, 1.0f, smem.v() + slice);
  fence_proxy_async_shared();
  named_barrier_sync(kBwdStoreBarrier + wg, kWarpgroupThreads);
  if (int(threadIdx.x) % kWarpgroupThreads == 0) {
    const int key0 = tile.n_block * T::kBlockN + wg * kBwdKeysPerWarpgroup;
#pragma unroll
    for (int cb = 0; cb < T::kColumnBlocks; ++cb) {
      const std::uint32_t offset = slice + std::uint32_t(cb * T::kKvBlockBytes);
      if constexpr (T::kDkDq)
        tma_store_3d(&p.dk_map, smem.k() + offset, cb * kColumnBlock, key0, tile.bh_kv);
      if constexpr (T::kDv)
        tma_store_3d(&p.dv_map, smem.v() + offset, cb * kColumnBlock, key0, tile.bh_kv);
    }
    tma_store_commit();
    tma_store_wait_read();
    mbarrier_arrive(smem.kv_empty());
  }
}

}  // namespace fa4::kernels::fa3
