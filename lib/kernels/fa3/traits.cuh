// fa3's configuration: one Variant (which of FA3's three scheduling ideas are on) and one Traits
// struct that derives every tile size, register count and shared-memory offset from the element
// type, the head dim and the variant, with a static_assert for each invariant the code relies on.
#pragma once

#include <cstdint>

#include "core/fa3_tiles.hpp"
#include "kernels/fa3/hopper_primitives.cuh"

namespace fa4::kernels::fa3 {

using namespace hopper;

// The scheduling ideas of FA3 (Shah et al., arXiv 2407.08608, section 3), each one switchable for
// the ablation. All three on is `fa3`.
struct Variant {
  bool warp_specialized = true;  // a producer warpgroup issues TMA; else a consumer thread does
  bool pingpong = true;          // named barriers order the two consumer warpgroups' GEMMs
  bool intra_overlap = true;     // issue S_next = Q K^T and O += P V before the softmax of S_next
  bool wide_key_blocks = false;  // FA3's wider key blocks: 192 at hd64, 176 at hd128 (not hd256)
  // hd256 only: 48-key blocks instead of 80, so that two Q buffers fit beside the K/V stages
  // (2 x 64 + 2 x (24 + 24) = 224 KiB): the next tile's Q loads early and O leaves by TMA, as at
  // hd64/hd128. Pays where the per-tile costs dominate (short sequences).
  bool narrow_key_blocks = false;
  // fa4's softmax policy (lib/kernels/fa4): software exp2 on the FMA pipe for emulated_eighths
  // eighths of each row's key groups (compile time: a runtime count cost 21% at hd128 in run 1,
  // the per-group branches splitting the softmax into basic blocks the scheduler cannot
  // interleave) and conditional rescaling (a runtime flag), with skipped-rescale counters.
  // Off: fa3's softmax, unchanged.
  bool fa4_softmax = false;
  int emulated_eighths = 0;  // 0..8; fa4_softmax only
};

inline constexpr int kMmaM = 64;          // rows of one wgmma (m64nNk16): one warpgroup's rows
inline constexpr int kMmaK = 16;          // k of one 16-bit wgmma
inline constexpr int kColumnBlock = 64;   // 16-bit elements in one 128-byte swizzled row
inline constexpr int kMaxSharedBytes = 227 * 1024;  // sm90 opt-in limit per block
inline constexpr int kConsumerWarpgroups = 2;       // each owns 64 rows of the 128-row Q tile
// setmaxnreg budgets for 1 producer + 2 consumer warpgroups: 128 * (24 + 2 * 240) = 64512 of the
// SM's 65536 registers (FA3's split). The producer only issues TMA; consumers hold S, P and O.
inline constexpr int kProducerRegisters = 24;
inline constexpr int kConsumerRegisters = 240;
// Named barrier ids (0 is __syncthreads): consumer warpgroup w waits on kSchedulerBarrier + w for
// its turn to issue GEMMs (ping-pong).
inline constexpr int kSchedulerBarrier = 1;
inline constexpr int kConsumerThreads = kConsumerWarpgroups * kWarpgroupThreads;

template <typename ElementT, int HeadDim, Variant V>
struct Traits {
  using Element = ElementT;
  static constexpr bool kIsBf16 = __is_same(ElementT, __nv_bfloat16);
  static constexpr Variant kVariant = V;
  static constexpr int kHeadDim = HeadDim;
  // The tile (core/fa3_tiles.hpp says why): 128 query rows, the variant's key blocks.
  static constexpr int kBlockM = kConsumerWarpgroups * kMmaM;
  static_assert(kBlockM == fa3_tiles::kBlockM, "two consumer warpgroups of 64 rows");
  static_assert(!(V.wide_key_blocks && V.narrow_key_blocks), "wide or narrow key blocks, not both");
  static constexpr int kBlockN =
      fa3_tiles::key_block_width(HeadDim, V.narrow_key_blocks ? fa3_tiles::KeyBlocks::narrow
                                          : V.wide_key_blocks ? fa3_tiles::KeyBlocks::wide
                                                              : fa3_tiles::KeyBlocks::standard);
  static constexpr int kStages = 2;  // K and V buffers each (FA3's choice at hd128/hd256)
  static constexpr int kProducerWarpgroups = V.warp_specialized ? 1 : 0;
  static constexpr int kThreads = (kProducerWarpgroups + kConsumerWarpgroups) * kWarpgroupThreads;
  static constexpr int kConsumerWarps = kConsumerWarpgroups * kWarpsPerWarpgroup;

  static constexpr int kColumnBlocks = HeadDim / kColumnBlock;   // TMA boxes per tile
  static constexpr int kQBlockBytes = kBlockM * kSwizzleBytes;    // one 64-column block of Q
  static constexpr int kKvBlockBytes = kBlockN * kSwizzleBytes;   // one 64-column block of K/V
  static constexpr int kQBytes = kColumnBlocks * kQBlockBytes;
  static constexpr int kKvBytes = kColumnBlocks * kKvBlockBytes;
  static constexpr int kWarpgroupQBytes = kMmaM * kSwizzleBytes;  // a warpgroup's 64 Q rows

