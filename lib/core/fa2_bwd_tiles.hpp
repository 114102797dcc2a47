// fa2_bwd's blocks (lib/kernels/fa2_bwd.cu) as constexpr functions of the head dim, so that the
// kernel instantiates them and the model's kernel table (lib/orchestration/kernel_models.cpp)
// predicts with the same ones; the reasons for each are in fa2_bwd.cu's header. Plain C++, no CUDA.
#pragma once

namespace fa4::fa2_bwd_tiles {

// Query rows per step: 128 at hd64 (PyTorch's flash backward's hd64 tile), 64 above, where dK
// and dV take 128 float32 registers a thread.
constexpr int query_block(int headdim) { return headdim == 64 ? 128 : 64; }
// Keys per CTA: 128, halved at hd256 to keep dK and dV at 128 registers a thread.
constexpr int key_block(int headdim) { return headdim == 256 ? 64 : 128; }
// Causal thread blocks run longest first within sections of (kv head, batch) rows, so that the
// blocks running together (one per SM) are several key blocks of each row and share its Q, dO and
// dQ accumulator rows in L2: sections of 8 rows where a row has at least 32 key blocks, more rows
// where it has fewer (at most 32), so that a section holds about 256 blocks, two waves of a
// Hopper's 132 SMs, and the longest blocks of the last sections do not start late (fa2_bwd.cu has
// the measurements behind the values).
constexpr int causal_section_rows(int key_blocks) {
  const int rows = (256 + key_blocks - 1) / key_blocks;
  return rows < 8 ? 8 : rows > 32 ? 32 : rows;
}

// Whether a causal GQA group's query heads get a thread block each (dK and dV of each head into
// the workspace, summed by the group reduction after the main kernel) instead of one block
// walking them all, which holds the Q, dO and dQ accumulator rows of all its heads in flight.
// Measured on a lent H200 (hd128 causal, ms, group walk / split; fa2_bwd.cu's notes): groups of
// 16 at s16384 81.1 / 75.9, groups of 8 at s8192 20.0 / 19.6 and s32768 157.5 / 149.6; but groups
// of 4 at s4096 5.04 / 5.35 and s8192 9.61 / 9.90, and hd256's groups of 4 at s4096-16384 3-6%
// slower. Only hd128's kernel has the split compiled in (kSplitGroupsHeadDim), and only fa2_bwd's:
// fa2_bwd_deterministic walks the groups (split, its hd128 kernel spilled 40 B and ran 1.9% slower
// at 64/8 heads s8192).
inline constexpr int kSplitGroupsHeadDim = 128;
constexpr bool split_gqa_groups(bool deterministic, bool causal, int heads_per_kv_head,
                                long long seqlen_q, int headdim) {
  return !deterministic && causal && heads_per_kv_head >= 8 && seqlen_q >= 8192 &&
         headdim == kSplitGroupsHeadDim;
}

// Whether fa2_bwd_deterministic's thread blocks walk several key blocks each (below) at a head
// dim. Not at hd256: there the walking kernel ran 10-11% slower than the one-key-block kernel even
// with one slot per key block (hd256 s8192 non-causal, 16.2 against 14.6 ms on a lent H200), and
// 12-19% slower with its fewest slots.
constexpr bool deterministic_walks_slots(int headdim) { return headdim != 256; }

// fa2_bwd_deterministic's float32 dQ slots per (batch, query head). The thread blocks of one (kv
// head, batch) row take a slot each and walk its key blocks in a fixed order (slot j: key blocks
// j, 2S - 1 - j, 2S + j, ... for S slots, a snake over rounds of S, so that causal walks even
// out), storing the first one's dQ parts into the slot and adding the rest's; the conversion sums
// the slots in order. A slot's blocks take waves(S) = ceil(S x `rows` / `multiprocessors`) waves
// (one block per SM) of walks of up to ceil(key_blocks / S) key blocks; S is the fewest slots
// whose waves(S) x ceil(key_blocks / S) is within 10% of the least over every S, at most one per
// key block; one per key block where the blocks do not walk. One slot per key block everywhere
// held ceil(seqlen_k / key block) copies of dQ (17 GB at hd128 s16384 b1 h16) and made the
// conversion read them all back; the fewest slots measured 1-7% faster at hd64 and hd128 on a
// lent H200 (lib/kernels/NOTES.md). Counting the walk's longest slot, not only the waves' fill,
// takes 16 slots of 16 key blocks at 8 rows and 256 key blocks where filling 90% of a wave took
// 15 slots walking up to 18.
constexpr int deterministic_dq_slots(int key_blocks, long long rows, int multiprocessors,
                                     int headdim) {
  const int all = key_blocks < 1 ? 1 : key_blocks;
  if (!deterministic_walks_slots(headdim)) return all;
  const long long sms = multiprocessors < 1 ? 1 : multiprocessors;  // an unknown count: one
  const auto makespan = [&](int slots) {
    const long long waves = (slots * rows + sms - 1) / sms;
    return waves * ((all + slots - 1) / slots);
  };
  long long least = makespan(all);
  for (int slots = 1; slots < all; ++slots) {
    const long long m = makespan(slots);
    if (m < least) least = m;
  }
  for (int slots = 1; slots < all; ++slots)
    if (10 * makespan(slots) <= 11 * least) return slots;
  return all;
}

}  // namespace fa4::fa2_bwd_tiles
