// The shipped hardware models (the model tests' loader, tests/model/gpu_models.hpp) and the
// shape of the lab's sweeps, for the orchestration tests.
#pragma once

#include "gpu_models.hpp"

namespace fa4::orchestration::testing {

using fa4::testing::gpu;

// 16k tokens of bf16 heads summing to 2048: the lab's sweeps at one head dim and seqlen.
inline AttnShape tokens_16k(std::int64_t headdim, std::int64_t seqlen, bool causal = false) {
  return fa4::testing::square(16384 / seqlen, 2048 / headdim, seqlen, headdim, causal);
}

}  // namespace fa4::orchestration::testing
