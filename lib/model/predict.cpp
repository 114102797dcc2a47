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
#include "model/predict_internal.hpp"

namespace fa4::model {
namespace internal {

// A share of a datasheet figure measured on this GPU, with the model file's source.
Factor measured_share(const hw::Spec& gpu, factors::Value factor, double value,
                      const std::string& pointer) {
  Factor f = factors::reported(factor, value);
  f.fitted_to = gpu.sources.count(pointer) ? gpu.sources.at(pointer) : "";
  return f;
}

// The share of the tensor peak a Blackwell forward's tensor stream sustains: Blackwell Ultra's own
// (factors.def, kBlackwellUltraForwardTensorShare), elsewhere the GPU's sustained share.
static double blackwell_forward_tensor_share(const hw::Spec& gpu) {
  return is_blackwell_ultra(gpu) ? factors::kBlackwellUltraForwardTensorShare : gpu.gemm_efficiency;
}

// FA4's forward on Blackwell (factors.def, kBlackwellStreamNormExponent): every unit at the GPU's
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

}  // namespace internal

namespace {

using namespace internal;

// The factors every prediction reports: the GPU's measured shares and the launch overhead.
void add_common_factors(const hw::Spec& gpu, Prediction& p) {
  p.factors.push_back(measured_share(gpu, factors::Value::gemm_efficiency, gpu.gemm_efficiency,
                                     "/gemm_efficiency"));
  p.factors.push_back(measured_share(gpu, factors::Value::copy_efficiency, gpu.copy_efficiency,
                                     "/copy_efficiency"));
  p.factors.push_back(factors::reported(factors::Id::kLaunchOverheadSeconds));
}

// One tile's softmax stream and its time beside the tensor stream: the longer stream, plus the
// part of the shorter one it does not hide (algorithm_traits.hpp, overlap): a share of the
// shorter stream, or, for Hopper's ping-pong (per_longer_stream), `hidden` cycles per cycle of the
// longer one. FA2's ldmatrix reads add `exposed_smem` of the SMEM time to the softmax stream.
StreamTimes stream_times(const TileCycles& t, double tensor, double exposed_smem, double hidden,
                         bool per_longer_stream) {
  const double softmax = std::max(t.exp_mufu, t.fma) + exposed_smem * t.smem;
  const double longer = std::max(tensor, softmax), shorter = std::min(tensor, softmax);
  const double exposed =
      per_longer_stream ? std::max(0.0, shorter - hidden * longer) : (1 - hidden) * shorter;
  return {softmax, longer + exposed};
}

// FA2: each warp runs mma.sync and the softmax in turn, reading K and V with ldmatrix; the SM's
// warps overlap one's softmax with another's MMA. CTAs are plain (not persistent) launches.
Prediction predict_fa2(const hw::Spec& gpu, const AttnShape& s, const Options& o, Prediction p) {
  const TileCycles& c = p.tile_cycles;
  // Backward on Hopper (our fa2_bwd): the shared-memory port bounds the tile (factors.def,
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
    p.factors.push_back(factors::reported(fa2_backward_rereads(s.headdim, p.tile)));
    p.factors.push_back(factors::reported(factors::Id::kFa2BackwardLdmatrixShare));
    p.factors.push_back(factors::reported(factors::Id::kBackwardKeyBlockIoExposure));
    if (added_share > 0)
      p.factors.push_back(factors::reported(factors::Id::kFa2DqReductionBytesPerCycle));
  }
  p.factors.push_back(factors::reported(p.pass == Pass::fwd
                                            ? factors::ReportedId(factors::Id::kOverlapFa2Forward)
                                            : factors::ReportedId(factors::Id::kOverlapFa2Backward),
                                        hidden));
  if (mma_sync_below_peak(gpu))
    p.factors.push_back(
        gpu.mma_sync_share > 0
            ? factors::reported(factors::Value::mma_sync_share, mma_sync_share(gpu))
            : factors::reported(is_blackwell(gpu)
                                    ? factors::ReportedId(factors::Id::kMmaSyncShareBlackwell)
                                    : factors::ReportedId(factors::Id::kMmaSyncShareHopper),
                                mma_sync_share(gpu)));
  schedule_fused(
      gpu, s, o, p,
      io_exposure * cta_bytes(s, p) / hbm_bytes_per_clk_per_sm(gpu) / resident_ctas(gpu, s, o));
  return p;
}

// The cycles a Hopper persistent backward CTA's key block I/O is exposed (factors.def,
// kBackwardKeyBlockIoExposure): its K, V loads and dK, dV stores, plus `extra_bytes` loaded.
double exposed_key_block_io_cycles(const hw::Spec& gpu, const AttnShape& s, Prediction& p,
                                   double extra_bytes) {
  p.factors.push_back(factors::reported(factors::Id::kBackwardKeyBlockIoExposure));
  return factors::kBackwardKeyBlockIoExposure * (cta_bytes(s, p) + extra_bytes) /
         hbm_bytes_per_clk_per_sm(gpu);
}

// The lab's fa3_bwd on Hopper (Options::group_walking_backward; factors.def has each term's reason):
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
  p.factors.push_back(
      factors::reported(atomics ? factors::ReportedId(factors::Id::kLabFa3BackwardStepWaitCycles)
                                : factors::ReportedId(factors::Id::kLabFa3StagedDqStepWaitCycles),
                        step_wait));
  // One-stage passes: the dK/dQ pass (a second pass is the dV pass).
  const int headdim = int(s.headdim);
  const int one_stage_passes = int(fa3_tiles::bwd_ring_stages(headdim, false) == 1) +
                               int(passes > 1 && fa3_tiles::bwd_ring_stages(headdim, true) == 1);
  if (one_stage_passes > 0) {
    p.tile_time_cycles += one_stage_passes * factors::kLabFa3OneStageRingCycles;
    p.factors.push_back(factors::reported(factors::Id::kLabFa3OneStageRingCycles));
  }
  const double dq_rows = p.tile.m;
  const int chunks = fa3_tiles::bwd_dq_chunks(int(s.headdim));
  if (chunks > 1) {
    const double serial_columns = double(s.headdim) * (chunks - 1) / chunks;
    p.tile_time_cycles += factors::kLabFa3SerialDqChunkCyclesPerElement * dq_rows * serial_columns;
    p.factors.push_back(factors::reported(factors::Id::kLabFa3SerialDqChunkCyclesPerElement));
  }
  const double k_again =
      (passes - 1) * double(p.tile.n) * double(s.headdim) * element_bytes(s.dtype);
  return exposed_key_block_io_cycles(gpu, s, p, k_again);
}

