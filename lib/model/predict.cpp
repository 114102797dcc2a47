// Whole-kernel time from the tiles: how many tiles each CTA runs for the shape (causal masking
// bottom-right aligned, GQA, seqlen_q != seqlen_k), how the CTAs fill the SMs (waves, tails),
// the prologue and epilogue of each CTA, HBM traffic, and launch overhead. predict() checks the
// shape, the options and the tile, then hands over to one function per algorithm family; the
// factors it reports are described in factors.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "core/fa2_bwd_tiles.hpp"
#include "core/fa3_tiles.hpp"
#include "model/algorithm_traits.hpp"
#include "model/blocks.hpp"
#include "model/factors.hpp"
#include "model/model.hpp"

namespace fa4::model {
namespace {

constexpr double kLseBytes = 4;

// Bytes per clock one SM may draw from HBM when every SM pulls at once.
double hbm_bytes_per_clk_per_sm(const hw::Spec& gpu) {
  return gpu.hbm_bytes_per_s * gpu.copy_efficiency / gpu.sms / (gpu.peak_clock_mhz * 1e6);
}

struct Schedule {
  double ctas = 0;
  double tiles = 0;
  double makespan_cycles = 0;  // SM cycles until the last CTA ends
  double waves = 0;
};

// Places the CTAs of one (batch, head) pattern, repeated batch*heads times, on the SMs; where one
// CTA walks `heads_per_cta` query heads (our backward kernels walk a GQA group's), a CTA's tiles
// are that many heads' and there are that many times fewer CTAs.
// Equal CTAs run in whole waves; unequal ones (causal) end at the fluid bound, plus half a mean
// CTA for a plain launch (list scheduling), half the shortest CTA for a longest-first scheduler or
// a share of the longest for one that takes its tiles in a fixed order (factors.hpp,
// kListScheduleTailShare, kLongestFirstTailShare, kFixedOrderTailShare).
Schedule schedule(const hw::Spec& gpu, const AttnShape& s, Algorithm algorithm, Pass pass, Tile t,
                  double tile_cycles, double cta_overhead_cycles, double heads_per_cta,
                  int per_sm, bool fixed_order_tiles) {
  const double blocks_per_head =
      pass == Pass::fwd ? ceil_div(double(s.seqlen_q), t.m) : ceil_div(double(s.seqlen_k), t.n);
  const double repeats = double(s.batch) * double(s.heads_q) / heads_per_cta;
  const double slots = double(gpu.sms) * per_sm;
  double tiles = 0, longest = 0, shortest = 0, first = -1;
  bool equal = true;
  for (double i = 0; i < blocks_per_head; ++i) {
    const double n =
        heads_per_cta *
        (pass == Pass::fwd
             ? forward_blocks(s, t, i * t.m, std::min((i + 1) * t.m, double(s.seqlen_q)))
             : backward_blocks(s, t, i * t.n));
    tiles += n;
    longest = std::max(longest, n);
    if (n > 0 && (shortest == 0 || n < shortest)) shortest = n;
    if (first < 0) first = n;
    equal = equal && n == first;
  }
  Schedule out;
  out.ctas = blocks_per_head * repeats;
  out.tiles = tiles * repeats;
  out.waves = out.ctas / slots;
  // Co-resident CTAs share the SM: each runs at 1/per_sm of its speed.
  const double cta_cycles = (longest * tile_cycles + cta_overhead_cycles) * per_sm;
  if (equal) {
    out.makespan_cycles = std::ceil(out.waves) * cta_cycles;
    return out;
  }
  const double total = (out.tiles * tile_cycles + out.ctas * cta_overhead_cycles) * per_sm;
  const double shortest_cta_cycles = (shortest * tile_cycles + cta_overhead_cycles) * per_sm;
  double tail = factors::kLongestFirstTailShare * shortest_cta_cycles;
  if (!is_persistent(algorithm))
    tail = factors::kListScheduleTailShare * total / out.ctas;
  else if (fixed_order_tiles)
    tail = factors::kFixedOrderTailShare * cta_cycles;
  out.makespan_cycles = std::max(total / slots, cta_cycles) + tail;
  return out;
}

// One streaming phase of the naive algorithm: the larger of its arithmetic and its HBM time.
double phase_seconds(const hw::Spec& gpu, double flops, double bytes) {
  const double compute = flops / (gpu.peak_flops(Dtype::bf16) * gpu.gemm_efficiency);
  const double memory =
      bytes / (gpu.hbm_bytes_per_s * gpu.copy_efficiency * factors::kNaiveStreamingShare);
  return std::max(compute, memory) + factors::kLaunchOverheadSeconds;
}

// A share of a datasheet figure measured on this GPU, with the model file's source.
Factor measured_share(const hw::Spec& gpu, factors::Reported factor, double value,
                      const std::string& pointer) {
  Factor f = factors::reported(factor, value);
  f.fitted_to = gpu.sources.count(pointer) ? gpu.sources.at(pointer) : "";
  return f;
}

// The factors every prediction reports: the GPU's measured shares and the launch overhead.
void add_common_factors(const hw::Spec& gpu, Prediction& p) {
  p.factors.push_back(measured_share(gpu, factors::Reported::gemm_efficiency, gpu.gemm_efficiency,
                                     "/gemm_efficiency"));
  p.factors.push_back(measured_share(gpu, factors::Reported::copy_efficiency, gpu.copy_efficiency,
                                     "/copy_efficiency"));
  p.factors.push_back(
      factors::reported(factors::Reported::launch_overhead_s, factors::kLaunchOverheadSeconds));
}

// The naive algorithm: three streaming launches, S and P in HBM.
Result<Prediction> predict_naive(const hw::Spec& gpu, const AttnShape& s, Prediction p) {
  p.factors.push_back(
      factors::reported(factors::Reported::naive_streaming_share, factors::kNaiveStreamingShare));
  p.factors.push_back(
      factors::reported(factors::Reported::naive_row_latency_s, factors::kNaiveRowLatencySeconds));
  // S = Q K^T, softmax, O = P V as three launches; S and P (input dtype) live in HBM, and the
  // causal mask saves nothing (the full S is computed, then masked).
  const double e = element_bytes(s.dtype);
  const double bh = double(s.batch) * double(s.heads_q);
  const double sq = double(s.seqlen_q), sk = double(s.seqlen_k);
  const double d = double(s.headdim), dv = double(s.headdim_v);
  const double scores = bh * sq * sk * e;
  if (2 * scores > gpu.hbm_capacity_bytes)
    return Error{
        fmt::format("naive attention for {} needs {:.1f} GB for S and P in HBM; {} has "
                    "{:.0f} GB: shorten the sequence or use a fused kernel",
                    describe(s), 2 * scores / 1e9, gpu.name, gpu.hbm_capacity_bytes / 1e9)};
  const double q = bh * sq * d * e, k = bh * sk * d * e, v = bh * sk * dv * e, o = bh * sq * dv * e;
  double seconds = 0;
  if (p.pass == Pass::fwd) {
    seconds += phase_seconds(gpu, 2 * bh * sq * sk * d, q + k + scores);  // S = Q K^T
    // The row softmax reads each row's unmasked scores (online max and sum), then reads and
    // writes the whole row (P), with one exp2 per unmasked score on MUFU in each pass.
    const double visible = unmasked_pairs(s) / (sq * sk);
    const double exps = 2 * visible * bh * sq * sk;
    const double mufu_s = exps / (gpu.per_sm.mufu_ex2_per_clk * gpu.sms * gpu.peak_clock_mhz * 1e6);
    // One block per row: each holds one of the SM's row slots for its latency, besides its bytes.
    const double row_latency_s =
        bh * sq / (gpu.sms * factors::kNaiveRowsInFlightPerSm) * factors::kNaiveRowLatencySeconds;
    seconds +=
        std::max(mufu_s, phase_seconds(gpu, 0, (2 + visible) * scores + bh * sq * kLseBytes)) +
        row_latency_s;
    seconds += phase_seconds(gpu, 2 * bh * sq * sk * dv, scores + v + o);  // O = P V
  } else {
    seconds += phase_seconds(gpu, 2 * bh * sq * sk * dv, scores + 2 * o + v);  // dV = P^T dO
    seconds += phase_seconds(gpu, 2 * bh * sq * sk * dv, 2 * o + v + scores);  // dP = dO V^T
    seconds += phase_seconds(gpu, 0, 3 * scores);                              // dS
    seconds += phase_seconds(gpu, 2 * bh * sq * sk * d, scores + k + q);       // dQ = dS K
    seconds += phase_seconds(gpu, 2 * bh * sq * sk * d, scores + q + k);       // dK = dS^T Q
  }
  p.time_s = seconds;
  p.ctas = bh * ceil_div(sq, p.tile.m);
  p.tiles = p.ctas * ceil_div(sk, p.tile.n);
  p.waves = p.ctas / gpu.sms;
  // Per tile: S written and read, P written and read (forward), at the SM's share of bandwidth.
  p.tile_cycles.hbm = 4 * double(p.tile.m) * p.tile.n * e / hbm_bytes_per_clk_per_sm(gpu);
  p.tile_time_cycles = p.tile_cycles.hbm;
  p.bottleneck = Unit::hbm;
  return p;
}

// One tile's softmax stream and its time beside the tensor stream: the longer stream, plus the
// part of the shorter one it does not hide (algorithm_traits.hpp, overlap): a share of the
// shorter stream, or, for Hopper's ping-pong (per_longer_stream), `hidden` cycles per cycle of the
// longer one. FA2's ldmatrix reads add `exposed_smem` of the SMEM time to the softmax stream.
struct StreamTimes {
  double softmax = 0;
  double tile = 0;
};
StreamTimes stream_times(const TileCycles& t, double tensor, double exposed_smem, double hidden,
                         bool per_longer_stream) {
  const double softmax = std::max(t.exp_mufu, t.fma) + exposed_smem * t.smem;
  const double longer = std::max(tensor, softmax), shorter = std::min(tensor, softmax);
  const double exposed =
      per_longer_stream ? std::max(0.0, shorter - hidden * longer) : (1 - hidden) * shorter;
  return {softmax, longer + exposed};
}

// The share of the tensor peak a Blackwell forward's tensor stream sustains: Blackwell Ultra's own
// (factors.hpp, kBlackwellUltraForwardTensorShare), elsewhere the GPU's sustained share.
double blackwell_forward_tensor_share(const hw::Spec& gpu) {
  return is_blackwell_ultra(gpu) ? factors::kBlackwellUltraForwardTensorShare : gpu.gemm_efficiency;
}

// FA4's forward on Blackwell (factors.hpp, kBlackwellStreamNormExponent): every unit at the GPU's
// sustained share (the tensor stream at Blackwell Ultra's own), the softmax warps at their share
// of the issue rate, the two streams combined as a norm.
StreamTimes blackwell_forward_times(const hw::Spec& gpu, const TileCycles& t, double& tensor) {
  const double sustained = gpu.gemm_efficiency;
  tensor = std::max(t.mma, t.smem) / blackwell_forward_tensor_share(gpu);
  const double softmax =
      std::max(t.exp_mufu, t.fma / factors::kBlackwellSoftmaxIssueShare) / sustained;
  const double p = factors::kBlackwellStreamNormExponent;
  return {softmax, std::pow(std::pow(tensor, p) + std::pow(softmax, p), 1 / p)};
}

// The unit whose work sets the tile: the busiest at the rates the tile rule gives each.
Unit busiest_unit(const TileCycles& c, double mma_share, double issue_share) {
  Unit busiest = Unit::mma;
  double most = c.mma / mma_share;
  for (auto [unit, busy] :
       {std::pair{Unit::exp_mufu, c.exp_mufu}, std::pair{Unit::fma, c.fma / issue_share},
        std::pair{Unit::smem, c.smem}})
    if (busy > most) {
      most = busy;
      busiest = unit;
    }
  return busiest;
}

// Bytes each CTA moves besides its tiles: Q (or K, V for backward) and the first tile loaded, O
// (or dK, dV) stored.
double cta_bytes(const AttnShape& s, const Prediction& p) {
  const double e = element_bytes(s.dtype);
  const double rows = p.pass == Pass::fwd ? p.tile.m : p.tile.n;
  return rows * double(s.headdim + 2 * s.headdim_v) * e +
         (p.pass == Pass::fwd ? rows * kLseBytes : rows * s.headdim * e);
}

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
// (factors.hpp, kHopperBackwardStepWaitCycles, kHopperBackwardKeyBlockFillCycles).
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

// The launches beside the main kernel of a Hopper backward (ours, lib/kernels/bwd_common: fa2_bwd,
// and fa3_bwd where the options ask for it; FA3's published one) and of a Blackwell persistent one
// (blackwell_persistent_backward), which run before and after it:
// their HBM time adds to the main kernel's. The preprocessing reads O and dO, writes D and LSE *
// log2 e and zeroes the float32 dQ accumulator; the conversion reads it and writes dQ. The
// deterministic variant stores each key block's dQ part in a slot of its own (plain stores in the
// main kernel, a share of their time exposed) and the conversion reads the slots the rows see
// instead.
struct SideLaunches {
  double bytes = 0;  // HBM bytes whose time adds to the main kernel's
  int launches = 0;  // besides the main kernel's (one per pass)
};
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

// FA4's deterministic backward: the time its dQ semaphore chain takes (factors.hpp,
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

// FA4's split hd256 backward (Options::split_dq_backward) runs its two kernels one after the
// other, each with its share of the tile (split_backward_key_kernel_share). The dK/dV kernel has
// one CTA per kSplitBackwardDkDvCtaKeys keys and kv head, each walking every query head of its
// group: few kv heads and short sequences leave SMs idle, and the longest CTA sets its time. The
// dQ kernel has one CTA per query block and query head. Both grids start their CTAs in block
// order: the dK/dV kernel's longest first under a causal mask (its first keys see every query),
// the dQ kernel's shortest first (Options::fixed_order_tiles' tail). The model's tile is counted
// once, though both kernels do part of it.
Schedule split_backward_schedule(const hw::Spec& gpu, const AttnShape& s, const Options& o,
                                 const Prediction& p, double cta_overhead_cycles) {
  const double key_share = split_backward_key_kernel_share(s);
  const double group = double(s.heads_q) / double(s.heads_kv);
  const int per_sm = resident_ctas(gpu, s, o);
  const Tile key_tile{p.tile.m, kSplitBackwardDkDvCtaKeys};
  const double key_tile_cycles = key_share * p.tile_time_cycles * key_tile.n / p.tile.n;
  const Schedule keys = schedule(gpu, s, p.algorithm, Pass::bwd, key_tile, key_tile_cycles,
                                 cta_overhead_cycles, group, per_sm, /*fixed_order_tiles=*/false);
  const Schedule queries =
      schedule(gpu, s, p.algorithm, Pass::fwd, p.tile, (1 - key_share) * p.tile_time_cycles,
               cta_overhead_cycles, 1, per_sm, /*fixed_order_tiles=*/true);
  return {.ctas = keys.ctas + queries.ctas,
          .tiles = queries.tiles,
          .makespan_cycles = keys.makespan_cycles + queries.makespan_cycles,
          .waves = keys.waves + queries.waves};
}

// The time SM cycles that take peak_s at the peak clock take on a GPU whose model gives a sustained
// clock share below 1: the clock starts at the boost clock and falls toward that share of it
// (factors.hpp, kLaunchClockTimeConstantSeconds), so with a = boost / peak and b = share x a the
// launch takes the t that solves b t + (a - b) tau (1 - e^(-t / tau)) = peak_s. The left side is
// concave and rises with t, so Newton's steps from below (the whole launch at the boost clock, t =
// peak_s / a) climb to the root without passing it. A share of 1, where a model file gives none,
// keeps the peak clock.
double seconds_under_power_cap(const hw::Spec& gpu, double peak_s) {
  if (gpu.sustained_clock_share >= 1 || peak_s <= 0) return peak_s;
  const double tau = factors::kLaunchClockTimeConstantSeconds;
  const double boost = gpu.boost_clock_mhz / gpu.peak_clock_mhz;
  const double sustained = gpu.sustained_clock_share * boost;
  double t = peak_s / boost;
  for (int step = 0; step < 50; ++step) {
    const double settled = -std::expm1(-t / tau);  // 1 - e^(-t / tau), exact for short launches
    const double gap = peak_s - (sustained * t + (boost - sustained) * tau * settled);
    t += gap / (sustained + (boost - sustained) * (1 - settled));
    if (gap <= 1e-12 * peak_s) break;
  }
  return t;
}

// The fused algorithms' whole-kernel figures from the tile time: the CTAs on the SMs (with
// `cta_overhead_cycles` per CTA), HBM traffic, launches, and the kernel's bottleneck.
void schedule_fused(const hw::Spec& gpu, const AttnShape& s, const Options& o, Prediction& p,
                    double cta_overhead_cycles) {
  const bool persistent = is_persistent(p.algorithm);
  // Our backward kernels walk a GQA group per CTA unless they split it (one query head each).
  const double heads_per_cta = lab_backward(gpu, o) && !lab_splits_groups(s, o)
                                   ? double(s.heads_q) / double(s.heads_kv)
                                   : 1;
  Schedule plan = o.split_dq_backward
                      ? split_backward_schedule(gpu, s, o, p, cta_overhead_cycles)
                      : schedule(gpu, s, p.algorithm, p.pass, p.tile, p.tile_time_cycles,
                                 cta_overhead_cycles, heads_per_cta, resident_ctas(gpu, s, o),
                                 o.fixed_order_tiles);
  if (const int slots = walking_dq_slots(gpu, s, o, p.tile)) {
    // One block per slot and row walks the slot's key blocks: the waves of those blocks, each
    // as long as its key blocks (tiles and overheads). Causal key blocks even out over the snake
    // (a share of the average); non-causal ones are equal, and a slot walks ceil(K / S) of them.
    const double blocks = double(slots) * double(s.batch) * double(s.heads_kv);
    const double key_blocks = ceil_div(double(s.seqlen_k), p.tile.n);
    const double walked = s.causal ? key_blocks / slots : std::ceil(key_blocks / slots);
    const double per_key_block =
        (plan.tiles * p.tile_time_cycles + plan.ctas * cta_overhead_cycles) / plan.ctas;
    plan.makespan_cycles = std::ceil(blocks / gpu.sms) * walked * per_key_block;
    plan.ctas = blocks;
    plan.waves = blocks / gpu.sms;
  }
  p.ctas = plan.ctas;
  p.tiles = plan.tiles;
  p.waves = plan.waves;
  // The SMs' cycles at the peak clock with each step's fixed costs, then the launch's clock; the
  // persistent kernels' per-CTA bytes and FA4's dQ chain are HBM and semaphore time, which the SM
  // clock does not stretch.
  const double clock_hz = gpu.peak_clock_mhz * 1e6;
  double cycles_s = plan.makespan_cycles / clock_hz;
  // A fixed time per tile step beyond the plain kernel's tiles, reported as its factor.
  const auto pay_per_step = [&](factors::Reported factor, double step_cycles) {
    cycles_s *= 1 + step_cycles / p.tile_time_cycles;
    p.factors.push_back(factors::reported(factor, step_cycles));
  };
  if (o.fixed_step_cost) {
    pay_per_step(factors::Reported::cudnn_deterministic_step_cycles,
                 factors::kCudnnDeterministicStepCycles);
    // Its dQ adds in a fixed order cost more steps up to hd128 (factors.hpp,
    // kCudnnDeterministicDqOrderStepCycles).
    if (o.deterministic && s.headdim <= 128)
      pay_per_step(factors::Reported::cudnn_deterministic_dq_order_step_cycles,
                   factors::kCudnnDeterministicDqOrderStepCycles);
  }
  // FA4's deterministic reduce waits for each query block's dQ adds before releasing it
  // (factors.hpp, kFa4DeterministicReduceWaitCycles): a time per step, the block's bytes.
  if (o.deterministic && o.single_tile_grid && s.headdim < 192)
    pay_per_step(factors::Reported::fa4_deterministic_reduce_wait_cycles,
                 factors::kFa4DeterministicReduceWaitCycles * s.headdim / 128.0);
  double compute_s = seconds_under_power_cap(gpu, cycles_s);
  if (gpu.sustained_clock_share < 1)
    p.factors.push_back(measured_share(gpu, factors::Reported::sustained_clock_share,
                                       gpu.sustained_clock_share, "/sustained_clock_share"));
  if (persistent) compute_s += cta_bytes(s, p) / hbm_bytes_per_clk_per_sm(gpu) / clock_hz;
  if (o.deterministic && o.single_tile_grid) {
    compute_s = std::max(compute_s, fa4_dq_chain_seconds(s, p));
    p.factors.push_back(
        factors::reported(factors::Reported::fa4_dq_chain_link_s, factors::kFa4DqChainLinkSeconds));
  }
  // HBM: the fewest bytes (re-reads of K and V are assumed to hit L2), plus for the backward
  // pass the dQ accumulator in fp32 written and read back, and its preprocessing launch; for a
  // Hopper backward (ours, FA3's) and a Blackwell persistent one (FA4's, cuDNN's) the launches
  // beside the main kernel add their time after it.
  double hbm_bytes = attention_min_hbm_bytes(s, p.pass);
  double launches = 1, side_s = 0;
  const double bandwidth = gpu.hbm_bytes_per_s * gpu.copy_efficiency;
  if (const auto side = backward_side_launches(gpu, s, o, p)) {
    side_s = side->bytes / bandwidth;
    launches += side->launches;
  } else if (p.pass == Pass::bwd) {
    hbm_bytes += 2 * kLseBytes * double(s.batch * s.heads_q * s.seqlen_q * s.headdim);
    launches = 3;  // dO.O row sums, the main kernel, dQ conversion
  }
  // Group-reduced dK, dV: the main kernel stores every query head's partials instead of each kv
  // head's sums, and the reduction launches read them and write the sums after it.
  if (const int reduce = key_grad_reduce_launches(gpu, s, o)) {
    const double partials = key_grad_bytes(s, double(s.heads_q));
    const double sums = key_grad_bytes(s, double(s.heads_kv));
    hbm_bytes += partials - sums;
    side_s += (partials + sums) / bandwidth;
    launches += reduce;
  }
  if (o.layout_copies) {
    side_s += layout_copy_seconds(gpu, s);
    launches += 2;
  }
  double hbm_s = hbm_bytes / bandwidth;
  if (const double spilled = o.dq_adds_spill_l2 ? spilled_dq_add_bytes(s) : 0; spilled > 0) {
    hbm_s += spilled / (bandwidth * factors::kSpilledDqAddBandwidthShare);
    p.factors.push_back(factors::reported(factors::Reported::spilled_dq_add_band_keys,
                                          factors::kSpilledDqAddBandKeys));
  }
  if (p.tiles > 0) p.tile_cycles.hbm = hbm_s * gpu.sms * gpu.peak_clock_mhz * 1e6 / p.tiles;
  p.main_kernel_s = std::max(compute_s, hbm_s);
  p.time_s = p.main_kernel_s + side_s + launches * factors::kLaunchOverheadSeconds;
  // The kernel's bottleneck: HBM when streaming bytes takes longer than the tiles, otherwise
  // the busiest unit at its sustained rate (on Blackwell's FA4 forward every unit runs at the
  // sustained share and the softmax warps at theirs of the issue rate).
  p.bottleneck = combines_streams_by_norm(gpu, p.algorithm, p.pass)
                     ? busiest_unit(p.tile_cycles, 1.0, factors::kBlackwellSoftmaxIssueShare)
                     : busiest_unit(p.tile_cycles, gpu.gemm_efficiency, 1.0);
  if (hbm_s > compute_s) p.bottleneck = Unit::hbm;
}

// FA2: each warp runs mma.sync and the softmax in turn, reading K and V with ldmatrix; the SM's
// warps overlap one's softmax with another's MMA. CTAs are plain (not persistent) launches.
Prediction predict_fa2(const hw::Spec& gpu, const AttnShape& s, const Options& o, Prediction p) {
  const TileCycles& c = p.tile_cycles;
  // Backward on Hopper (our fa2_bwd): the shared-memory port bounds the tile (factors.hpp,
  // kFa2BackwardLdmatrixShare); elsewhere its ldmatrix time adds to the softmax stream.
  const bool hopper_backward = p.pass == Pass::bwd && is_hopper(gpu);
  const double exposed_smem = p.pass == Pass::fwd ? factors::kFa2ExposedSmemShare
                              : hopper_backward   ? 0.0
                                                  : 1.0;
  const double hidden = overlap(gpu, Algorithm::fa2, p.pass);
  p.tensor_stream_cycles = c.mma / gpu.gemm_efficiency;
  const StreamTimes times = stream_times(c, p.tensor_stream_cycles, exposed_smem, hidden, false);
  p.softmax_stream_cycles = times.softmax;
  p.tile_time_cycles = times.tile;
  double io_exposure = 1;  // of each CTA's own loads and stores at the SM's share of HBM
  if (hopper_backward) {
    // The port-bound loop, then the tile's dQ reductions: none exposed in our kernel
    // (Options::hidden_dq_reductions); in a deterministic variant only where its blocks walk a slot's
    // key blocks, on all but each slot's first (which stores).
    const int walking = walking_dq_slots(gpu, s, o, p.tile);
    const double added_share = o.hidden_dq_reductions ? 0.0
                               : !o.deterministic ? 1.0
                               : walking > 0
                                   ? 1.0 - walking / ceil_div(double(s.seqlen_k), p.tile.n)
                                   : 0.0;
    const double reduction_cycles = added_share * kLseBytes * p.tile.m * double(s.headdim) /
                                    factors::kFa2DqReductionBytesPerCycle;
    p.tile_time_cycles =
        std::max(times.tile, c.smem / factors::kFa2BackwardLdmatrixShare) + reduction_cycles;
    io_exposure = factors::kBackwardKeyBlockIoExposure;
    for (auto [factor, value] : {std::pair{factors::Reported::fa2_backward_rereads,
                                           factors::fa2_backward_rereads(s.headdim, p.tile)},
                                 std::pair{factors::Reported::fa2_backward_ldmatrix_share,
                                           factors::kFa2BackwardLdmatrixShare},
                                 std::pair{factors::Reported::key_block_io_exposure, io_exposure}})
      p.factors.push_back(factors::reported(factor, value));
    if (added_share > 0)
      p.factors.push_back(factors::reported(factors::Reported::fa2_dq_reduction_rate,
                                            factors::kFa2DqReductionBytesPerCycle));
  }
  p.factors.push_back(factors::reported(
      p.pass == Pass::fwd ? factors::Reported::overlap_fa2_forward : factors::Reported::overlap,
      hidden));
  if (mma_sync_below_peak(gpu))
    p.factors.push_back(
        factors::reported(gpu.mma_sync_share > 0 ? factors::Reported::mma_sync_share_measured
                          : is_blackwell(gpu)    ? factors::Reported::mma_sync_share_blackwell
                                                 : factors::Reported::mma_sync_share_published,
                          mma_sync_share(gpu)));
  schedule_fused(
      gpu, s, o, p,
      io_exposure * cta_bytes(s, p) / hbm_bytes_per_clk_per_sm(gpu) / resident_ctas(gpu, s, o));
  return p;
}

// The cycles a Hopper persistent backward CTA's key block I/O is exposed (factors.hpp,
// kBackwardKeyBlockIoExposure): its K, V loads and dK, dV stores, plus `extra_bytes` loaded.
double exposed_key_block_io_cycles(const hw::Spec& gpu, const AttnShape& s, Prediction& p,
                                   double extra_bytes) {
  p.factors.push_back(factors::reported(factors::Reported::key_block_io_exposure,
                                        factors::kBackwardKeyBlockIoExposure));
  return factors::kBackwardKeyBlockIoExposure * (cta_bytes(s, p) + extra_bytes) /
         hbm_bytes_per_clk_per_sm(gpu);
}

// The lab's fa3_bwd on Hopper (Options::group_walking_backward; factors.hpp has each term's reason):
// its tile waits on its GEMMs in each pass, and adds dQ by atomics or through its staging tile;
// each key block's K, V loads and dK, dV stores (K loaded once more for a second pass) are
// exposed. Adds to p's tile time and factors; returns the cycles each CTA pays besides its tiles.
double add_lab_fa3_backward(const hw::Spec& gpu, const AttnShape& s, const Options& o,
                            Prediction& p) {
  const int passes = lab_fa3_backward_passes(s, o);
  const bool atomics = lab_fa3_dq_add(s, o) == DqAdd::atomics;
  const double step_wait = atomics ? factors::kLabFa3BackwardStepWaitCycles
                                   : factors::kLabFa3StagedDqStepWaitCycles;
  p.tile_time_cycles += passes * step_wait;
  p.factors.push_back(factors::reported(atomics
                                            ? factors::Reported::lab_fa3_step_wait_cycles
                                            : factors::Reported::lab_fa3_staged_step_wait_cycles,
                                        step_wait));
  // One-stage passes: the dK/dQ pass (a second pass is the dV pass).
  const int headdim = int(s.headdim);
  const int one_stage_passes = int(fa3_tiles::bwd_ring_stages(headdim, false) == 1) +
                               int(passes > 1 && fa3_tiles::bwd_ring_stages(headdim, true) == 1);
  if (one_stage_passes > 0) {
    p.tile_time_cycles += one_stage_passes * factors::kLabFa3OneStageRingCycles;
    p.factors.push_back(factors::reported(factors::Reported::lab_fa3_one_stage_ring_cycles,
                                          factors::kLabFa3OneStageRingCycles));
  }
  const double dq_rows = p.tile.m;
  const int chunks = fa3_tiles::bwd_dq_chunks(int(s.headdim));
  if (chunks > 1) {
    const double serial_columns = double(s.headdim) * (chunks - 1) / chunks;
    p.tile_time_cycles += factors::kLabFa3SerialDqChunkCyclesPerElement * dq_rows * serial_columns;
    p.factors.push_back(factors::reported(factors::Reported::lab_fa3_serial_dq_chunk_cycles,
                                          factors::kLabFa3SerialDqChunkCyclesPerElement));
  }
  const double k_again =
      (passes - 1) * double(p.tile.n) * double(s.headdim) * element_bytes(s.dtype);
  return exposed_key_block_io_cycles(gpu, s, p, k_again);
}

// FA3's published backward on Hopper (hopper_persistent_backward): its consumer warpgroups wait
// on their GEMMs and the dS barrier once per query block, each key block fills and drains the
// pipeline once, and each key block's K, V loads and dK, dV stores are exposed, as in our fa3_bwd
// (factors.hpp). Adds to p's tile time and factors; returns the cycles each CTA pays besides its
// tiles.
double add_hopper_backward_waits(const hw::Spec& gpu, const AttnShape& s, Prediction& p) {
  p.tile_time_cycles += factors::kHopperBackwardStepWaitCycles;
  p.factors.push_back(factors::reported(factors::Reported::hopper_bwd_step_wait_cycles,
                                        factors::kHopperBackwardStepWaitCycles));
  p.factors.push_back(factors::reported(factors::Reported::hopper_bwd_key_block_fill_cycles,
                                        factors::kHopperBackwardKeyBlockFillCycles));
  return factors::kHopperBackwardKeyBlockFillCycles + exposed_key_block_io_cycles(gpu, s, p, 0);
}

// FA3 and FA4: persistent kernels whose tensor cores read their operands from shared memory. On
// Hopper the two consumer warpgroups ping-pong and each work tile pays a fixed cost; FA4's
// softmax there changes fa3's tile by the exposed part of the change in its issue stream. On
// Blackwell FA4's softmax runs beside the asynchronous MMA, forward (blackwell_forward_times) and
// backward (the persistent backward overlap, as on Hopper).
Result<Prediction> predict_persistent(const hw::Spec& gpu, const AttnShape& s, const Options& o,
                                      Prediction p) {
  const TileCycles& c = p.tile_cycles;
  const bool hopper = is_hopper(gpu);
  // (check_options keeps the single-tile grid to FA4's backward on Blackwell.)
  const bool fa4_separate_columns = o.single_tile_grid && o.pass == Pass::bwd && o.two_cta &&
                                    !o.shared_tmem_columns_backward && !o.split_dq_backward;
  const double hidden = fa4_separate_columns ? factors::kFa4BackwardSeparateColumnsOverlap
                                             : overlap(gpu, o.algorithm, o.pass);
  const bool pingpong = hides_per_longer_stream(gpu, o.algorithm, o.pass);
  p.tensor_stream_cycles = o.serial_smem_mma ? c.mma / gpu.gemm_efficiency + c.smem
                                             : std::max(c.mma / gpu.gemm_efficiency, c.smem);
  StreamTimes times = stream_times(c, p.tensor_stream_cycles, 0.0, hidden, pingpong);
  if (o.algorithm == Algorithm::fa4 && hopper && o.pass == Pass::fwd) {
    // FA4's softmax on FA3's Hopper pipeline (factors.hpp, kHopperSoftmaxChangeExposure): the
    // tile as fa3's softmax makes it, plus the exposed part of the change in the issue stream.
    Options fa3_softmax = o;
    fa3_softmax.exp_emulation = 0.0;
    fa3_softmax.conditional_rescale = false;
    const auto plain = tile_cycles(gpu, s, fa3_softmax, p.tile);
    if (!plain) return plain.error();
    times = stream_times(*plain, p.tensor_stream_cycles, 0.0, hidden, pingpong);
    times.tile += factors::kHopperSoftmaxChangeExposure * (c.fma - plain->fma);
    p.factors.push_back(factors::reported(factors::Reported::softmax_change_exposure,
                                          factors::kHopperSoftmaxChangeExposure));
  }
  if (combines_streams_by_norm(gpu, o.algorithm, o.pass)) {
    times = blackwell_forward_times(gpu, c, p.tensor_stream_cycles);
    p.factors.push_back(factors::reported(factors::Reported::softmax_issue_share,
                                          factors::kBlackwellSoftmaxIssueShare));
    p.factors.push_back(factors::reported(factors::Reported::stream_norm_exponent,
                                          factors::kBlackwellStreamNormExponent));
    if (is_blackwell_ultra(gpu))
      p.factors.push_back(factors::reported(factors::Reported::ultra_forward_tensor_share,
                                            factors::kBlackwellUltraForwardTensorShare));
  } else {
    p.factors.push_back(factors::reported(pingpong ? factors::Reported::pingpong_hidden_share
                                          : fa4_separate_columns
                                              ? factors::Reported::fa4_backward_overlap
                                          : o.pass == Pass::bwd
                                              ? factors::Reported::overlap_persistent_backward
                                              : factors::Reported::overlap,
                                          hidden));
  }
  if (o.shared_tmem_columns_backward && o.pass == Pass::bwd && is_blackwell(gpu)) {
    times.tile += factors::kFa4SharedTmemColumnsStepCycles;
    p.factors.push_back(factors::reported(factors::Reported::fa4_shared_tmem_columns_step_cycles,
                                          factors::kFa4SharedTmemColumnsStepCycles));
  }
  p.softmax_stream_cycles = times.softmax;
  p.tile_time_cycles = times.tile;
  if (p.conditional_rescale)
    p.factors.push_back(
        factors::reported(factors::Reported::rescale_share, factors::kConditionalRescaleShare));
  double overhead = 0;
  if (o.group_walking_backward) {
    overhead = add_lab_fa3_backward(gpu, s, o, p);
  } else if (hopper_persistent_backward(gpu, o)) {
    overhead = add_hopper_backward_waits(gpu, s, p);
  } else if (hopper) {
    overhead = factors::kHopperPersistentTileOverheadCycles *
               std::max(1.0, std::pow(double(s.headdim) / 128, 2));
    p.factors.push_back(factors::reported(factors::Reported::tile_overhead_cycles,
                                          factors::kHopperPersistentTileOverheadCycles));
  } else {
    overhead = factors::kBlackwellPersistentTileOverheadCycles;
    p.factors.push_back(factors::reported(factors::Reported::blackwell_tile_overhead_cycles,
                                          factors::kBlackwellPersistentTileOverheadCycles));
    if (o.single_tile_grid) {
      const bool forward = o.pass == Pass::fwd;
      const double per_cta =
          forward ? factors::kFa4ForwardSingleTileCtaCycles : factors::kFa4SingleTileCtaCycles;
      overhead += per_cta;
      p.factors.push_back(factors::reported(
          forward ? factors::Reported::fa4_forward_single_tile_cta_cycles
                  : factors::Reported::fa4_single_tile_cta_cycles,
          per_cta));
    }
  }
  if (o.deterministic && !o.fixed_step_cost) {
    // Each key block's CTA adds its dQ after the previous one's: it waits for that chain to
    // reach it before its first add (factors.hpp, kDeterministicWaitTiles), and no longer than
    // its predecessor walks before it adds the query block they share (two under a window of a
    // block's keys).
    const double wait_tiles =
        std::min(factors::kDeterministicWaitTiles, mean_query_blocks_per_key_block(s, p.tile));
    overhead += wait_tiles * p.tile_time_cycles;
    p.factors.push_back(
        factors::reported(factors::Reported::deterministic_wait_tiles, wait_tiles));
  }
  schedule_fused(gpu, s, o, p, overhead);
  return p;
}

// The checks that need no tile: the shape, the GPU, the options.
Status check_options(const hw::Spec& gpu, const AttnShape& s, const Options& o) {
  if (auto ok = validate(s); !ok) return ok.error();
  if (auto reason = unsupported_reason(gpu, o.algorithm)) return Error{*reason};
  if (auto reason = unsupported_headdim_reason(s, o.algorithm)) return Error{*reason};
  if (o.exp_emulation && !(*o.exp_emulation >= 0 && *o.exp_emulation <= 1))  // NaN included
    return Error{fmt::format("--exp-emulation {} is not a share: give a number from 0 to 1",
                             *o.exp_emulation)};
  if (o.deterministic && (o.pass != Pass::bwd || o.algorithm == Algorithm::naive))
    return Error{
        "deterministic mode orders the backward pass's dQ sums of fa2, fa3 and fa4: use it "
        "with --pass bwd and --kernel fa2, fa3 or fa4"};
  if (o.dq_adds_spill_l2 && (o.pass != Pass::bwd || !s.causal || s.dtype != Dtype::fp8 ||
                             !is_hopper(gpu) || o.algorithm == Algorithm::naive))
    return Error{fmt::format(
        "the L2-missing dQ adds are cuDNN's causal fp8 backward on Hopper, a fused kernel; {} {} "
        "{}{} on {} is not: drop them",
        to_string(o.algorithm), to_string(o.pass), to_string(s.dtype), s.causal ? " causal" : "",
        gpu.name)};
  if (o.split_dq_backward && (o.algorithm != Algorithm::fa4 || o.pass != Pass::bwd ||
                              !is_blackwell(gpu) || o.deterministic))
    return Error{fmt::format(
        "the split dQ backward is FA4's hd256 backward on Blackwell, without deterministic mode; "
        "{} {}{} on {} is not: drop it",
        to_string(o.algorithm), to_string(o.pass), o.deterministic ? " deterministic" : "",
        gpu.name)};
  if (o.serial_smem_mma && (o.pass != Pass::bwd || !is_hopper(gpu) ||
                            o.algorithm != Algorithm::fa3 || o.group_walking_backward))
    return Error{fmt::format(
        "the shared-memory traffic taken after the MMA is cuDNN's hd256 backward on Hopper, "
        "modeled as fa3; {} {} on {} is not: drop it",
        to_string(o.algorithm), to_string(o.pass), gpu.name)};
  if (o.layout_copies && o.pass != Pass::bwd)
    return Error{
        "the layout copies are PyTorch's flash backward's, before its kernels: use them with "
        "--pass bwd"};
  if (o.fixed_step_cost && o.pass != Pass::bwd)
    return Error{
        "cuDNN's fixed time per tile step prices its backward pass: use it with --pass bwd"};
  if (o.deterministic && o.algorithm == Algorithm::fa2 && !is_hopper(gpu))
    return Error{fmt::format(
        "deterministic fa2 is modeled on Hopper only (our fa2_bwd_deterministic's dQ slots); {} "
        "is not Hopper: drop --deterministic or pick a Hopper GPU",
        gpu.name)};
  if (o.group_walking_backward &&
      (o.algorithm != Algorithm::fa3 || o.pass != Pass::bwd || !is_hopper(gpu) || o.deterministic))
    return Error{fmt::format(
        "the lab's fa3_bwd schedule is fa3's backward pass on Hopper, without deterministic mode; "
        "{} {} on {} is not: drop it",
        to_string(o.algorithm), to_string(o.pass), gpu.name)};
  if (o.single_tile_grid && (o.algorithm != Algorithm::fa4 || !is_blackwell(gpu)))
    return Error{fmt::format(
        "the single-tile grid is FA4's own kernels on Blackwell; {} {} on {} is not: "
        "drop it",
        to_string(o.algorithm), to_string(o.pass), gpu.name)};
  if (o.exp_emulation && o.algorithm != Algorithm::fa4)
    return Error{"--exp-emulation is one of FA4's softmax techniques: use it with --kernel fa4"};
  if (o.tile && o.algorithm == Algorithm::naive)
    return Error{"--tile: naive has no tile of its own (cuBLAS tiles its GEMMs): leave it out"};
  if (o.row_max_on_load && (o.algorithm != Algorithm::fa4 || o.pass != Pass::fwd))
    return Error{fmt::format(
        "the row max from the tensor-memory load is a choice of FA4's forward softmax; {} {} has "
        "none: drop it or model fa4 --pass fwd",
        to_string(o.algorithm), to_string(o.pass))};
  if (o.row_max_on_load.value_or(false) && !is_blackwell_ultra(gpu))
    return Error{fmt::format(
        "the row max from the tensor-memory load (tcgen05.ld.red) is Blackwell Ultra's; {} has "
        "no such load: drop it or pick b300 or gb300",
        gpu.name)};
  if (o.conditional_rescale && o.algorithm != Algorithm::fa4)
    return Error{"--no-conditional-rescale is one of FA4's techniques: use it with --kernel fa4"};
  return Ok{};
}

// The tile fits in the SM's shared memory and tensor memory.
Status check_tile_fits(const hw::Spec& gpu, const AttnShape& s, const Options& o, Tile tile) {
  if (auto reason = unsupported_tile_reason(gpu, o.algorithm, tile)) return Error{*reason};
  const double smem = smem_footprint_bytes(gpu, s, o.algorithm, o.pass, tile);
  if (smem > gpu.per_sm.smem_capacity_bytes)
    return Error{fmt::format(
        "tile {}x{} needs {:.0f} KiB of shared memory for {}; {} has {:.0f} "
        "KiB per SM: choose a smaller --tile",
        tile.m, tile.n, smem / 1024, describe(s), gpu.name, gpu.per_sm.smem_capacity_bytes / 1024)};
  const double tmem = tmem_footprint_bytes(gpu, s, o.algorithm, o.pass, tile);
  if (tmem > gpu.per_sm.tmem_bytes + 0.5)
    return Error{
        fmt::format("tile {}x{} needs {:.0f} KiB of tensor memory; {} has {:.0f} KiB "
                    "per SM: choose a smaller --tile",
                    tile.m, tile.n, tmem / 1024, gpu.name, gpu.per_sm.tmem_bytes / 1024)};
  return Ok{};
}

// The algorithm family's own rules: naive's streaming launches, FA2's warps, the persistent
// Hopper and Blackwell kernels.
Result<Prediction> predict_family(const hw::Spec& gpu, const AttnShape& s, const Options& o,
                                  Prediction p) {
  switch (o.algorithm) {
    case Algorithm::naive:
      return predict_naive(gpu, s, std::move(p));
    case Algorithm::fa2:
      return predict_fa2(gpu, s, o, std::move(p));
    case Algorithm::fa3:
    case Algorithm::fa4:
      return predict_persistent(gpu, s, o, std::move(p));
  }
  return Error{fmt::format("the model has no rule for algorithm {}", int(o.algorithm))};
}

}  // namespace

Result<Prediction> predict(const hw::Spec& gpu, const AttnShape& s, const Options& o) {
  if (auto ok = check_options(gpu, s, o); !ok) return ok.error();
  const Tile tile = o.tile.value_or(default_tile(gpu, s, o));
  if (auto fits = check_tile_fits(gpu, s, o, tile); !fits) return fits.error();
  auto cycles = tile_cycles(gpu, s, o, tile);
  if (!cycles) return cycles.error();
  Prediction p;
  p.shape = s;
  p.gpu = gpu.id;
  p.algorithm = o.algorithm;
  p.pass = o.pass;
  p.two_cta = o.two_cta;
  p.deterministic = o.deterministic;
  p.tile = tile;
  p.tile_cycles = *cycles;
  if (o.algorithm == Algorithm::fa4) {
    p.exp_emulation = o.exp_emulation.value_or(default_exp_emulation(gpu, o.algorithm));
    p.conditional_rescale = o.conditional_rescale.value_or(true);
    p.row_max_on_load = row_max_on_load(gpu, s, o);
  }
  p.flops = attention_flops(s, o.pass);
  add_common_factors(gpu, p);
  Result<Prediction> out = predict_family(gpu, s, o, std::move(p));
  if (!out) return out;
  out->tflops = out->flops / out->time_s / 1e12;
  out->fraction_of_peak = out->flops / out->time_s / gpu.peak_flops(s.dtype);
  return out;
}

}  // namespace fa4::model
