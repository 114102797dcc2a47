// '--ceilings measured': a hardware model whose unit rates are the ones 'fa4-analyze ceilings'
// measured on that GPU instead of the datasheet's. The clocks, SM count and capacities stay.
#pragma once

#include <string>
#include <vector>

#include "core/error.hpp"
#include "hw/spec.hpp"

namespace fa4::hw {

// One measured ceiling as the results database holds it (units as `fa4-analyze ceilings` names
// them: wgmma_bf16, mma_sync_bf16, gemm_bf16, mufu_ex2, fma_fp32, smem_read, hbm_copy).
struct MeasuredCeiling {
  std::string unit;
  double value = 0;           // TFLOP/s, Tops/s or TB/s
  double per_sm_per_clk = 0;  // at the SM clock of the measurement; 0 for hbm_copy
  std::string provenance;     // "NVIDIA H200, run 12, 2026-11-22T03:00:00Z"
};

// The units a model needs measured; gemm_bf16 and mma_sync_bf16 are used when present.
const std::vector<std::string>& required_ceiling_units();

// `datasheet` with: dense bf16/fp16 MMA per SM per clock from wgmma_bf16 (fp16 keeps the
// datasheet's fp16/bf16 ratio); gemm_efficiency = gemm_bf16 / wgmma_bf16 (1 when no GEMM was
// measured); mma_sync_share = mma_sync_bf16 / wgmma_bf16; MUFU ex2, FP32 FMA lanes and SMEM
// bytes per SM per clock; copy_efficiency = hbm_copy / datasheet HBM bandwidth. Each replaced
// figure's source names the measurement. The error lists the units missing.
Result<Spec> with_measured_ceilings(const Spec& datasheet,
                                    const std::vector<MeasuredCeiling>& measured);

}  // namespace fa4::hw
