// fa3_bwd's configuration: the variant switches, the tile sizes, shared-memory offsets and
// barrier counts derived from the element type, the head dim and the pass's outputs, with a
// static_assert per invariant, and the kernel's parameters. Algorithm: fa3_bwd.cu's header.
#pragma once

#include <cstdint>

#include "kernels/fa3/traits.cuh"

namespace fa4::kernels::fa3 {

// What one launch of the main kernel computes. hd256 runs it twice (dv, then dk_dq): dK and dV
// of one warpgroup's 64 keys at d = 256 are 2 x 128 fp32 registers per thread, more than the 240
// a consumer warpgroup has (fa3_bwd.cu's header says what that costs).
enum class BwdOutputs { all, dv, dk_dq };

struct BwdVariant {
  // dQ partials leave through a shared-memory tile that a producer thread adds into the float32
  // accumulator with TMA reduce-adds (cp.reduce.async.bulk.tensor .add), one per 32-column box;
  // else each consumer thread adds its registers with vector atomics (red.global.add.v4.f32, one
  // per m16n8 tile into the accumulator's mma_tiles order, bwd_common.hpp).
  bool dq_bulk_reduce = true;
  // Ablations (what each Hopper feature buys). overlap_gemms: each warpgroup keeps GEMMs in flight
  // under its exp2, dS and dQ work (the loop in consume_tile); off, it waits for every GEMM as
  // soon as it is issued. double_buffered_ring: Q and dO stream through a two-stage ring (the
  // next query block loads under this one); off, one stage (as hd256's dK/dQ pass must).
  // persistent: one CTA per SM walks the tiles; off, one CTA per tile.
  bool overlap_gemms = true;
  bool double_buffered_ring = true;
  bool persistent = true;
};

// Whether variant V's dQ leaves by TMA reduce-adds at this head dim (else by atomics).
constexpr bool bwd_dq_bulk_reduces(const BwdVariant& v, int headdim) {
  return v.dq_bulk_reduce && fa3_tiles::bwd_dq_bulk_reduce(headdim);
}

inline constexpr int kBwdKeysPerWarpgroup = kMmaM;  // each consumer warpgroup owns 64 keys
// Named barriers (0 is __syncthreads; ids 1-4 belong to the forward and are not used here):
// both consumer warpgroups after writing dS (before dQ = dS K), both before the dK/dV epilogue
// reuses K's and V's shared memory, and each warpgroup's own before its TMA store.
inline constexpr int kDsReadyBarrier = 5;
inline constexpr int kKvDoneBarrier = 6;
inline constexpr int kBwdStoreBarrier = 7;  // + warpgroup

template <typename ElementT, int HeadDim, BwdVariant V, BwdOutputs Out>
struct BwdTraits {
  using Element = ElementT;
  static constexpr bool kIsBf16 = __is_same(ElementT, __nv_bfloat16);
  static constexpr int kHeadDim = HeadDim;
  static constexpr BwdOutputs kOutputs = Out;
  static constexpr bool kDv = Out != BwdOutputs::dk_dq;
  static constexpr bool kDkDq = Out != BwdOutputs::dv;

  // Keys (the wgmma M dimension of S^T, dP^T, dV, dK) and queries per block (core/fa3_tiles.hpp
  // says why): 128 x 128 at hd64, 128 keys x 64 queries at hd128 and hd256.
  static constexpr int kBlockN = kConsumerWarpgroups * kBwdKeysPerWarpgroup;
  static_assert(kBlockN == fa3_tiles::kBwdBlockN, "two consumer warpgroups of 64 keys");
  static constexpr int kBlockM = fa3_tiles::bwd_query_block(HeadDim);
  // Q and dO ring stages: 2, or 1 in hd256's dK/dQ pass, where K and V take 128 KiB.
  static constexpr int kStages =
      V.double_buffered_ring ? fa3_tiles::bwd_ring_stages(HeadDim, Out == BwdOutputs::dv) : 1;
  // Which of a query block's operands a pass reads: V and D only for dP^T = V_w dO^T and dS^T
  // (the dV pass loads neither, and has no dS tile). The dK/dQ pass is done with dO at dP^T's wait,
  // before it is done with Q (at dK's): its producer loads dO first, into the stage freed first.
  static constexpr bool kLoadsV = kDkDq;
  static constexpr bool kLoadDoFirst = !kDv;
  static constexpr bool kOverlapGemms = V.overlap_gemms && fa3_tiles::bwd_overlap_gemms(HeadDim);
  static constexpr bool kPersistent = V.persistent;
  static constexpr int kDsStages = 2;  // dS alternates so a warpgroup may write the next one
  static constexpr bool kBulkReduce = bwd_dq_bulk_reduces(V, HeadDim);
  static constexpr int kThreads = (1 + kConsumerWarpgroups) * kWarpgroupThreads;
  static constexpr int kConsumerWarps = kConsumerWarpgroups * kWarpsPerWarpgroup;

