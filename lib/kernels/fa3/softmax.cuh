// fa3's online softmax on one warpgroup's S tile (64 rows x kBlockN keys), in the wgmma
// accumulator layout: warp w of the warpgroup owns rows 16w..16w+15; with g = lane / 4 and
// t = lane % 4, register 4 * j + 2 * h + c holds (row 16w + g + 8h, key 8j + 2t + c). Each thread
// thus holds 2 rows (h = 0, 1), each spread over the 4 lanes of a quad.
//
// P = 2^(S * scale * log2 e - m * scale * log2 e): the softmax scale is folded into the exp2 (one
// FFMA + one MUFU ex2 per score). Row sums stay per thread (partial over the quad) until the
// epilogue.
#pragma once

#include <limits>

#include "kernels/exp2_emulation.cuh"
#include "kernels/fa3/traits.cuh"
#include "kernels/toolbox.cuh"

namespace fa4::kernels::fa3 {

inline constexpr float kMinusInfinity = -std::numeric_limits<float>::infinity();
inline constexpr unsigned kFullMask = 0xffffffffu;
inline constexpr int kRowsPerThread = 2;  // rows g and g + 8 of the warp's 16
// fa4's conditional rescaling threshold (FA4 paper section 3.2): the running maximum is kept
// unless a block raises it by more than this many log2 units (after the softmax scale), so
// unnormalized P stays below 2^8.
inline constexpr float kRescaleThresholdLog2 = 8.0f;

// Scores of keys a row may not see (past seqlen_k, or past its causal limit) become -inf.
// `row0` is the sequence row of this thread's first row (g); `key0` the block's first key.
template <class T>
__device__ __forceinline__ void mask_scores(float (&s)[T::kSRegs], int key0, int row0,
                                            const Params& p) {
  const int t = int(threadIdx.x) % 4;
  const int causal_shift = p.seqlen_k - p.seqlen_q;  // row i sees keys <= i + causal_shift
#pragma unroll
  for (int h = 0; h < kRowsPerThread; ++h) {
    const int row = row0 + 8 * h;
    const int key_end = p.causal ? min(p.seqlen_k, row + causal_shift + 1) : p.seqlen_k;
#pragma unroll
    for (int j = 0; j < T::kBlockN / 8; ++j)
#pragma unroll
      for (int c = 0; c < 2; ++c)
        if (key0 + 8 * j + 2 * t + c >= key_end) s[4 * j + 2 * h + c] = kMinusInfinity;
  }
}

template <class T>
struct OnlineSoftmax {
  // fa4: key groups of 8 per row and block whose exp2 runs in software, round(eighths * N / 64).
  // hd256 keeps exp2 on MUFU: O (128 registers) leaves no room for the software path's
  // temporaries there (44 bytes spilled with it), and exp is 20% of the MMA time at hd256.
  static constexpr int kEmulatedGroups =
      T::kHeadDim <= 128 ? (T::kBlockN / 8 * T::kVariant.emulated_eighths + 4) / 8 : 0;
  static_assert(T::kVariant.emulated_eighths >= 0 && T::kVariant.emulated_eighths <= 8,
                "emulated share in eighths, 0..8");
  float row_max[kRowsPerThread];
  float row_sum[kRowsPerThread];

  // Each of this thread's rows' maximum over the block's keys, reduced across its quad.
  __device__ __forceinline__ static void block_row_maxima(const float (&s)[T::kSRegs],
                                                         float (&block_max)[kRowsPerThread]) {
#pragma unroll
    for (int h = 0; h < kRowsPerThread; ++h) {
      float m = kMinusInfinity;
#pragma unroll
      for (int j = 0; j < T::kBlockN / 8; ++j)
        m = fmaxf(m, fmaxf(s[4 * j + 2 * h], s[4 * j + 2 * h + 1]));
      m = fmaxf(m, __shfl_xor_sync(kFullMask, m, 1));
      block_max[h] = fmaxf(m, __shfl_xor_sync(kFullMask, m, 2));
    }
  }

  __device__ __forceinline__ void reset() {
#pragma unroll
    for (int h = 0; h < kRowsPerThread; ++h) {
      row_max[h] = kMinusInfinity;
      row_sum[h] = 0.0f;
    }
  }

  // S becomes unnormalized P against the new running maximum; `correction` is what O (and the
  // previous row sum, already applied here) must be multiplied by.
  __device__ __forceinline__ void update(float (&s)[T::kSRegs], float scale_log2,
                                         float (&correction)[kRowsPerThread]) {
    // Both rows' block maxima first: their quad shuffles overlap instead of each row's exps
    // waiting on its own (measured in run 2 as fa4_e0_r0, this ordering of the same work:
    // +2-4% at hd64, +-0.5% at hd128).
    float block_max[kRowsPerThread];
    block_row_maxima(s, block_max);
#pragma unroll
    for (int h = 0; h < kRowsPerThread; ++h) {
      const float new_max = fmaxf(row_max[h], block_max[h]);
      // While every key so far is masked the maximum is -inf; subtracting 0 keeps 2^-inf = 0.
      const float new_max_scaled = new_max == kMinusInfinity ? 0.0f : new_max * scale_log2;
      correction[h] = fast_exp2(row_max[h] * scale_log2 - new_max_scaled);
      row_max[h] = new_max;
      float sum = 0.0f;
#pragma unroll
      for (int j = 0; j < T::kBlockN / 8; ++j)
#pragma unroll
        for (int c = 0; c < 2; ++c) {
          float& x = s[4 * j + 2 * h + c];
          x = fast_exp2(fmaf(x, scale_log2, -new_max_scaled));
          sum += x;
        }
      row_sum[h] = row_sum[h] * correction[h] + sum;
    }
  }