// FA3's published backward on Hopper (hopper_persistent_backward): its consumer warpgroups wait
// on their GEMMs and the dS barrier once per query block, each key block fills and drains the
// pipeline once, and each key block's K, V loads and dK, dV stores are exposed, as in our fa3_bwd
// (factors.def). Adds to p's tile time and factors; returns the cycles each CTA pays besides its
// tiles.
double add_hopper_backward_waits(const hw::Spec& gpu, const AttnShape& s, Prediction& p) {
  p.tile_time_cycles += factors::kHopperBackwardStepWaitCycles;
  p.factors.push_back(factors::reported(factors::Id::kHopperBackwardStepWaitCycles));
  p.factors.push_back(factors::reported(factors::Id::kHopperBackwardKeyBlockFillCycles));
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
    // FA4's softmax on FA3's Hopper pipeline (factors.def, kHopperSoftmaxChangeExposure): the
    // tile as fa3's softmax makes it, plus the exposed part of the change in the issue stream.
    Options fa3_softmax = o;
    fa3_softmax.exp_emulation = 0.0;
    fa3_softmax.conditional_rescale = false;
    const auto plain = tile_cycles(gpu, s, fa3_softmax, p.tile);
    if (!plain) return plain.error();
    times = stream_times(*plain, p.tensor_stream_cycles, 0.0, hidden, pingpong);
    times.tile += factors::kHopperSoftmaxChangeExposure * (c.fma - plain->fma);
    p.factors.push_back(factors::reported(factors::Id::kHopperSoftmaxChangeExposure));
  }
  if (combines_streams_by_norm(gpu, o.algorithm, o.pass)) {
    times = blackwell_forward_times(gpu, c, p.tensor_stream_cycles);
    p.factors.push_back(factors::reported(factors::Id::kBlackwellSoftmaxIssueShare));
    p.factors.push_back(factors::reported(factors::Id::kBlackwellStreamNormExponent));
    if (is_blackwell_ultra(gpu))
      p.factors.push_back(factors::reported(factors::Id::kBlackwellUltraForwardTensorShare));
  } else {
    using factors::Id;
    p.factors.push_back(
        pingpong ? factors::reported(Id::kHopperPingPongHiddenShare, hidden)
        : fa4_separate_columns ? factors::reported(Id::kFa4BackwardSeparateColumnsOverlap, hidden)
        : o.pass == Pass::bwd  ? factors::reported(Id::kOverlapPersistentBackward, hidden)
                               : factors::reported(factors::Value::overlap, hidden));
  }
  if (o.shared_tmem_columns_backward && o.pass == Pass::bwd && is_blackwell(gpu)) {
    times.tile += factors::kFa4SharedTmemColumnsStepCycles;
    p.factors.push_back(factors::reported(factors::Id::kFa4SharedTmemColumnsStepCycles));
  }
  p.softmax_stream_cycles = times.softmax;
  p.tile_time_cycles = times.tile;
  if (p.conditional_rescale)
    p.factors.push_back(factors::reported(factors::Id::kConditionalRescaleShare));
  double overhead = 0;
  if (o.group_walking_backward) {
    overhead = add_lab_fa3_backward(gpu, s, o, p);
  } else if (hopper_persistent_backward(gpu, o)) {
    overhead = add_hopper_backward_waits(gpu, s, p);
  } else if (hopper) {
    overhead = factors::kHopperPersistentTileOverheadCycles *
               std::max(1.0, std::pow(double(s.headdim) / 128, 2));
    p.factors.push_back(factors::reported(factors::Id::kHopperPersistentTileOverheadCycles));
  } else {
    overhead = factors::kBlackwellPersistentTileOverheadCycles;
    p.factors.push_back(factors::reported(factors::Id::kBlackwellPersistentTileOverheadCycles));
    if (o.single_tile_grid) {
      const bool forward = o.pass == Pass::fwd;
      const double per_cta =
          forward ? factors::kFa4ForwardSingleTileCtaCycles : factors::kFa4SingleTileCtaCycles;
      overhead += per_cta;
      p.factors.push_back(
          factors::reported(forward ? factors::ReportedId(factors::Id::kFa4ForwardSingleTileCtaCycles)
                                    : factors::ReportedId(factors::Id::kFa4SingleTileCtaCycles)));
    }
  }
  if (o.deterministic && !o.fixed_step_cost) {
    // Each key block's CTA adds its dQ after the previous one's: it waits for that chain to
    // reach it before its first add (factors.def, kDeterministicWaitTiles), and no longer than
    // its predecessor walks before it adds the query block they share (two under a window of a
    // block's keys).
    const double wait_tiles =
        std::min(factors::kDeterministicWaitTiles, mean_query_blocks_per_key_block(s, p.tile));
    overhead += wait_tiles * p.tile_time_cycles;
    p.factors.push_back(factors::reported(factors::Id::kDeterministicWaitTiles, wait_tiles));
  }
  schedule_fused(gpu, s, o, p, overhead);
  return p;
}