  static constexpr int kColumnBlocks = HeadDim / kColumnBlock;
  static constexpr int kKvBlockBytes = kBlockN * kSwizzleBytes;  // one 64-column block of K/V
  static constexpr int kQBlockBytes = kBlockM * kSwizzleBytes;   // of Q or dO
  static constexpr int kKvBytes = kColumnBlocks * kKvBlockBytes;
  static constexpr int kQBytes = kColumnBlocks * kQBlockBytes;
  static constexpr int kKeyBlockLoadBytes = (kLoadsV ? 2 : 1) * kKvBytes;  // K, and V if loaded
  static constexpr int kWarpgroupKvBytes = kBwdKeysPerWarpgroup * kSwizzleBytes;
  // dS [kBlockM queries][kBlockN keys], K-major for dQ = dS K: warpgroup w's keys are column
  // block w.
  static constexpr int kDsBlockBytes = kBlockM * kSwizzleBytes;
  static constexpr int kDsBytes = kDkDq ? (kBlockN / kColumnBlock) * kDsBlockBytes : 0;

  // dQ = dS K per warpgroup: 64 rows (kBlockM = 128: rows 64w..) by every head dim, or all 64
  // rows by half the head dims (kBlockM = 64: columns w d/2..).
  static constexpr bool kDqSplitRows = kBlockM == 2 * kMmaM;
  static constexpr int kDqCols = kDqSplitRows ? HeadDim : HeadDim / 2;
  // The dQ staging tile for the bulk reduce: kBlockM rows of float32 in boxes of 32 columns (128
  // bytes per row, the 128-byte swizzle), as the tensor reduce-add reads them (one per box); row
  // r at box row 2 (r % kDqHalfRows) + r / kDqHalfRows (the map's interleaved halves).
  static constexpr int kDqBoxColumns = kSwizzleBytes / 4;
  static constexpr int kDqBoxes = HeadDim / kDqBoxColumns;
  static constexpr int kDqBoxBytes = kBlockM * kSwizzleBytes;
  static constexpr int kDqHalfRows = kBlockM / 2;
  static constexpr int kDqStageBytes = kBulkReduce ? kDqBoxes * kDqBoxBytes : 0;

  // Per-thread register tiles (wgmma accumulator layout: N / 2 fp32 per thread).
  static constexpr int kSRegs = kBlockM / 2;    // S^T, dP^T: 64 keys x kBlockM queries
  static constexpr int kPRegs = kBlockM / 4;    // P^T, dS^T packed 16-bit pairs
  static constexpr int kAccRegs = HeadDim / 2;  // dV, dK: 64 keys x d
  static constexpr int kStatRegs = kBlockM / 4;  // a query block's LSE or D at a thread's columns
  // dQ = dS K runs in 64-column chunks (one at hd64/hd128, two at hd256), 32 registers each.
  static constexpr int kDqChunks = kDqCols / kColumnBlock;
  static_assert(kDqChunks == fa3_tiles::bwd_dq_chunks(HeadDim), "the model's dQ chunk count");
  static constexpr int kDqRegs = kColumnBlock / 2;
  static constexpr int kKStepBytes = kMmaK * 2;
  static constexpr int kKStepsPerColumnBlock = kColumnBlock / kMmaK;
  static constexpr int kRowStepBytes = kMmaK * kSwizzleBytes;  // 16 rows of an N-major operand

  // Shared memory (each tile 1024-byte aligned): K, V, Q stages, dO stages, dS stages, the dQ
  // staging tile, LSE * log2 e and D per stage (kBlockM floats each), barriers. A pass that loads
  // no V has no V buffer: its dV leaves through K's (bwd_epilogue.cuh).
  static constexpr int kKOffset = 0;
  static constexpr int kVOffset = kLoadsV ? kKOffset + kKvBytes : kKOffset;
  static constexpr int kQOffset = kKOffset + kKeyBlockLoadBytes;
  static constexpr int kDoOffset = kQOffset + kStages * kQBytes;
  static constexpr int kDsOffset = kDoOffset + kStages * kQBytes;
  static constexpr int kDqOffset = kDsOffset + kDsStages * kDsBytes;
  static constexpr int kLseOffset = kDqOffset + kDqStageBytes;
  static constexpr int kStatBytes = kBlockM * 4;  // LSE * log2 e or D of one query block
  static constexpr int kDeltaOffset = kLseOffset + kStages * kStatBytes;
  static constexpr int kBarrierOffset = kDeltaOffset + kStages * kStatBytes;
  // kv_full, kv_empty, dq_full, dq_empty, q_full[S], q_empty[S], do_full[S], do_empty[S],
  // reduce_tile_full[2], reduce_tile_empty[2]
  static constexpr int kBarriers = 4 + 4 * kStages + 4;
  // The schedule's slots (bwd_tile_scheduler.cuh), one TMA box of the tile-index table each: the
  // tile the producer claimed, for the consumers; a two-slot ring of the same tiles for the
  // reduce warp.
  static constexpr int kScheduleSlotBytes = 128;  // a tensor copy's destination alignment
  static constexpr int kScheduleOffset = (kBarrierOffset + kBarriers * 8 + kScheduleSlotBytes - 1) /
                                         kScheduleSlotBytes * kScheduleSlotBytes;
  static constexpr int kSharedBytes = kScheduleOffset + 3 * kScheduleSlotBytes + kSwizzleAtomBytes;