  // One key block's softmax under the kernel's policy; returns whether O must be rescaled by
  // `correction` (warp-uniform). fa3's policy: update() above, always rescale. fa4's policy
  // (Variant::fa4_softmax): the exp2 of the first kEmulatedGroups key groups of 8 (per row)
  // runs in software on the FMA pipe, the rest on MUFU; with p.conditional_rescale, the warp
  // keeps its rows' running maxima unless one of its rows' block maximum exceeds its running
  // maximum by more than kRescaleThresholdLog2 (a vote), so O and the row sums stay relative to
  // the same (stale) maximum and the epilogue's division by the row sum corrects both. `First`:
  // the tile's first block (always sets the maximum; not counted). Lane 0 of each warp counts
  // the decisions on later blocks and the skipped ones.
  template <bool First>
  __device__ __forceinline__ bool update_block(float (&s)[T::kSRegs], const Params& p,
                                               float (&correction)[kRowsPerThread],
                                               unsigned& blocks, unsigned& skipped) {
    if constexpr (!T::kVariant.fa4_softmax) {
      update(s, p.scale_log2, correction);
      return true;
    } else {
      const float scale_log2 = p.scale_log2;
      float block_max[kRowsPerThread];
      block_row_maxima(s, block_max);
      bool rescale = true;
      if (!First && p.conditional_rescale) {
        bool need = false;
#pragma unroll
        for (int h = 0; h < kRowsPerThread; ++h)
          need |= (block_max[h] - row_max[h]) * scale_log2 > kRescaleThresholdLog2;
        rescale = __any_sync(kFullMask, need);
        if (threadIdx.x % 32 == 0) {
          ++blocks;
          if (!rescale) ++skipped;
        }
      } else if (!First && threadIdx.x % 32 == 0) {
        ++blocks;
      }
#pragma unroll
      for (int h = 0; h < kRowsPerThread; ++h) {
        const float new_max = rescale ? fmaxf(row_max[h], block_max[h]) : row_max[h];
        const float new_max_scaled = new_max == kMinusInfinity ? 0.0f : new_max * scale_log2;
        correction[h] = rescale ? fast_exp2(row_max[h] * scale_log2 - new_max_scaled) : 1.0f;
        row_max[h] = new_max;
        float sum = 0.0f;
#pragma unroll
        for (int j = 0; j < T::kBlockN / 8; ++j) {
          float& x0 = s[4 * j + 2 * h];
          float& x1 = s[4 * j + 2 * h + 1];
          const float a0 = fmaf(x0, scale_log2, -new_max_scaled);
          const float a1 = fmaf(x1, scale_log2, -new_max_scaled);
          if (j < kEmulatedGroups) {
            x0 = software_exp2(a0);
            x1 = software_exp2(a1);
          } else {
            x0 = fast_exp2(a0);
            x1 = fast_exp2(a1);
          }
          sum += x0;
          sum += x1;
        }
        row_sum[h] = rescale ? row_sum[h] * correction[h] + sum : row_sum[h] + sum;
      }
      return rescale;
    }
  }
};

// O (64 x headdim accumulators, same layout as S) times the per-row correction.
template <class T>
__device__ __forceinline__ void rescale_o(float (&o)[T::kORegs],
                                          const float (&correction)[kRowsPerThread]) {
#pragma unroll
  for (int j = 0; j < T::kHeadDim / 8; ++j)
#pragma unroll
    for (int h = 0; h < kRowsPerThread; ++h) {
      o[4 * j + 2 * h] *= correction[h];
      o[4 * j + 2 * h + 1] *= correction[h];
    }
}

// P (fp32, S's layout) to the A-operand registers of O += P V: for k16 slice k the 4 registers
// are (row g, keys 2t..), (row g+8, keys 2t..), (row g, keys 2t+8..), (row g+8, keys 2t+8..),
// which are exactly S's n8 tiles 2k and 2k+1 (the same identity FA2 uses with mma.sync).
template <class T>
__device__ __forceinline__ void convert_p(const float (&s)[T::kSRegs],
                                          std::uint32_t (&p)[T::kPRegs]) {
  using Element = typename T::Element;
#pragma unroll
  for (int i = 0; i < T::kPRegs; ++i) p[i] = pack_pair<Element>(s[2 * i], s[2 * i + 1]);
}

}  // namespace fa4::kernels::fa3
