// fa3's epilogue: finish the row sums across each quad, normalize O and store it (16-bit pairs
// straight from the accumulator registers) with the natural-log LSE. Rows past seqlen_q are not
// written; fully masked rows (row sum 0) get O = 0 and LSE = -inf.
#pragma once

#include "kernels/fa3/mainloop.cuh"
#include "kernels/fa3/softmax.cuh"

namespace fa4::kernels::fa3 {

inline constexpr float kLn2 = 0.6931471805599453f;

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

}  // namespace fa4::kernels::fa3