  static_assert(HeadDim == 64 || HeadDim == 128 || HeadDim == 256, "tiles for hd 64/128/256");
  static_assert(sizeof(Element) == 2, "16-bit operands (bf16, fp16)");
  static_assert(HeadDim != 256 || Out != BwdOutputs::all,
                "hd256 splits dV from dK/dQ (registers), see BwdOutputs");
  static_assert(kBlockN / kColumnBlock == kConsumerWarpgroups,
                "dS column block w holds warpgroup w's keys");
  static_assert(kBlockM % kMmaM == 0 && kBlockM <= 2 * kMmaM, "dQ rows: one or two m64 tiles");
  static_assert(kDqCols % kColumnBlock == 0, "dQ columns are whole 64-column blocks of K");
  static_assert(!kBulkReduce || kDqChunks == 1, "the staging tile takes one chunk per iteration");
  static_assert(!kBulkReduce || kDkDq, "the reduce warp waits for a dQ tile every iteration");
  static_assert(kBlockM % 16 == 0 && kBlockM <= 256, "S^T's N: a multiple of 16 up to 256");
  static_assert(kQBlockBytes % kSwizzleAtomBytes == 0 && kKvBlockBytes % kSwizzleAtomBytes == 0 &&
                    kWarpgroupKvBytes % kSwizzleAtomBytes == 0,
                "every tile and warpgroup slice starts 1024-byte aligned");
  static_assert(kDqOffset % kSwizzleAtomBytes == 0, "tiles before the dQ staging stay aligned");
  static_assert(kDqBoxBytes % kSwizzleAtomBytes == 0, "dQ boxes start 1024-byte aligned");
  static_assert(kLseOffset % 128 == 0 && kStatBytes % 128 == 0,
                "TMA destinations: 128-byte aligned");
  static_assert(kSharedBytes <= kMaxSharedBytes, "tiles exceed the 227 KiB of shared memory");
};

// What the kernel reads: tensor maps ({headdim, seqlen, batch * heads} views, boxes of {64, rows,
// 1}), the float32 inputs and the dQ accumulator, and the problem's sizes.
struct BwdParams {
  CUtensorMap q_map;   // boxes of {64, kBlockM}
  CUtensorMap do_map;  // as q_map
  CUtensorMap k_map;   // boxes of {64, kBlockN}
  CUtensorMap v_map;
  CUtensorMap dk_map;  // boxes of {64, 64}: one warpgroup's keys
  CUtensorMap dv_map;
  // The backward workspace (bwd_common.hpp), rows_padded rows per head: {rows_padded, batch *
  // heads_q} maps (boxes of {kBlockM, 1}) of LSE * log2 e (+inf where no key is seen) and D =
  // rowsum(dO o O), and the zeroed float32 dQ accumulator (one slot).
  CUtensorMap lse_map;
  CUtensorMap delta_map;
  float* dq_accum;    // [batch][heads_q][rows_padded][headdim], mma_tiles order unless kBulkReduce
  int* tile_counter;  // tiles claimed past the first grid's worth; zeroed by preprocessing
  // The identity table of tile indices (bwd_common.hpp's tile_ids) in boxes of one entry: the
  // producer hands a claimed index to the consumers and the reduce warp by copying its entry.
  CUtensorMap tile_id_map;
  // The dQ accumulator as {headdim, 2, rows_padded - kBlockM / 2, batch * heads_q} float32, in
  // boxes of {32, 2, kBlockM / 2, 1} with the 128-byte swizzle (tensor_map.cuh's
  // float_row_halves_tensor_map): the staging tile's tensor reduce-adds (kBulkReduce).
  CUtensorMap dq_map;
  int seqlen_q;
  int seqlen_k;
  // The tiles' heads: heads_kv is the kv heads whose dK, dV the tiles write, heads_per_kv_head
  // the query heads a tile walks. Split GQA groups (fa3_tiles::bwd_split_gqa_groups) tile by
  // query head: heads_kv = heads_q, heads_per_kv_head = 1, dk_map and dv_map over the workspace's
  // partials, and K and V loaded from head bh / kv_load_group.
  int heads_q;
  int heads_kv;
  int heads_per_kv_head;
  int kv_load_group;  // query heads per K/V head when groups are split, else 1
  int batch;
  int rows_padded;  // seqlen_q rounded up to bwd::kRowAlignment (a multiple of kBlockM)
  int m_blocks;     // ceil(seqlen_q / kBlockM)
  int n_blocks;     // ceil(seqlen_k / kBlockN)
  int tiles;        // n_blocks * heads_kv * batch
  bool causal;
  int causal_group;       // the tiles' heads per scheduling section (causal; bwd_tile_scheduler)
  int causal_tail_heads;  // the tiles' heads of the last section
  float scale;       // softmax scale 1 / sqrt(headdim)
  float scale_log2;  // scale * log2(e)
};

}  // namespace fa4::kernels::fa3
