#include "model/algorithm_traits.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/fa2_bwd_tiles.hpp"
#include "core/fa3_tiles.hpp"
#include "model/factors.hpp"

namespace fa4::model {
namespace {

constexpr int kKvStages = 2;            // K/V tiles in flight in the circular buffer
constexpr double kAccumulatorBytes = 4; // fp32 S and O accumulators in tensor memory
constexpr int kTileShrinkStep = 16;     // N shrinks by one MMA K-step until a tile fits

int max_headdim(const AttnShape& s) { return int(std::max(s.headdim, s.headdim_v)); }

// The tiles the reference implementations use (fa4-facts.md §6 for FA3; FA2's kernel traits;
// FA4's two 128-row softmax warpgroups per CTA on Blackwell).
Tile preferred_tile(const hw::Spec& gpu, const AttnShape& s, Algorithm algorithm, Pass pass) {
  const int d = max_headdim(s);
  if (pass == Pass::bwd) {
    // FA3's Hopper backward above hd128 (hopper/flash_bwd_launch_template.h, run_mha_bwd_hdim192
    // and _hdim256 at Arch >= 90): 64 queries x 96 keys at hd192, 64 x 80 at hd256, so that dK
    // and dV (keys x (d + d_v) float32) stay in its two warpgroups' registers.
    if ((algorithm == Algorithm::fa3 || algorithm == Algorithm::fa4) && is_hopper(gpu) && d > 128)
      return {64, d <= 192 ? 96 : 80};
    return {128, 128};
  }
  switch (algorithm) {
    case Algorithm::naive: return {128, 128};
    case Algorithm::fa2: return d <= 64 ? Tile{128, 128} : Tile{128, 64};
    case Algorithm::fa3: {
      // This project's fa3, its tile choice itself (core/fa3_tiles.hpp), at the kernel head dim
      // that holds d (64, 128, 256); the kernel has no hd192 tile: 112 keys sit between hd128's
      // and hd256's. (FA3's own: 192 x 128 at hd64, 176 keys at hd128 non-causal.)
      if (d > 128 && d <= 192) return {fa3_tiles::kBlockM, 112};
      const int kernel_d = d <= 64 ? 64 : d <= 128 ? 128 : 256;
      return {fa3_tiles::kBlockM, fa3_tiles::key_block_width(
                                      kernel_d, fa3_tiles::key_blocks_for(kernel_d, s.seqlen_k))};
    }
    case Algorithm::fa4:
      if (is_blackwell(gpu)) return d <= 128 ? Tile{256, 128} : Tile{128, 128};
      return preferred_tile(gpu, s, Algorithm::fa3, pass);  // FA4's softmax on FA3's pipeline
  }
  return {128, 128};
}

}  // namespace

bool is_blackwell(const hw::Spec& gpu) {
  return gpu.architecture == hw::Architecture::blackwell ||
         gpu.architecture == hw::Architecture::blackwell_ultra;
}
bool is_blackwell_ultra(const hw::Spec& gpu) {
  return gpu.architecture == hw::Architecture::blackwell_ultra;
}
bool is_hopper(const hw::Spec& gpu) { return gpu.architecture == hw::Architecture::hopper; }
bool mma_sync_below_peak(const hw::Spec& gpu) { return is_hopper(gpu) || is_blackwell(gpu); }

double mma_sync_share(const hw::Spec& gpu) {
  if (gpu.mma_sync_share > 0) return gpu.mma_sync_share;
  return is_blackwell(gpu) ? factors::kMmaSyncShareBlackwell : factors::kMmaSyncShareHopper;
}

std::optional<std::string> unsupported_reason(const hw::Spec& gpu, Algorithm algorithm) {
  if (algorithm == Algorithm::fa3 && !is_hopper(gpu))
    return fmt::format("fa3 is built on Hopper's wgmma, which {} (sm_{}) does not have; model "
                       "fa4 on Blackwell or fa2 elsewhere",
                       gpu.name, gpu.compute_capability);
  if (algorithm == Algorithm::fa4 && !is_hopper(gpu) && !is_blackwell(gpu))
    return fmt::format("fa4 needs Hopper (wgmma) or Blackwell (tcgen05); {} (sm_{}) has neither; "
                       "model fa2 there",
                       gpu.name, gpu.compute_capability);
  return std::nullopt;
}

std::optional<std::string> unsupported_headdim_reason(const AttnShape& s, Algorithm algorithm) {
  constexpr std::int64_t kHeaddimStep = 8, kMaxFusedHeaddim = 256;
  if (algorithm == Algorithm::naive) return std::nullopt;
  for (const auto& [name, d] : {std::pair{"headdim", s.headdim}, {"headdim-v", s.headdim_v}})
    if (d % kHeaddimStep != 0 || d > kMaxFusedHeaddim)
      return fmt::format(
          "{} = {}: {} kernels take head dims that are multiples of {} up to {} (their MMAs read "
          "rows of 16-byte vectors; FlashAttention pads other sizes up to one): use e.g. {}",
          name, d, to_string(algorithm), kHeaddimStep, kMaxFusedHeaddim,
          std::min(kMaxFusedHeaddim, (d + kHeaddimStep - 1) / kHeaddimStep * kHeaddimStep));
  return std::nullopt;
}

std::optional<std::string> unsupported_tile_reason(const hw::Spec& gpu, Algorithm algorithm,
                                                   Tile tile) {
  constexpr int kKeyStep = 16, kMaxExtent = 256;
  if (algorithm == Algorithm::naive) return std::nullopt;  // cuBLAS tiles its GEMMs itself
  const char* mma = "mma.sync's 16 rows per warp";
  int row_step = 16;
  if (algorithm == Algorithm::fa4 && is_blackwell(gpu)) {
    mma = "tcgen05's 128 rows per CTA";
    row_step = 128;
  } else if (algorithm != Algorithm::fa2) {
    mma = "wgmma's 64 rows per warpgroup";
    row_step = 64;
  }
  if (tile.m % row_step != 0 || tile.n % kKeyStep != 0 || tile.m > kMaxExtent ||
      tile.n > kMaxExtent)
    return fmt::format(
        "tile {}x{}: {} on {} takes query rows in multiples of {} ({}) and keys "
        "in multiples of {} (the P V MMA's K step), each at most {}",
        tile.m, tile.n, to_string(algorithm), gpu.name, row_step, mma, kKeyStep, kMaxExtent);
  return std::nullopt;
}

int fa2_warps(const AttnShape& s) { return max_headdim(s) <= 128 ? 4 : 8; }

double smem_footprint_bytes(const hw::Spec&, const AttnShape& s, Algorithm algorithm, Pass pass,
                            Tile tile) {
  const double e = element_bytes(s.dtype);
  const double m = tile.m, n = tile.n, d = double(s.headdim), dv = double(s.headdim_v);
  if (algorithm == Algorithm::naive) return 0;  // cuBLAS and a row kernel: their own business
  if (pass == Pass::fwd) return e * (m * d + kKvStages * n * (d + dv));
  // Backward: the CTA's K and V stay; one stage of Q and dO; dS staged for the transposed GEMMs.
  return e * (n * (d + dv) + m * (d + dv) + m * n);
}

double tmem_footprint_bytes(const hw::Spec& gpu, const AttnShape& s, Algorithm algorithm,
                            Pass pass, Tile tile) {
  if (algorithm != Algorithm::fa4 || !is_blackwell(gpu)) return 0;
  const double m = tile.m, n = tile.n;
  if (pass == Pass::fwd) return kAccumulatorBytes * (m * n + m * double(s.headdim_v));  // S, O
  return kAccumulatorBytes * (2 * m * n + n * double(s.headdim + s.headdim_v));  // S,dP; dK,dV
}

Tile default_tile(const hw::Spec& gpu, const AttnShape& shape, const Options& options) {
  Tile tile = preferred_tile(gpu, shape, options.algorithm, options.pass);
  while (tile.n > kTileShrinkStep &&
         (smem_footprint_bytes(gpu, shape, options.algorithm, options.pass, tile) >
              gpu.per_sm.smem_capacity_bytes ||
          tmem_footprint_bytes(gpu, shape, options.algorithm, options.pass, tile) >
              gpu.per_sm.tmem_bytes + 0.5))
    tile.n -= kTileShrinkStep;
  return tile;
}

int ctas_per_sm(const AttnShape& s, Algorithm algorithm) {
  return algorithm == Algorithm::fa2 && max_headdim(s) <= 128 ? 2 : 1;
}

bool is_persistent(Algorithm algorithm) {
  return algorithm == Algorithm::fa3 || algorithm == Algorithm::fa4;
}

double overlap(const hw::Spec&, Algorithm algorithm, Pass pass) {
  switch (algorithm) {
    case Algorithm::naive: return 0;
    case Algorithm::fa2:
      return pass == Pass::fwd ? factors::kOverlapFa2Forward : factors::kOverlapFa2Backward;
    case Algorithm::fa3:
    case Algorithm::fa4:
      if (pass == Pass::bwd) return factors::kOverlapPersistentBackward;
      return factors::kHopperPingPongHiddenShare;
  }
  return 0;
}

bool hides_per_longer_stream(const hw::Spec& gpu, Algorithm algorithm, Pass pass) {
  return is_persistent(algorithm) && is_hopper(gpu) && pass == Pass::fwd;
}

bool combines_streams_by_norm(const hw::Spec& gpu, Algorithm algorithm, Pass pass) {
  return algorithm == Algorithm::fa4 && is_blackwell(gpu) && pass == Pass::fwd;
}

int lab_fa3_backward_passes(const AttnShape& s, const Options& o) {
  constexpr int kLabFa3SinglePassMaxHeaddim = 128;
  return o.group_walking_backward && s.headdim > kLabFa3SinglePassMaxHeaddim ? 2 : 1;
}

BackwardRecompute backward_recompute(const AttnShape& s, const Options& o) {
  if (o.split_dq_backward)
    return {double(s.headdim) + double(s.headdim_v), 1, factors::kBackwardFmaOpsPerElement, 1};
  if (lab_fa3_backward_passes(s, o) > 1) return {double(s.headdim), 1, 1, 1};
  return {};
}

double split_backward_key_kernel_share(const AttnShape& s) {
  const double d = double(s.headdim), dv = double(s.headdim_v);
  return (2 * d + 2 * dv) / ((2 * d + 2 * dv) + (2 * d + dv));
}

std::optional<DqAdd> lab_fa3_dq_add(const AttnShape& s, const Options& o) {
  if (!o.group_walking_backward) return std::nullopt;
  return fa3_tiles::bwd_dq_bulk_reduce(int(s.headdim)) ? *o.group_walking_backward : DqAdd::atomics;
}

bool lab_splits_groups(const AttnShape& s, const Options& o) {
  const int group = int(s.heads_q / s.heads_kv);
  if (o.group_walking_backward)
    return fa3_tiles::bwd_split_gqa_groups(s.causal, group, s.seqlen_q, int(s.headdim));
  return o.algorithm == Algorithm::fa2 && o.pass == Pass::bwd &&
         fa2_bwd_tiles::split_gqa_groups(o.deterministic, s.causal, group, s.seqlen_q,
                                         int(s.headdim));
}

double default_exp_emulation(const hw::Spec& gpu, Algorithm algorithm) {
  if (algorithm != Algorithm::fa4) return 0;
  // FA4 turns emulation off where MUFU doubled (B300: 32 ex2/clk/SM), fa4-facts.md §4.
  constexpr double kDoubledMufu = 32;
  return gpu.per_sm.mufu_ex2_per_clk >= kDoubledMufu ? 0 : factors::kFa4DefaultExpEmulation;
}

bool row_max_on_load(const hw::Spec& gpu, const AttnShape& shape, const Options& options) {
  // FA4 pads the head dim to a multiple of 16 and keeps the software max at 32 ("SM103 ld.red is
  // profitable except for D32": flash_fwd_sm100.py, `use_ldred_rowmax`, flash-attention PR 2696).
  constexpr std::int64_t kPadding = 16, kSoftwareMaxPaddedHeaddim = 32;
  const bool padded_to_32 =
      (shape.headdim + kPadding - 1) / kPadding * kPadding == kSoftwareMaxPaddedHeaddim;
  return options.row_max_on_load.value_or(options.algorithm == Algorithm::fa4 &&
                                          options.pass == Pass::fwd && is_blackwell_ultra(gpu) &&
                                          !padded_to_32);
}

}  // namespace fa4::model