  // Per-thread register tiles (wgmma accumulator layout: N / 2 fp32 per thread).
  static constexpr int kSRegs = kBlockN / 2;
  static constexpr int kORegs = HeadDim / 2;
  static constexpr int kPRegs = kBlockN / 4;    // P as packed 16-bit pairs
  static constexpr int kQkSteps = HeadDim / kMmaK;
  static constexpr int kPvSteps = kBlockN / kMmaK;
  static constexpr int kKStepBytes = kMmaK * 2;                    // along a K-major row
  static constexpr int kVStepBytes = kMmaK * kSwizzleBytes;        // 16 key rows of V
  static constexpr int kKStepsPerColumnBlock = kColumnBlock / kMmaK;

  // Shared memory: Q stages, K stages, V stages (each 1024-byte aligned for the swizzle), then
  // barriers. Q is double-buffered where shared memory allows it (warp-specialized kernels at
  // hd64 and hd128): the producer loads the next tile's Q while the current tile runs, and the
  // current tile's Q buffer stages O for a TMA store (kTmaStoreO). Else one Q buffer, released
  // after the tile's last Q K^T, and O is stored from registers.
  static constexpr int kBarrierBytesMax = (4 + 4 * kStages) * 8;
  static constexpr int kQStages =
      V.warp_specialized && 2 * kQBytes + 2 * kStages * kKvBytes + kBarrierBytesMax +
                                    kSwizzleAtomBytes <= kMaxSharedBytes
          ? 2
          : 1;
  static constexpr bool kTmaStoreO = kQStages == 2;
  static constexpr int kQOffset = 0;
  static constexpr int kKOffset = kQOffset + kQStages * kQBytes;
  static constexpr int kVOffset = kKOffset + kStages * kKvBytes;
  static constexpr int kBarrierOffset = kVOffset + kStages * kKvBytes;
  // q_full[QS], q_empty[QS], k_full[S], k_empty[S], v_full[S], v_empty[S]: 8 bytes each
  static constexpr int kBarriers = 2 * kQStages + 4 * kStages;
  static constexpr int kSharedBytes =
      kBarrierOffset + kBarriers * 8 + kSwizzleAtomBytes;  // + slack to align the base

  static_assert(HeadDim == 64 || HeadDim == 128 || HeadDim == 256, "tiles for hd 64/128/256");
  static_assert(sizeof(Element) == 2, "16-bit operands (bf16, fp16)");
  static_assert(HeadDim % kColumnBlock == 0, "whole 128-byte swizzled column blocks");
  static_assert(kBlockN % kSwizzleAtomRows == 0 && kBlockM % kSwizzleAtomRows == 0,
                "tiles are whole 8-row swizzle atoms (the descriptors' 1024-byte stride)");
  static_assert(kQBlockBytes % kSwizzleAtomBytes == 0 && kKvBlockBytes % kSwizzleAtomBytes == 0,
                "every column block starts 1024-byte aligned (descriptor base offset 0)");
  static_assert(kWarpgroupQBytes % kSwizzleAtomBytes == 0, "warpgroup Q slices stay aligned");
  static_assert(kBlockN % (2 * kMmaK / 2) == 0 && kPvSteps * kMmaK == kBlockN,
                "P V steps over whole k16 slices of the key block");
  static_assert(kBlockN % 8 == 0 && kBlockN >= 8 && kBlockN <= 256, "wgmma N: multiple of 8, <= 256");
  static_assert(HeadDim <= 256, "one wgmma covers the whole O row block (N <= 256)");
  static_assert(kBlockN <= 256 && kBlockM <= 256, "a TMA box side is at most 256 elements");
  static_assert(kSharedBytes <= kMaxSharedBytes, "tiles exceed the 227 KiB of shared memory");
  static_assert(kProducerRegisters * kWarpgroupThreads +
                        kConsumerWarpgroups * kConsumerRegisters * kWarpgroupThreads <=
                    65536,
                "setmaxnreg budgets exceed the register file");
  static_assert(!V.narrow_key_blocks || HeadDim == 256, "narrow key blocks are an hd256 tile");
  static_assert(V.warp_specialized || !V.pingpong,
                "ping-pong is defined for the warp-specialized kernel only");
};

// What the kernel reads: tensor maps (3-D views {headdim, seqlen, batch * heads} with boxes of
// {64, rows, 1}, so TMA zero-fills rows past a sequence's end without touching the next head),
// the output pointers and the problem's sizes.
struct Params {
  CUtensorMap q_map;
  CUtensorMap k_map;
  CUtensorMap v_map;
  CUtensorMap o_map;  // boxes of {64, 64, 1}: one warpgroup's rows (used where kTmaStoreO)
  void* o;
  float* lse;
  int seqlen_q;
  int seqlen_k;
  int heads_q;
  int heads_per_kv_head;
  int batch;
  int m_blocks;  // ceil(seqlen_q / kBlockM)
  int tiles;     // m_blocks * heads_q * batch
  bool causal;
  float scale_log2;  // softmax scale * log2(e)
  // Causal order: heads per section (tile_scheduler.cuh); heads_q * batch keeps FA3's global
  // heaviest-first order.
  int causal_group;
  // fa4 softmax policy (Variant::fa4_softmax only), warp-uniform runtime parameters:
  int conditional_rescale;  // 1: keep the running max unless a block raises it by > 8 (log2)
  unsigned long long* rescale_counts;  // {blocks decided, rescales skipped}, or null
};

struct PipelineState {
  int index = 0;
  std::uint32_t phase = 0;
  template <int Stages>
  __device__ __forceinline__ void advance() {
    if (++index == Stages) {
      index = 0;
      phase ^= 1u;
    }
  }
};

}  // namespace fa4::kernels::fa3
