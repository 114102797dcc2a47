// The whole kernel from its tile time: the CTAs on the SMs (waves, tails, the order their tiles
// are taken in), the launch's clock, HBM traffic and the launches beside the main kernel.
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

namespace {

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
// a share of the longest for one that takes its tiles in a fixed order (factors.def,
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

}  // namespace

// The time SM cycles that take peak_s at the peak clock take on a GPU whose model gives a sustained
// clock share below 1: the clock starts at the boost clock and falls toward that share of it
// (factors.def, kLaunchClockTimeConstantSeconds), so with a = boost / peak and b = share x a the
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

double cta_bytes(const AttnShape& s, const Prediction& p) {
  const double e = element_bytes(s.dtype);
  const double rows = p.pass == Pass::fwd ? p.tile.m : p.tile.n;
  return rows * double(s.headdim + 2 * s.headdim_v) * e +
         (p.pass == Pass::fwd ? rows * kLseBytes : rows * s.headdim * e);
}

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
  const auto pay_per_step = [&](factors::ReportedId factor, double step_cycles) {
    cycles_s *= 1 + step_cycles / p.tile_time_cycles;
    p.factors.push_back(factors::reported(factor, step_cycles));
  };
  if (o.fixed_step_cost) {
    pay_per_step(factors::Id::kCudnnDeterministicStepCycles,
                 factors::kCudnnDeterministicStepCycles);
    // Its dQ adds in a fixed order cost more steps up to hd128 (factors.def,
    // kCudnnDeterministicDqOrderStepCycles).
    if (o.deterministic && s.headdim <= 128)
      pay_per_step(factors::Id::kCudnnDeterministicDqOrderStepCycles,
                   factors::kCudnnDeterministicDqOrderStepCycles);
  }
  // FA4's deterministic reduce waits for each query block's dQ adds before releasing it
  // (factors.def, kFa4DeterministicReduceWaitCycles): a time per step, the block's bytes.
  if (o.deterministic && o.single_tile_grid && s.headdim < 192)
    pay_per_step(factors::Id::kFa4DeterministicReduceWaitCycles,
                 factors::kFa4DeterministicReduceWaitCycles * s.headdim / 128.0);
  double compute_s = seconds_under_power_cap(gpu, cycles_s);
  if (gpu.sustained_clock_share < 1)
    p.factors.push_back(measured_share(gpu, factors::Value::sustained_clock_share,
                                       gpu.sustained_clock_share, "/sustained_clock_share"));
  if (persistent) compute_s += cta_bytes(s, p) / hbm_bytes_per_clk_per_sm(gpu) / clock_hz;
  if (o.deterministic && o.single_tile_grid) {
    compute_s = std::max(compute_s, fa4_dq_chain_seconds(s, p));
    p.factors.push_back(factors::reported(factors::Id::kFa4DqChainLinkSeconds));
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
    p.factors.push_back(factors::reported(factors::Id::kSpilledDqAddBandKeys));
  }
  if (p.tiles > 0) p.tile_cycles.hbm = hbm_s * gpu.sms * gpu.peak_clock_mhz * 1e6 / p.tiles;
  p.main_kernel_s = std::max(compute_s, hbm_s);
  p.launch_overhead_s = launches * factors::kLaunchOverheadSeconds;
  p.time_s = p.main_kernel_s + side_s + p.launch_overhead_s;
  // The kernel's bottleneck: HBM when streaming bytes takes longer than the tiles, otherwise
  // the busiest unit at its sustained rate (on Blackwell's FA4 forward every unit runs at the
  // sustained share and the softmax warps at theirs of the issue rate).
  p.bottleneck = combines_streams_by_norm(gpu, p.algorithm, p.pass)
                     ? busiest_unit(p.tile_cycles, 1.0, factors::kBlackwellSoftmaxIssueShare)
                     : busiest_unit(p.tile_cycles, gpu.gemm_efficiency, 1.0);
  if (hbm_s > compute_s) p.bottleneck = Unit::hbm;
}

}  // namespace fa4::model::internal
