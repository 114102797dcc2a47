// The naive algorithm: S = Q K^T, the row softmax and O = P V (and the backward's five phases) as
// streaming launches with S and P in HBM.
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

// One streaming phase of the naive algorithm: the larger of its arithmetic and its HBM time.
double phase_seconds(const hw::Spec& gpu, double flops, double bytes) {
  const double compute = flops / (gpu.peak_flops(Dtype::bf16) * gpu.gemm_efficiency);
  const double memory =
      bytes / (gpu.hbm_bytes_per_s * gpu.copy_efficiency * factors::kNaiveStreamingShare);
  return std::max(compute, memory) + factors::kLaunchOverheadSeconds;
}

}  // namespace

// The naive algorithm: three streaming launches, S and P in HBM.
Result<Prediction> predict_naive(const hw::Spec& gpu, const AttnShape& s, Prediction p) {
  p.factors.push_back(factors::reported(factors::Id::kNaiveStreamingShare));
  p.factors.push_back(factors::reported(factors::Id::kNaiveRowLatencySeconds));
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
  p.launch_overhead_s = (p.pass == Pass::fwd ? 3 : 5) * factors::kLaunchOverheadSeconds;
  p.ctas = bh * ceil_div(sq, p.tile.m);
  p.tiles = p.ctas * ceil_div(sk, p.tile.n);
  p.waves = p.ctas / gpu.sms;
  // Per tile: S written and read, P written and read (forward), at the SM's share of bandwidth.
  p.tile_cycles.hbm = 4 * double(p.tile.m) * p.tile.n * e / hbm_bytes_per_clk_per_sm(gpu);
  p.tile_time_cycles = p.tile_cycles.hbm;
  p.bottleneck = Unit::hbm;
  return p;
}

}  // namespace fa4::model::internal
