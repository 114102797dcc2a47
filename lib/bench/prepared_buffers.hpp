// Inside lib/bench: the device buffers a PreparedAttention owns (attention_run.hpp), a forward
// problem or a backward one, and the pointers every launch takes.
#pragma once

#include <variant>

#include "bench/attention_bwd_check.hpp"
#include "bench/attention_check.hpp"
#include "kernels/registry.hpp"

namespace fa4::bench {

struct PreparedBuffers {
  std::variant<DeviceProblem, DeviceBwdProblem> problem;
  kernels::AttnBuffers buffers;
};

}  // namespace fa4::bench
