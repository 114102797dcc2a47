// What predict() refuses before it prices anything: the shape, the GPU, the options and their
// combinations, and a tile that does not fit the SM's shared or tensor memory.
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

}  // namespace fa4::model::internal
