// Each unit of a GPU against the same unit on the baseline GPU, H100 SXM: FA4 measures Blackwell's
// asymmetric scaling against Hopper (the tensor cores doubled on B200, MUFU and shared memory did
// not). `fa4-analyze gpus` and the report's hardware section both show these ratios.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "hw/spec.hpp"

namespace fa4::report {

inline constexpr std::string_view kScalingBaseline = "h100-sxm";

// One GPU's rates over the baseline's: the whole GPU's dense bf16 peak and HBM bandwidth, and per
// SM and clock its tensor-core bf16 FLOPs, MUFU ex2 results, FP32 FMA lanes and shared-memory
// bytes.
struct UnitScaling {
  double dense_bf16_peak = 0;
  double mma_bf16 = 0;
  double mufu_ex2 = 0;
  double fma = 0;
  double smem = 0;
  double hbm = 0;
};

struct Scaling {
  const hw::Spec* baseline = nullptr;  // the kScalingBaseline model among the GPUs
  std::vector<UnitScaling> per_gpu;    // in the GPUs' order
};

// nullopt when the baseline is not among `gpus`.
std::optional<Scaling> scaling_against_baseline(const std::vector<hw::Spec>& gpus);

}  // namespace fa4::report
