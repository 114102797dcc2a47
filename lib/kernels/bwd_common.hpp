// Pieces every backward kernel shares (plain C++; the kernels are in bwd_common.cu):
//
// - the workspace layout: float32 arrays carved out of AttnBuffers::workspace
//     lse_log2 [batch][heads_q][rows_padded]   LSE * log2(e); +inf for rows that see no key
//                                              (LSE -inf) and for the padding rows
//     d        [batch][heads_q][rows_padded]   D = rowsum(dO o O); 0 on the padding rows
//     tile_counters [kTileCounters] int   zeroed: a persistent kernel's tiles claimed so far, one
//                                          counter per main-kernel launch of the pass
//     tile_ids [tile_id_entries][4] int    entry i = {i, 0, 0, 0}: the identity, one entry per
//                                          (batch, kv head, key block of kMinKeyBlock keys) and
//                                          one more, for kernels that hand a tile's index from
//                                          thread to thread through a TMA copy
//     dq_accum [dq_slots][batch][heads_q][rows_padded][headdim], in one of two orders (dq_order):
//       rows       row-major;
//       mma_tiles  each band of 16 rows holds its headdim / 8 tiles of 16 x 8 one after another,
//                  128 floats each in the order of an m16n8 accumulator fragment (mma.sync, and
//                  wgmma per warp): float 4 * lane + i is row lane / 4 + 8 * (i / 2), column
//                  2 * (lane % 4) + i % 2. A warp adds its accumulator tile with one 16-byte
//                  reduction per lane over 512 contiguous bytes, where row-major order takes two
//                  8-byte reductions each touching 8 rows (8 cache lines: 4x the L1 tag lookups
//                  and L2 requests per byte; lib/kernels/NOTES.md).
//     dk_partials [batch][heads_q][seqlen_k][headdim], dv_partials [...][headdim_v]  shape.dtype,
//                                          only in a layout asked for per-query-head key
//                                          gradients: a kernel that splits each GQA group into
//                                          its query heads stores each head's share of dK and dV
//                                          there, and the group reduction sums them
//   rows_padded = seqlen_q rounded up to kRowAlignment, so a kernel whose query block divides
//   kRowAlignment reads LSE and D and adds into dq_accum without bounds checks (the padding rows
//   have P = 0, and what lands in their dq_accum rows never reaches dQ: the conversion of the
//   mma_tiles order reads the padding rows of a band beside its real rows and drops their sums).
//   dq_slots is 1 for kernels that add every key block's dQ into one accumulator (atomics), or
//   more for deterministic kernels: slot j holds the partial dQ of a fixed set of key blocks whose
//   first is key block j, written to every row of every query block key block j visits (the
//   set's later key blocks visit no other rows: with causal masking they start at or after it).
// - the preprocessing kernel: lse_log2 and d for every row (padding included), zeroed tile
//   counters, the tile-index table, and optionally zeroes slot 0 of dq_accum (for kernels that
//   accumulate with atomics).
// - the dQ conversion kernel: dQ = softmax_scale * (sum of the slots in slot order), rounded to
//   shape.dtype. The accumulators hold dS K without the softmax scale; the conversion applies it.
//   With causal masking, row r sums only the slots j whose first key j * key_block it sees
//   (j * key_block <= r + seqlen_k - seqlen_q): the slots a deterministic kernel wrote for it.
//   Rows that see no key get dQ = 0.
// - the group reduction (per-query-head key gradients only): dK and dV of kv head j = the sum of
//   the partials of its query heads j * g .. j * g + g - 1 (g = heads_q / heads_kv) in float32,
//   rounded once to shape.dtype.
//
// dS here is the gradient with respect to the scaled scores (scale * Q K^T); dK = scale * dS^T Q is
// the main kernel's to scale.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/error.hpp"
#include "core/shape.hpp"
#include "kernels/registry.hpp"

namespace fa4::kernels::bwd {

inline constexpr std::int64_t kRowAlignment = 128;   // every query block must divide it
inline constexpr std::size_t kArrayAlignment = 256;  // bytes, each array's start
inline constexpr int kTileCounters = 2;              // fa3_bwd at hd256 launches twice
inline constexpr std::int64_t kMinKeyBlock = 64;     // the tile-index table's key-block bound

enum class DqOrder { rows, mma_tiles };
inline constexpr int kDqTileRows = 16;  // mma_tiles order: rows and columns of one tile
inline constexpr int kDqTileColumns = 8;
static_assert(kRowAlignment % kDqTileRows == 0, "whole bands of tiles in the padded rows");

// mma_tiles order: the offset in floats, from its head's first row, of the tile whose first
// element is (row, column), row a multiple of 16 and column of 8 (the lane's four floats are at
// + 4 * lane).
constexpr std::int64_t dq_tile_offset(std::int64_t row, std::int64_t column, std::int64_t headdim) {
  return row * headdim + column * kDqTileRows;
}

struct WorkspaceLayout {
  std::int64_t rows_padded = 0;  // seqlen_q rounded up to kRowAlignment
  std::int64_t dq_slots = 1;
  DqOrder dq_order = DqOrder::rows;
  std::size_t dq_slot_floats = 0;   // batch * heads_q * rows_padded * headdim
  std::size_t lse_log2_offset = 0;  // bytes from the workspace start
  std::size_t d_offset = 0;
  std::size_t tile_counters_offset = 0;
  std::size_t tile_ids_offset = 0;
  // batch * (heads_q with per-query-head key gradients, else heads_kv)
  //   * ceil(seqlen_k / kMinKeyBlock) + 1
  std::int64_t tile_id_entries = 0;
  std::size_t dq_accum_offset = 0;
  bool key_grad_partials = false;
  std::size_t dk_partials_offset = 0;
  std::size_t dv_partials_offset = 0;
  std::size_t bytes = 0;  // the workspace_bytes a kernel using this layout reports
};

WorkspaceLayout workspace_layout(const AttnShape& shape, std::int64_t dq_slots, DqOrder dq_order,
                                 bool key_grad_partials = false);

// The arrays of `layout` inside `workspace` (AttnBuffers::workspace).
struct WorkspaceArrays {
  float* lse_log2;
  float* d;
  int* tile_counters;
  std::int32_t* tile_ids;
  float* dq_accum;
  void* dk_partials;  // nullptr without per-query-head key gradients
  void* dv_partials;
};
WorkspaceArrays workspace_arrays(const WorkspaceLayout& layout, void* workspace);

// Enqueues the preprocessing kernel (reads buffers.o, buffers.dout, buffers.lse). Needs headdim
// and headdim_v multiples of 8 (16-byte vectors).
Status launch_preprocess(const AttnShape& shape, const AttnBuffers& buffers,
                         const WorkspaceLayout& layout, bool zero_dq_accum, Stream stream);

// Enqueues the dQ conversion into buffers.dq; key_block is the key-block size of the kernel that
// filled the slots (used only with causal masking and dq_slots > 1).
Status launch_dq_convert(const AttnShape& shape, const AttnBuffers& buffers,
                         const WorkspaceLayout& layout, std::int64_t key_block, Stream stream);

// Enqueues the group reduction of a layout with key_grad_partials into buffers.dk and buffers.dv.
Status launch_group_reduce(const AttnShape& shape, const AttnBuffers& buffers,
                           const WorkspaceLayout& layout, Stream stream);

}  // namespace fa4::kernels::bwd