// A decode launch's tile: decode.cpp's 64 packed rows (one wgmma M) by its key block; with
// tcgen05 (fa4 on Blackwell) its full-rate 128 rows, the M of FA4's forward and of cuDNN's
// open-source sm100 engine in its decode plans (TILE_M=128, PACK_GQA=1: cudnn-frontend's decode
// sweep CSVs). The packed rows of a KV head stay decode.cpp's row blocks of 64, which changes
// nothing while a group's rows fit in one of them (g x seqlen_q <= 64).
Tile decode_tile_on(const hw::Spec& gpu, const AttnShape& s, const Options& o) {
  Tile tile = decode_tile(s);
  if (o.algorithm == Algorithm::fa4 && is_blackwell(gpu)) tile.m = 128;
  return tile;
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
      if (o.decode && o.pass == Pass::fwd) return predict_decode(gpu, s, o, std::move(p));
      return predict_persistent(gpu, s, o, std::move(p));
  }
  return Error{fmt::format("the model has no rule for algorithm {}", int(o.algorithm))};
}

}  // namespace

Result<Prediction> predict(const hw::Spec& gpu, const AttnShape& s, const Options& o) {
  if (auto ok = check_options(gpu, s, o); !ok) return ok.error();
  const Tile tile = o.tile.value_or(o.decode && o.pass == Pass::fwd ? decode_tile_on(gpu, s, o)
                                                                    : default_tile(gpu, s, o));
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
  p.terms = terms_paid(o, p);
  add_common_factors(gpu, p);
  Result<Prediction> out = predict_family(gpu, s, o, std::move(p));
  if (!out) return out;
  out->tflops = out->flops / out->time_s / 1e12;
  out->fraction_of_peak = out->flops / out->time_s / gpu.peak_flops(s.dtype);
  return out;
}

}  // namespace fa4::model
