// Speed of light per unit (Nsight Compute's idea, from the model): for each FlashAttention-style
// kernel a GPU runs, forward and backward, at the reference prefill shape (hd128, seqlen 8192,
// 16 heads, batch 2, bf16), each unit's cycles per tile as a share of the tile's time, and the
// unit (or units, when they tie) that bound it. fa4's forward is shown twice: with every exp2 on
// MUFU (FA4's problem on B200) and as the model runs it (with its software exp2 share).
#pragma once

#include <string>
#include <vector>

#include "hw/spec.hpp"
#include "model/model.hpp"
#include "report/chart.hpp"

namespace fa4::report {

struct UnitBreakdown {
  model::Prediction prediction;  // its tile_cycles, tile_time_cycles and tile bottleneck
  bool mufu_only = false;        // fa4 forward with software exp2 off
  std::string category() const;  // "fa4 fwd", "fa4 fwd, exp2 on MUFU only"
};

// The units drawn, in order, with the names the chart gives them.
struct UnitName {
  model::Unit unit;
  const char* name;
};
const std::vector<UnitName>& breakdown_units();

// The drawn units within 1% of the tile's busiest: "smem", or "mma = exp_mufu" for a tie.
std::string bound_units(const model::TileCycles& cycles);

// fa2, fa3 and fa4 where the GPU runs them (the model's refusals are left out), fwd then bwd, and
// fa4's forward with every exp2 on MUFU before its own.
std::vector<UnitBreakdown> unit_breakdowns(const hw::Spec& gpu);

// One bar per unit and kernel-pass group, a triangle over each bound unit's bar.
Figure unit_breakdown_figure(const std::string& name, const hw::Spec& gpu,
                             const std::vector<UnitBreakdown>& rows, const std::string& caption);

}  // namespace fa4::report
