// One registered kernel on one shape, as every measurement takes it: skipped when the kernel
// cannot run the shape; else the output, poisoned first, is checked against the CPU oracle on
// sampled rows of fresh random inputs (a failing kernel is not timed); then timed with the Timer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
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

// The pieces every measurement's run shares (the backward's too: attention_bwd_run.hpp).
// How many query rows (and for a backward kernel, key rows) are checked against the oracle.
inline constexpr std::size_t kCheckedRows = 48;
// A run that was not timed: skipped (why) or failed (the error, or the check's summary).
AttentionRun not_timed(Outcome outcome, std::string reason);
// After a passing check (`check_summary`): `launch` timed with `timer`, TFLOP/s from the FLOPs of
// `pass` on `shape` (core/shape.hpp) over the median.
Result<AttentionRun> time_checked(const Timer& timer, const AttnShape& shape, Pass pass,
                                  std::string check_summary, const std::function<Status()>& launch);

// Errors are CUDA failures outside the kernel's check (allocation, copies, a launch error).
Result<AttentionRun> run_attention(const kernels::Kernel& kernel, const AttnShape& shape,
                                   const kernels::DeviceCaps& device, const Timer& timer,
                                   std::uint64_t seed);

}  // namespace fa4::bench
