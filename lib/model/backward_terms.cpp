// The backward's terms beside its tiles: which kernels walk a GQA group per CTA, the launches
// around the main kernel and their HBM bytes, the dQ slots, the layout copies, FA4's dQ chain and
// the dQ adds that miss L2.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "core/fa2_bwd_tiles.hpp"
#include "core/fa3_tiles.hpp"
#include "model/algorithm_traits.hpp"
#include "model/blocks.hpp"
#include "model/factors.hpp"
#include "model/model.hpp"
#include "model/predict_internal.hpp"

namespace fa4::model::internal {

// Our backward kernels on Hopper: fa2_bwd, and fa3_bwd where the options ask for it. One CTA walks
// a key block's query blocks for all the query heads of its GQA group (dK, dV summed in registers),
// and one CTA fills an SM (fa2_bwd's 8 warps take 227-254 registers a thread).
bool lab_backward(const hw::Spec& gpu, const Options& o) {
  return o.pass == Pass::bwd && is_hopper(gpu) &&
         (o.algorithm == Algorithm::fa2 || o.group_walking_backward);
}
int resident_ctas(const hw::Spec& gpu, const AttnShape& s, const Options& o) {
  return lab_backward(gpu, o) ? 1 : ctas_per_sm(s, o.algorithm);
}

// A persistent backward on Hopper as FA3 publishes it (and cuDNN's as the model takes it): the
// model's fa3 or fa4 backward pass on Hopper without the lab's fa3_bwd schedule. Like our kernels
// it runs a preprocessing and a dQ conversion launch beside its main kernel (FA3's
// flash_bwd_preprocess and flash_bwd_postprocess), and its consumer warpgroups wait on their
// GEMMs and on the dS barrier once per query block and fills its pipeline once per key block
// (factors.def, kHopperBackwardStepWaitCycles, kHopperBackwardKeyBlockFillCycles).
bool hopper_persistent_backward(const hw::Spec& gpu, const Options& o) {
  return o.pass == Pass::bwd && is_hopper(gpu) && is_persistent(o.algorithm) && !o.group_walking_backward;
}

// A persistent backward on Blackwell (FA4's own, cuDNN's as the model takes it) runs the same
// launches beside its main kernel: FA4's interface calls _bwd_preprocess (O, dO row sums, LSE
// scaled, the dQ accumulator zeroed) and _bwd_postprocess_convert (dQ to 16 bits)
// (flash_attn/cute/interface.py at 0251105), cuDNN's on H200 compute_dot_do_o and
// convert_dq_to_16bits (lib/kernels/fa3/NOTES_BWD.md, run 7). FA4's split hd256 kernels keep dQ in
// tensor memory: the preprocessing alone.
bool blackwell_persistent_backward(const hw::Spec& gpu, const Options& o) {
  return o.pass == Pass::bwd && is_blackwell(gpu) && is_persistent(o.algorithm);
}
// dK and dV of `heads` heads per batch, 16-bit or 8-bit as the inputs.
double key_grad_bytes(const AttnShape& s, double heads) {
  return double(s.batch) * heads * double(s.seqlen_k) * double(s.headdim + s.headdim_v) *
         element_bytes(s.dtype);
}

// The launches after a GQA backward's main kernel that sum each group's dK, dV partials, stored
// per query head: one where the lab's fa3_bwd or fa2_bwd splits the groups (lab_splits_groups),
// two for cuDNN (Options::group_reduced_key_grads); 0 where dK and dV leave summed.
int key_grad_reduce_launches(const hw::Spec& gpu, const AttnShape& s, const Options& o) {
  if (o.pass != Pass::bwd || s.heads_q == s.heads_kv) return 0;
  if (lab_backward(gpu, o) && lab_splits_groups(s, o)) return 1;
  return o.group_reduced_key_grads ? 2 : 0;
}

// fa2_bwd_deterministic's dQ slots (core/fa2_bwd_tiles.hpp's deterministic_dq_slots) where its
// thread blocks walk several key blocks each (one slot a block, its key blocks in a snake order
// that evens out their work), 0 elsewhere.
int walking_dq_slots(const hw::Spec& gpu, const AttnShape& s, const Options& o, Tile t) {
  if (!lab_backward(gpu, o) || !o.deterministic || o.algorithm != Algorithm::fa2) return 0;
  const int key_blocks = int(ceil_div(double(s.seqlen_k), t.n));
  const int slots = fa2_bwd_tiles::deterministic_dq_slots(key_blocks, s.batch * s.heads_kv,
                                                          gpu.sms, int(s.headdim));
  return slots < key_blocks ? slots : 0;
}

// Query rows times the dQ slots each one sums in the conversion: with causal masking, row r sums
// the slots j whose first key, j * key_block, it sees (bwd_common.hpp).
double slot_rows(const AttnShape& s, int slots, double key_block) {
  if (!s.causal) return double(slots) * double(s.seqlen_q);
  const double shift = diagonal_shift(s), sq = double(s.seqlen_q);
  double rows = 0;
  for (int j = 0; j < slots; ++j)
    rows += std::clamp(sq - std::max(0.0, j * key_block - shift), 0.0, sq);
  return rows;
}

// The launches beside the main kernel of a Hopper backward (ours, lib/kernels/bwd_common: fa2_bwd,
// and fa3_bwd where the options ask for it; FA3's published one) and of a Blackwell persistent one
// (blackwell_persistent_backward), which run before and after it:
// their HBM time adds to the main kernel's. The preprocessing reads O and dO, writes D and LSE *
// log2 e and zeroes the float32 dQ accumulator; the conversion reads it and writes dQ. The
// deterministic variant stores each key block's dQ part in a slot of its own (plain stores in the
// main kernel, a share of their time exposed) and the conversion reads the slots the rows see
// instead.
std::optional<SideLaunches> backward_side_launches(const hw::Spec& gpu, const AttnShape& s,
                                                   const Options& o, const Prediction& p) {
  if (!lab_backward(gpu, o) && !hopper_persistent_backward(gpu, o) &&
      !blackwell_persistent_backward(gpu, o))
    return std::nullopt;
  const double e = element_bytes(s.dtype);
  const double rows = double(s.batch) * double(s.heads_q) * double(s.seqlen_q);
  const double dq_accumulator = kLseBytes * rows * double(s.headdim);
  const double preprocessing = 2 * rows * s.headdim_v * e + 2 * kLseBytes * rows;
  const double conversion_write = rows * double(s.headdim) * e;
  SideLaunches side{preprocessing + dq_accumulator + dq_accumulator + conversion_write, 2};
  if (o.split_dq_backward) side = {preprocessing, 1};
  if (o.deterministic && o.algorithm == Algorithm::fa2) {
    // The slots the conversion reads: one per key block (every visited tile's rows), or as many
    // as walking blocks (each row's share of them). The stores and adds hide in the main kernel.
    const int walking = walking_dq_slots(gpu, s, o, p.tile);
    const double slot_bytes =
        kLseBytes * double(s.headdim) *
        (walking > 0 ? double(s.batch) * double(s.heads_q) * slot_rows(s, walking, p.tile.n)
                     : p.tiles * p.tile.m);
    side.bytes = preprocessing + slot_bytes + conversion_write;
  }
  side.launches += backward_recompute(s, o).launches;
  return side;
}

// The time of a backward call's layout copies (Options::layout_copies): two query-side tensors,
// each read and written once.
double layout_copy_seconds(const hw::Spec& gpu, const AttnShape& s) {
  constexpr double kCopies = 2;
  const double tensor = double(s.batch) * double(s.heads_q) * double(s.seqlen_q) *
                        double(s.headdim_v) * element_bytes(s.dtype);
  return kCopies * 2 * tensor / (gpu.hbm_bytes_per_s * factors::kLayoutCopyBandwidthShare);
}

// FA4's deterministic backward: the time its dQ semaphore chain takes (factors.def,
// kFa4DqChainLinkSeconds): one link per CTA, the heads of one L2 section chaining at once.
double fa4_dq_chain_seconds(const AttnShape& s, const Prediction& p) {
  const double head_bytes =
      double(s.seqlen_k) * (double(s.headdim + s.headdim_v) * element_bytes(s.dtype) +
                            double(s.headdim) * kLseBytes);
  const double fit = std::floor(factors::kFa4BackwardL2SectionBytes / head_bytes);
  const double heads_per_section =
      std::min(fit < 1 ? 1.0 : std::exp2(std::floor(std::log2(fit))),
               double(s.batch) * double(s.heads_q));
  return p.ctas * factors::kFa4DqChainLinkSeconds / heads_per_section;
}

// HBM bytes of a causal backward's dQ adds that miss L2 (Options::dq_adds_spill_l2): per query
// row, the keys it sees beyond factors::kSpilledDqAddBandKeys of its diagonal (the unmasked pairs
// less those a window of the band's width would leave), at
// factors::kSpilledDqAddHbmBytesPerElement per dQ element; none in a launch of fewer than
// factors::kSpilledDqAddMinQueryHeads query heads.
double spilled_dq_add_bytes(const AttnShape& s) {
  if (double(s.batch) * double(s.heads_q) < factors::kSpilledDqAddMinQueryHeads) return 0;
  const auto band = std::int64_t(factors::kSpilledDqAddBandKeys);
  AttnShape within_band = s;
  within_band.window = s.window ? std::min(s.window, band) : band;
  const double keys_beyond = unmasked_pairs(s) - unmasked_pairs(within_band);  // per head
  return double(s.batch) * double(s.heads_q) * keys_beyond * double(s.headdim) *
         factors::kSpilledDqAddHbmBytesPerElement;
}

}  // namespace fa4::model::internal
