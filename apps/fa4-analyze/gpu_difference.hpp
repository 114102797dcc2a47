// Why one GPU's prediction of a kernel differs from another's on the same problem, in one line:
// the times, the bounds, and the hardware figures and model factors that differ among those the
// bound uses (for example H200 against H100: the same SMs, clock and MMA rate, a lower measured
// GEMM share, so an MMA-bound forward predicts slower at the same clock).
#pragma once

#include <string>

#include "hw/spec.hpp"
#include "model/model.hpp"

namespace fa4::app {

// "h200 against h100-sxm: 1.684 ms against 1.649 ms (1.021x the time); both bound by mma; differs
// in measured GEMM / peak (0.79 against 0.807)".
std::string why_they_differ(const hw::Spec& gpu, const model::Prediction& prediction,
                            const hw::Spec& base, const model::Prediction& base_prediction);

}  // namespace fa4::app
