// fa3_decode's configuration: the tile (core/decode_tiles.hpp), the shared-memory map's sizes and
// the per-thread register tiles, in the names fa3's GEMM and softmax helpers read (mainloop.cuh's
// gemm_qk and gemm_pv, softmax.cuh's OnlineSoftmax, convert_p and rescale_o), with a static_assert
// for each invariant; and the kernel's parameters.
#pragma once

#include <cstdint>

#include "core/decode_tiles.hpp"
#include "kernels/fa3/traits.cuh"

namespace fa4::kernels::decode {

using namespace hopper;

inline constexpr int kConsumerWarps = kWarpsPerWarpgroup;  // one consumer warpgroup
inline constexpr int kProducerWarp = kConsumerWarps;      // then one warp whose lane 0 issues TMA

template <typename ElementT, int HeadDim>
struct Traits {
  using Element = ElementT;
  static constexpr bool kIsBf16 = __is_same(ElementT, __nv_bfloat16);
  static constexpr fa3::Variant kVariant{};  // fa3's softmax (OnlineSoftmax reads the variant)
  static constexpr int kHeadDim = HeadDim;
  static constexpr int kBlockM = decode_tiles::kBlockM;
  static constexpr int kBlockN = decode_tiles::key_block(HeadDim);
  static constexpr int kThreads = (kConsumerWarps + 1) * kWarpSize;

  static constexpr int kColumnBlocks = HeadDim / fa3::kColumnBlock;
  static constexpr int kQBlockBytes = kBlockM * kSwizzleBytes;   // one 64-column block of Q
  static constexpr int kKvBlockBytes = kBlockN * kSwizzleBytes;  // one 64-column block of K/V
  static constexpr int kQBytes = kColumnBlocks * kQBlockBytes;
  static constexpr int kKvBytes = kColumnBlocks * kKvBlockBytes;
  static constexpr int kStageBytes = 2 * kKvBytes;  // K and V of one key block, one barrier

  static constexpr int kSRegs = kBlockN / 2;
  static constexpr int kORegs = HeadDim / 2;
  static constexpr int kPRegs = kBlockN / 4;
  static constexpr int kQkSteps = HeadDim / fa3::kMmaK;
  static constexpr int kPvSteps = kBlockN / fa3::kMmaK;
  static constexpr int kKStepBytes = fa3::kMmaK * 2;
  static constexpr int kVStepBytes = fa3::kMmaK * kSwizzleBytes;
  static constexpr int kKStepsPerColumnBlock = fa3::kColumnBlock / fa3::kMmaK;

  // Shared memory: Q, then as many K/V stages as fit (at most 8): hd64 6, hd128 3, hd256 3. The
  // stages in flight are what keeps HBM busy: one CTA per SM must hold about bandwidth x latency
  // per SM (4.3 TB/s / 132 SMs x ~1.5 us = 49 KB) in loads, one stage being consumed.
  static constexpr int kMaxStages = 8;
  static constexpr int kBarrierBytesMax = (1 + 2 * kMaxStages) * 8;
  static constexpr int kStagesThatFit =
      (fa3::kMaxSharedBytes - kQBytes - kBarrierBytesMax - kSwizzleAtomBytes) / kStageBytes;
  static constexpr int kStages = kStagesThatFit < kMaxStages ? kStagesThatFit : kMaxStages;
  static constexpr int kQOffset = 0;
  static constexpr int kStageOffset = kQBytes;
  static constexpr int kBarrierOffset = kStageOffset + kStages * kStageBytes;
  static constexpr int kBarriers = 1 + 2 * kStages;  // q_full, full[S], empty[S]
  static constexpr int kSharedBytes = kBarrierOffset + kBarriers * 8 + kSwizzleAtomBytes;

  static_assert(HeadDim == 64 || HeadDim == 128 || HeadDim == 256, "tiles for hd 64/128/256");
  static_assert(sizeof(Element) == 2, "16-bit operands (bf16, fp16)");
  static_assert(kBlockM == fa3::kMmaM, "one consumer warpgroup: one wgmma m64 of packed rows");
  static_assert(kQBlockBytes % kSwizzleAtomBytes == 0 && kKvBlockBytes % kSwizzleAtomBytes == 0,
                "every column block starts 1024-byte aligned (descriptor base offset 0)");
  static_assert(kStageBytes % kSwizzleAtomBytes == 0, "stages stay 1024-byte aligned");
  static_assert(kStages >= 2, "at least one stage loading while one is consumed");
  static_assert(kSharedBytes <= fa3::kMaxSharedBytes, "tiles exceed the 227 KiB of shared memory");
};

// What the kernels read: tensor maps of Q as packed rows ({headdim, g * seqlen_q, batch *
// heads_kv}, boxes of {64, 64, 1}: rows past a pack are zero-filled) and of K, V (contiguous:
// {headdim, seqlen_k, batch * heads_kv}, boxes of {64, kBlockN, 1}; paged: {headdim, page_size,
// pool_pages * heads_kv}, boxes of {64, page_rows, 1}); where each part goes; the partition
// (core/decode_tiles.hpp); the sizes.
struct Params {
  CUtensorMap q_map;
  CUtensorMap k_map;
  CUtensorMap v_map;
  void* o;             // [rows][headdim_v] in the input dtype
  float* lse;          // [rows]
  float* o_partial;    // [slots][kBlockM][headdim_v] float32, each normalized by its own sum
  float* lse_partial;  // [slots][kBlockM], natural log; -inf for a part that sees no key
  const std::int32_t* block_table;  // paged: [batch][pages_per_sequence]; nullptr: contiguous
  decode_tiles::PackGeometry geometry;
  int heads_q;
  int heads_kv;
  int seqlen_k;  // every sequence's keys, or a ragged batch's capacity
  int page_size;
  int pages_per_sequence;
  int page_rows;  // rows of one K/V box: min(page_size, kBlockN)
  int rows;       // batch * heads_q * seqlen_q
  // The partition: balanced (`parts` CTAs over `units` units) or split (`splits` parts per row
  // block; one writes O directly).
  bool balanced;
  int splits;
  int parts;
  std::int64_t units;
  std::int64_t uniform_pack_units;  // pack_units of seqlen_k keys (not ragged)
  float scale_log2;
};

// The key counts of a ragged batch, from the host (as a serving engine's scheduler knows them),
// with the first unit of each sequence's packs; in the kernel parameters (8 KiB).
inline constexpr int kMaxRaggedBatch = 1024;
struct RaggedPlan {
  std::int32_t keys[kMaxRaggedBatch];
  std::int32_t first_unit[kMaxRaggedBatch + 1];  // [batch]: every unit
};
// Every sequence has seqlen_k keys: the units follow from the sizes.
struct UniformPlan {};

using fa3::PipelineState;

}  // namespace fa4::kernels::decode
