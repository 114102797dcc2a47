// The roofs of attention on one GPU from the model's per-tile cycles (and from the measured unit
// ceilings, where every unit the model needs was measured): the arithmetic behind the report's and
// `fa4-analyze roofline`'s charts, which draw it.
#include "model/roofline_bounds.hpp"

#include <fmt/format.h>

#include <cmath>

#include "model/algorithm_traits.hpp"

namespace fa4::model {
namespace {

// The attention FLOPs of one M x N tile (the FLOP convention of core/shape.hpp on a one-tile
// problem) per cycle on `cycles`, over the whole GPU at the model's clock, in TFLOP/s.
double tile_ceiling_tflops(const hw::Spec& gpu, const AttnShape& shape, Pass pass, Tile tile,
                           double cycles) {
  AttnShape one_tile = shape;
  one_tile.batch = one_tile.heads_q = one_tile.heads_kv = 1;
  one_tile.seqlen_q = tile.m;
  one_tile.seqlen_k = tile.n;
  one_tile.causal = false;
  return attention_flops(one_tile, pass) / cycles * gpu.sms * gpu.peak_clock_mhz * 1e6 / 1e12;
}

Algorithm ceiling_algorithm(const hw::Spec& gpu) {
  return unsupported_reason(gpu, Algorithm::fa4) ? Algorithm::fa2
                                                               : Algorithm::fa4;
}

// exp2 on MUFU, shared memory and (fa4 only) exp2 emulated on the FMA pipe at head dim d.
Status add_attention_roofs(const hw::Spec& gpu, Pass pass, std::int64_t d, bool measured,
                           std::vector<Roof>& roofs) {
  AttnShape shape;
  shape.headdim = shape.headdim_v = d;
  Options options;
  options.algorithm = ceiling_algorithm(gpu);
  options.pass = pass;
  options.exp_emulation =
      options.algorithm == Algorithm::fa4 ? std::optional(0.0) : std::nullopt;
  const Tile tile = default_tile(gpu, shape, options);
  const auto plain = tile_cycles(gpu, shape, options, tile);
  if (!plain) return plain.error();
  const std::string suffix = fmt::format(", hd{}{}", d, measured ? " (measured)" : "");
  const auto add = [&](const std::string& unit, double cycles) {
    if (cycles > 0)
      roofs.push_back(
          {unit + suffix, tile_ceiling_tflops(gpu, shape, pass, tile, cycles), measured});
  };
  add("exp2 on MUFU", plain->exp_mufu);
  add("shared memory", plain->smem);
  if (options.algorithm == Algorithm::fa4) {
    options.exp_emulation = 1.0;
    const auto emulated = tile_cycles(gpu, shape, options, tile);
    if (!emulated) return emulated.error();
    add("exp2 emulated on FMA", emulated->fma);
  }
  return Ok{};
}

// A roof or bandwidth that is not a finite positive number cannot be drawn: a hardware figure or a
// measured ceiling out of range.
Status check_finite_roofs(const hw::Spec& gpu, const RooflineBounds& b) {
  const auto refused = [&](const std::string& what, double value, bool measured) {
    return Error{fmt::format(
        "the roofline of {}: {} is {:g}, not a finite positive number; {}", gpu.id, what, value,
        measured ? fmt::format("the measured ceilings ({}) are out of range: measure them again",
                               b.measured_from)
                 : "the hardware model's figures are out of range: correct its file")};
  };
  if (!std::isfinite(b.hbm_tb_s) || b.hbm_tb_s <= 0)
    return refused("the HBM bandwidth (TB/s)", b.hbm_tb_s, false);
  if (!std::isfinite(b.measured_hbm_tb_s) || b.measured_hbm_tb_s < 0)
    return refused("the measured HBM copy bandwidth (TB/s)", b.measured_hbm_tb_s, true);
  if (!std::isfinite(b.measured_hbm_read_tb_s) || b.measured_hbm_read_tb_s < 0)
    return refused("the measured HBM read bandwidth (TB/s)", b.measured_hbm_read_tb_s, true);
  for (const Roof& r : b.roofs)
    if (!std::isfinite(r.tflops) || r.tflops <= 0)
      return refused(fmt::format("the roof \"{}\" (TFLOP/s)", r.name), r.tflops, r.measured);
  return Ok{};
}

}  // namespace

Result<RooflineBounds> roofline_bounds(const hw::Spec& gpu, Pass pass,
                                       const std::vector<std::int64_t>& headdims,
                                       const std::vector<hw::MeasuredCeiling>& measured) {
  RooflineBounds b;
  b.gpu = gpu.id;
  b.pass = pass;
  b.hbm_tb_s = gpu.hbm_bytes_per_s / 1e12;
  b.ceiling_algorithm = std::string(to_string(ceiling_algorithm(gpu)));
  b.roofs.push_back({"dense bf16 peak", gpu.peak_flops(Dtype::bf16) / 1e12, false});
  for (std::int64_t d : headdims)
    if (auto s = add_attention_roofs(gpu, pass, d, false, b.roofs); !s) return s.error();
  for (const hw::MeasuredCeiling& c : measured) {
    if (c.unit == "hbm_copy") b.measured_hbm_tb_s = c.value;
    if (c.unit == "hbm_read") b.measured_hbm_read_tb_s = c.value;
    if (c.unit == "gemm_bf16") b.roofs.push_back({"cuBLAS bf16 GEMM (measured)", c.value, true});
    if (b.measured_from.empty()) b.measured_from = c.provenance;
  }
  // The attention ceilings from the measured unit rates, where every unit the model needs was
  // measured on this GPU.
  if (auto measured_gpu = hw::with_measured_ceilings(gpu, measured))
    for (std::int64_t d : headdims)
      if (auto s = add_attention_roofs(*measured_gpu, pass, d, true, b.roofs); !s) return s.error();
  if (auto s = check_finite_roofs(gpu, b); !s) return s.error();
  return b;
}

}  // namespace fa4::model
