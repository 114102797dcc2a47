// fa3's epilogue: finish the row sums across each quad, normalize O and store it with the
// natural-log LSE. Rows past seqlen_q are not written; fully masked rows (row sum 0) get O = 0
// and LSE = -inf. Two ways to store O:
//   store_tile_via_tma (kTmaStoreO, tiles with key blocks): the warpgroup writes its 64 x d slice
//     of O into its slice of the tile's (now unused) Q buffer in the same 128-byte-swizzled
//     layout TMA loaded Q with (conflict-free 4-byte st.shared), then one thread issues the TMA
//     stores and, once they have read the buffer, frees it for the Q load two tiles ahead; the
//     warpgroup goes on to its next tile without waiting for global memory.
//   store_tile: 16-bit pairs straight from the accumulator registers to global memory.
#pragma once

#include "kernels/fa3/mainloop.cuh"
#include "kernels/fa3/softmax.cuh"
#include "kernels/toolbox.cuh"

namespace fa4::kernels::fa3 {

template <class T>
__device__ __forceinline__ void store_tile(const Params& p, const float (&o)[T::kORegs],
                                           const OnlineSoftmax<T>& softmax, int wg_row0,
                                           int bh_q) {
  using Element = typename T::Element;
  const int row0 = thread_row0(wg_row0);
  const int t = int(threadIdx.x) % 4;
#pragma unroll
  for (int h = 0; h < kRowsPerThread; ++h) {
    float sum = softmax.row_sum[h];
    sum += __shfl_xor_sync(kFullMask, sum, 1);
    sum += __shfl_xor_sync(kFullMask, sum, 2);
    const int row = row0 + 8 * h;
    if (row >= p.seqlen_q) continue;
    const float inverse = sum > 0.0f ? 1.0f / sum : 0.0f;
    const std::int64_t row_index = std::int64_t(bh_q) * p.seqlen_q + row;
    Element* out = static_cast<Element*>(p.o) + row_index * T::kHeadDim + 2 * t;
#pragma unroll
    for (int j = 0; j < T::kHeadDim / 8; ++j)
      *reinterpret_cast<std::uint32_t*>(out + 8 * j) =
          pack_pair<Element>(o[4 * j + 2 * h] * inverse, o[4 * j + 2 * h + 1] * inverse);
    if (t == 0)
      p.lse[row_index] = sum > 0.0f ? (softmax.row_max[h] * p.scale_log2 + __log2f(sum)) * kLn2
                                    : kMinusInfinity;
  }
}

// Named barriers 3 and 4: consumer warpgroup w's 128 threads before its O store.
inline constexpr int kEpilogueBarrier = kSchedulerBarrier + kConsumerWarpgroups;

template <class T>
__device__ __forceinline__ void store_tile_via_tma(const Params& p, const float (&o)[T::kORegs],
                                                   const OnlineSoftmax<T>& softmax, int wg,
                                                   int wg_row0, int bh_q, std::uint32_t q_buffer,
                                                   std::uint32_t q_empty) {
  using Element = typename T::Element;
  const int lane = int(threadIdx.x) % kWarpSize;
  const int g = lane / 4;
  const int t = lane % 4;
  const int row_in_wg = (int(threadIdx.x) % kWarpgroupThreads) / kWarpSize * 16 + g;
  const int row0 = wg_row0 + row_in_wg;
  const std::uint32_t slice = q_buffer + std::uint32_t(wg * T::kWarpgroupQBytes);
#pragma unroll
  for (int h = 0; h < kRowsPerThread; ++h) {
    float sum = softmax.row_sum[h];
    sum += __shfl_xor_sync(kFullMask, sum, 1);
    sum += __shfl_xor_sync(kFullMask, sum, 2);
    const float inverse = sum > 0.0f ? 1.0f / sum : 0.0f;
    const int r = row_in_wg + 8 * h;  // r % 8 == g: the swizzle's row phase
    const std::uint32_t row_base = slice + std::uint32_t(r * kSwizzleBytes + 4 * t);
#pragma unroll
    for (int j = 0; j < T::kHeadDim / 8; ++j) {
      const int cb = j / 8;
      const std::uint32_t address =
          row_base + std::uint32_t(cb * T::kQBlockBytes + (((j % 8) ^ g) * 16));
      st_shared_u32(address,
                    pack_pair<Element>(o[4 * j + 2 * h] * inverse, o[4 * j + 2 * h + 1] * inverse));
    }
    const int row = row0 + 8 * h;
    if (t == 0 && row < p.seqlen_q)
      p.lse[std::int64_t(bh_q) * p.seqlen_q + row] =
          sum > 0.0f ? (softmax.row_max[h] * p.scale_log2 + __log2f(sum)) * kLn2 : kMinusInfinity;
  }
  fence_proxy_async_shared();
  named_barrier_sync(kEpilogueBarrier + wg, kWarpgroupThreads);
  if (int(threadIdx.x) % kWarpgroupThreads == 0) {
#pragma unroll
    for (int cb = 0; cb < T::kColumnBlocks; ++cb)
      tma_store_3d(&p.o_map, slice + std::uint32_t(cb * T::kQBlockBytes), cb * kColumnBlock,
                   wg_row0, bh_q);
    tma_store_commit();
    tma_store_wait_read();
    mbarrier_arrive(q_empty);
  }
}

}  // namespace fa4::kernels::fa3
