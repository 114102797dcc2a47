#include "orchestration/kernel_models.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/fa2_bwd_tiles.hpp"
#include "core/fa3_tiles.hpp"

namespace fa4::orchestration {
namespace {

using model::Algorithm;

// Our fa2 takes 64-key blocks at every head dim (lib/kernels/fa2.cu: 128 at hd64 spilled); the
// model's FA2 takes FA2's own 128 at hd64 (64 above, as ours).
constexpr ForcedTile kFa2Tiles[] = {{64, {128, 64}}};

// fa3's tile at one head dim with the given key blocks (core/fa3_tiles.hpp, as the kernels
// instantiate it).
constexpr model::Tile fa3_tile(int headdim, fa3_tiles::KeyBlocks blocks) {
  return {fa3_tiles::kBlockM, fa3_tiles::key_block_width(headdim, blocks)};
}
constexpr ForcedTile fa3_forced(int headdim, fa3_tiles::KeyBlocks blocks) {
  return {headdim, fa3_tile(headdim, blocks)};
}
using enum fa3_tiles::KeyBlocks;
// fa3's standard key blocks without key_blocks_for's choice by sequence length: the ablation
// variants launch these at every seqlen, where fa3 (and the model's fa3 tile) takes wide blocks
// at hd64 from seqlen_k 4096 and narrow ones at hd256 up to seqlen_k 512.
constexpr ForcedTile kFa3StandardTiles[] = {fa3_forced(64, standard), fa3_forced(128, standard),
                                            fa3_forced(256, standard)};
// fa3_wide: FA3's wide blocks at hd64 and hd128; hd256 has none (its standard blocks).
constexpr ForcedTile kFa3WideTiles[] = {fa3_forced(64, wide), fa3_forced(128, wide),
                                        fa3_forced(256, wide)};
// fa3_narrow: narrow blocks at hd256 at every seqlen; fa3 itself at hd64 and hd128.
constexpr ForcedTile kFa3NarrowTiles[] = {fa3_forced(256, narrow)};

// The backward tiles, {query rows per step, keys per CTA} (the model's backward tile keeps a CTA's
// keys and walks the query blocks, as both kernels do). fa2_bwd: core/fa2_bwd_tiles.hpp's blocks
// (128 queries x 128 keys at hd64, 64 x 128 at hd128, 64 x 64 at hd256).
constexpr ForcedTile fa2_bwd_forced(int headdim) {
  return {headdim, {fa2_bwd_tiles::query_block(headdim), fa2_bwd_tiles::key_block(headdim)}};
}
constexpr ForcedTile kFa2BwdTiles[] = {fa2_bwd_forced(64), fa2_bwd_forced(128),
                                       fa2_bwd_forced(256)};
// fa3_bwd: core/fa3_tiles.hpp's backward blocks (128 keys; 128 queries at hd64, 64 above).
constexpr ForcedTile fa3_bwd_forced(int headdim) {
  return {headdim, {fa3_tiles::bwd_query_block(headdim), fa3_tiles::kBwdBlockN}};
}
constexpr ForcedTile kFa3BwdTiles[] = {fa3_bwd_forced(64), fa3_bwd_forced(128),
                                       fa3_bwd_forced(256)};

// fa4 rescales conditionally from this seqlen_k and runs fa3's softmax below (lib/kernels/fa4/
// fa4.cu, launch_fa4_best): there it is predicted as the model's fa4 with both techniques off,
// which the model makes fa3's tile exactly. The fa4_e*_r1 grid rescales conditionally always, the
// fa4_e*_r0 grid never; their shares are whole eighths of each row (e12: 12.5%).
constexpr std::int64_t kFa4ConditionalRescaleFrom = 4096;
constexpr std::int64_t kAlways = 0;

// The ablations: the model's Hopper overlap share (factors.hpp, kHopperPingPongHiddenShare) was
// fitted to fa3 with all three of FA3's scheduling ideas on, and the model has no term for any
// one of them alone. Predicting them as fa3 at their own key blocks makes measured / predicted
// the ablation's cost.
constexpr std::string_view kNoPingPong =
    "fa3 at the same key blocks: the model has no term for ping-pong alone";
constexpr std::string_view kNoOverlap =
    "fa3 at the same key blocks: the model has no term for intra-warpgroup overlap alone";
constexpr std::string_view kNoWarpSpecialization =
    "fa3 at the same key blocks: the model has no term for warp specialization (a producer "
    "warpgroup, register reallocation; without it fa3_no_ws also drops ping-pong and keeps one Q "
    "buffer)";

// fa3_bwd's ablations (lib/kernels/fa3/fa3_bwd_ablations.cu) are predicted as fa3_bwd: measured
// over predicted is then the ablation's cost.
constexpr std::string_view kBwdNoOverlap =
    "fa3_bwd: the model has no term for a warpgroup's GEMMs overlapping its own exp2 and dS work";
constexpr std::string_view kBwdOneStage =
    "fa3_bwd: the model has no term for the Q/dO ring's depth";
constexpr std::string_view kBwdNoPersistent =
    "fa3_bwd: the model has no term for a persistent grid alone";

constexpr Pass kFwd = Pass::fwd;
constexpr Pass kBwd = Pass::bwd;
constexpr std::span<const ForcedTile> kModelsTile;  // the model's own tile for the algorithm

// kernel, algorithm, pass, tiles, exp2 emulated share, conditional rescaling from seqlen_k,
// approximation.
constexpr KernelModel kKernelModels[] = {
    {"naive", Algorithm::naive, kFwd, kModelsTile, 0, kNever, ""},
    {"fa2", Algorithm::fa2, kFwd, kFa2Tiles, 0, kNever, ""},
    {"fa3", Algorithm::fa3, kFwd, kModelsTile, 0, kNever, ""},
    {"fa3_no_pingpong", Algorithm::fa3, kFwd, kFa3StandardTiles, 0, kNever, kNoPingPong},
    {"fa3_no_overlap", Algorithm::fa3, kFwd, kFa3StandardTiles, 0, kNever, kNoOverlap},
    {"fa3_no_ws", Algorithm::fa3, kFwd, kFa3StandardTiles, 0, kNever, kNoWarpSpecialization},
    {"fa3_wide", Algorithm::fa3, kFwd, kFa3WideTiles, 0, kNever, ""},
    {"fa3_narrow", Algorithm::fa3, kFwd, kFa3NarrowTiles, 0, kNever, ""},
    {"fa4", Algorithm::fa4, kFwd, kModelsTile, 0, kFa4ConditionalRescaleFrom, ""},
    {"fa4_e0_r0", Algorithm::fa4, kFwd, kModelsTile, 0, kNever, ""},
    {"fa4_e0_r1", Algorithm::fa4, kFwd, kModelsTile, 0, kAlways, ""},
    {"fa4_e12_r0", Algorithm::fa4, kFwd, kModelsTile, 0.125, kNever, ""},
    {"fa4_e12_r1", Algorithm::fa4, kFwd, kModelsTile, 0.125, kAlways, ""},
    {"fa4_e25_r0", Algorithm::fa4, kFwd, kModelsTile, 0.25, kNever, ""},
    {"fa4_e25_r1", Algorithm::fa4, kFwd, kModelsTile, 0.25, kAlways, ""},
    {"fa4_e50_r0", Algorithm::fa4, kFwd, kModelsTile, 0.5, kNever, ""},
    {"fa4_e50_r1", Algorithm::fa4, kFwd, kModelsTile, 0.5, kAlways, ""},
    {"fa4_e100_r1", Algorithm::fa4, kFwd, kModelsTile, 1.0, kAlways, ""},
    // fa3_decode's GQA-packed tiles and partition: the profile rows "our fa3_decode" and "our
    // fa3_decode_nosplit" (whole row blocks, one CTA each).
    {"fa3_decode", Algorithm::fa3, kFwd, kModelsTile, 0, kNever, ""},
    {"fa3_decode_nosplit", Algorithm::fa3, kFwd, kModelsTile, 0, kNever, ""},
    {"fa2_bwd", Algorithm::fa2, kBwd, kFa2BwdTiles, 0, kNever, ""},
    {"fa2_bwd_deterministic", Algorithm::fa2, kBwd, kFa2BwdTiles, 0, kNever, ""},
    {"fa3_bwd", Algorithm::fa3, kBwd, kFa3BwdTiles, 0, kNever, ""},
    {"fa3_bwd_atomics", Algorithm::fa3, kBwd, kFa3BwdTiles, 0, kNever, ""},
    {"fa3_bwd_no_overlap", Algorithm::fa3, kBwd, kFa3BwdTiles, 0, kNever, kBwdNoOverlap},
    {"fa3_bwd_one_stage", Algorithm::fa3, kBwd, kFa3BwdTiles, 0, kNever, kBwdOneStage},
    {"fa3_bwd_no_persistent", Algorithm::fa3, kBwd, kFa3BwdTiles, 0, kNever, kBwdNoPersistent},
};

}  // namespace

std::span<const KernelModel> kernel_models() { return kKernelModels; }

Result<const KernelModel*> find_kernel_model(std::string_view kernel) {
  const auto it = std::find_if(std::begin(kKernelModels), std::end(kKernelModels),
                               [&](const KernelModel& k) { return k.kernel == kernel; });
  if (it == std::end(kKernelModels))
    return Error{
        fmt::format("kernel '{}' has no model configuration: add its entry to "
                    "lib/orchestration/kernel_models.cpp",
                    kernel)};
  return &*it;
}

namespace {

model::Options options_of(const KernelModel& kernel, const AttnShape& shape,
                          std::vector<std::string_view>* paid) {
  model::Options options;
  options.algorithm = kernel.algorithm;
  options.pass = kernel.pass;
  for (const ForcedTile& forced : kernel.tiles)
    if (forced.headdim == shape.headdim) options.tile = forced.tile;
  if (kernel.algorithm == Algorithm::fa4) {
    options.exp_emulation = shape.headdim <= kSoftwareExp2MaxHeaddim ? kernel.exp_emulation : 0.0;
    options.conditional_rescale = shape.seqlen_k >= kernel.conditional_rescale_from_seqlen_k;
  }
  // The backward variants' own terms (dQ added in order, the lab's Hopper schedules): the
  // model's profile rows named after the kernel.
  return model::with_kernel_profile(kernel.kernel, shape, options, paid);
}

}  // namespace

model::Options model_options(const KernelModel& kernel, const AttnShape& shape) {
  return options_of(kernel, shape, nullptr);
}

model::Configured profile_options(const model::Implementation& implementation,
                                  const hw::Spec& gpu, const AttnShape& shape, Pass pass) {
  constexpr std::string_view kOurs = "our ";  // "our fa3_bwd": the lab's kernel, not FA3's
  std::string_view name = implementation.family;
  if (!name.starts_with(kOurs)) return model::configure(implementation, gpu, shape, pass);
  model::Configured out;
  name.remove_prefix(kOurs.size());
  auto kernel = find_kernel_model(name);
  if (!kernel) {
    out.not_modeled = kernel.error().message;
    return out;
  }
  out.options = options_of(**kernel, shape, &out.paid);
  return out;
}

}  // namespace fa4::orchestration
