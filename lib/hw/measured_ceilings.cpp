#include "hw/measured_ceilings.hpp"

#include <fmt/format.h>

namespace fa4::hw {
namespace {

const MeasuredCeiling* find_unit(const std::vector<MeasuredCeiling>& measured,
                                 std::string_view unit) {
  for (const MeasuredCeiling& c : measured)
    if (c.unit == unit) return &c;
  return nullptr;
}

}  // namespace

const std::vector<std::string>& required_ceiling_units() {
  static const std::vector<std::string> units = {"wgmma_bf16", "mufu_ex2", "fma_fp32",
                                                 "smem_read", "hbm_copy"};
  return units;
}

Result<Spec> with_measured_ceilings(const Spec& datasheet,
                                    const std::vector<MeasuredCeiling>& measured) {
  std::string missing;
  for (const std::string& unit : required_ceiling_units()) {
    const MeasuredCeiling* c = find_unit(measured, unit);
    if (!c || !(c->value > 0) || (unit != "hbm_copy" && !(c->per_sm_per_clk > 0)))
      missing += (missing.empty() ? "" : ", ") + unit;
  }
  if (!missing.empty())
    return Error{fmt::format("{}: no measured {}; run 'fa4-analyze ceilings' on that GPU, or use "
                             "--ceilings datasheet",
                             datasheet.id, missing)};
  Spec s = datasheet;
  const auto note = [&](const std::string& pointer, const MeasuredCeiling& c) {
    s.sources[pointer] = fmt::format("measured ({}): {}", c.unit, c.provenance);
  };
  const MeasuredCeiling& wgmma = *find_unit(measured, "wgmma_bf16");
  const double fp16_ratio = datasheet.per_sm.mma_flop_per_clk_fp16 /
                            datasheet.per_sm.mma_flop_per_clk_bf16;
  s.per_sm.mma_flop_per_clk_bf16 = wgmma.per_sm_per_clk;
  s.per_sm.mma_flop_per_clk_fp16 = wgmma.per_sm_per_clk * fp16_ratio;
  note("/per_sm/mma_flop_per_clk_bf16", wgmma);
  note("/per_sm/mma_flop_per_clk_fp16", wgmma);
  s.gemm_efficiency = 1.0;
  if (const MeasuredCeiling* gemm = find_unit(measured, "gemm_bf16")) {
    s.gemm_efficiency = gemm->value / wgmma.value;
    note("/gemm_efficiency", *gemm);
  } else {
    s.sources["/gemm_efficiency"] = "1: no GEMM measured, the wgmma probe's rate is the ceiling";
  }
  if (const MeasuredCeiling* sync = find_unit(measured, "mma_sync_bf16")) {
    s.mma_sync_share = sync->value / wgmma.value;
    note("/mma_sync_share", *sync);
  }
  const MeasuredCeiling& ex2 = *find_unit(measured, "mufu_ex2");
  s.per_sm.mufu_ex2_per_clk = ex2.per_sm_per_clk;
  note("/per_sm/mufu_ex2_per_clk", ex2);
  const MeasuredCeiling& fma = *find_unit(measured, "fma_fp32");
  s.per_sm.fma_lanes_per_clk = fma.per_sm_per_clk;
  note("/per_sm/fma_lanes_per_clk", fma);
  const MeasuredCeiling& smem = *find_unit(measured, "smem_read");
  s.per_sm.smem_bytes_per_clk = smem.per_sm_per_clk;
  note("/per_sm/smem_bytes_per_clk", smem);
  const MeasuredCeiling& copy = *find_unit(measured, "hbm_copy");
  s.copy_efficiency = copy.value * 1e12 / datasheet.hbm_bytes_per_s;
  note("/copy_efficiency", copy);
  if (const MeasuredCeiling* read = find_unit(measured, "hbm_read")) {
    s.read_efficiency = read->value * 1e12 / datasheet.hbm_bytes_per_s;
    note("/read_efficiency", *read);
  }
  return s;
}

}  // namespace fa4::hw
