#include "report/unit_scaling.hpp"

#include "hw/loader.hpp"

namespace fa4::report {

std::optional<Scaling> scaling_against_baseline(const std::vector<hw::Spec>& gpus) {
  const auto found = hw::find_spec(gpus, kScalingBaseline);
  if (!found) return std::nullopt;
  const hw::Spec& base = **found;
  Scaling scaling{&base, {}};
  for (const hw::Spec& g : gpus)
    scaling.per_gpu.push_back(
        {.dense_bf16_peak = g.peak_flops(Dtype::bf16) / base.peak_flops(Dtype::bf16),
         .mma_bf16 = g.mma_flop_per_clk(Dtype::bf16) / base.mma_flop_per_clk(Dtype::bf16),
         .mufu_ex2 = g.per_sm.mufu_ex2_per_clk / base.per_sm.mufu_ex2_per_clk,
         .fma = g.per_sm.fma_lanes_per_clk / base.per_sm.fma_lanes_per_clk,
         .smem = g.per_sm.smem_bytes_per_clk / base.per_sm.smem_bytes_per_clk,
         .hbm = g.hbm_bytes_per_s / base.hbm_bytes_per_s});
  return scaling;
}

}  // namespace fa4::report
