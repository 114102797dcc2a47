// One registered kernel on one shape, as every measurement takes it: skipped when the kernel
// cannot run the shape; else the output, poisoned first, is checked against the CPU oracle on
// sampled rows of fresh random inputs (a failing kernel is not timed); then timed with the Timer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "bench/attention_check.hpp"
#include "bench/timer.hpp"
#include "kernels/registry.hpp"

namespace fa4::bench {

enum class Outcome { ok, failed, skipped };

struct AttentionRun {
  Outcome outcome = Outcome::ok;
  std::string reason;  // why skipped or failed; the check's summary when ok
  std::optional<TimingStats> timing;
  double tflops = 0;  // the pass's FLOPs (core/shape.hpp) / median time
};

// Errors are CUDA failures outside the kernel's check (allocation, copies, a launch error).
Result<AttentionRun> run_attention(const kernels::Kernel& kernel, const AttnShape& shape,
                                   const kernels::DeviceCaps& device, const Timer& timer,
                                   std::uint64_t seed);

}  // namespace fa4::bench
