// One shape made ready for one or more registered kernels of one pass, as every measurement
// takes it: a kernel that cannot run the shape is skipped; the others share one upload of fresh
// random inputs, and each one's output, poisoned first, is checked once against the CPU oracle on
// sampled rows (a failing kernel is not timed). Then each checked kernel is timed with the Timer
// as often as asked, on the same buffers: once for bench, once a round for bench --ab, which
// alternates two kernels round by round on the same inputs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

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

// The device buffers of one problem (forward or backward), owned while the kernels are timed.
struct PreparedBuffers;

// Kernels of one pass on one shape, their inputs on the device and each output checked.
class PreparedAttention {
 public:
  // Forward kernels: random inputs from `seed` (reference::random_inputs), uploaded once with a
  // workspace for the largest any kernel needs; each kernel that can run the shape launched on
  // poisoned outputs and checked. Errors are CUDA failures outside a kernel's check (allocation,
  // copies).
  static Result<PreparedAttention> forward(std::span<const kernels::Kernel* const> kernels,
                                           const AttnShape& shape,
                                           const kernels::DeviceCaps& device, std::uint64_t seed);
  // Backward kernels (attention_bwd_run.hpp): random Q, K, V and dO, one untimed run of `forward`
  // for O and LSE, then each backward kernel's gradients, poisoned first, checked. Errors also
  // include a launch error of the forward kernel.
  static Result<PreparedAttention> backward(std::span<const kernels::Kernel* const> kernels,
                                            const kernels::Kernel& forward, const AttnShape& shape,
                                            const kernels::DeviceCaps& device, std::uint64_t seed);

  PreparedAttention(PreparedAttention&&) noexcept;
  PreparedAttention& operator=(PreparedAttention&&) noexcept;
  ~PreparedAttention();

  std::size_t size() const { return kernels_.size(); }
  // Kernel i's check, not timed: ok (the check's summary), failed (the check or the launch
  // error) or skipped (why it cannot run the shape).
  const AttentionRun& checked(std::size_t i) const { return checks_.at(i); }
  // One timing of kernel i, whose check passed (else its check, not timed): its launch alone
  // timed with `timer`, TFLOP/s from the pass's FLOPs over the median.
  Result<AttentionRun> time(std::size_t i, const Timer& timer) const;

 private:
  PreparedAttention(AttnShape shape, Pass pass, std::vector<const kernels::Kernel*> kernels);
  AttnShape shape_;
  Pass pass_ = Pass::fwd;
  std::vector<const kernels::Kernel*> kernels_;
  std::vector<AttentionRun> checks_;
  std::unique_ptr<PreparedBuffers> buffers_;  // null when no kernel can run the shape
};

// One kernel checked and timed once: PreparedAttention::forward, then one time().
Result<AttentionRun> run_attention(const kernels::Kernel& kernel, const AttnShape& shape,
                                   const kernels::DeviceCaps& device, const Timer& timer,
                                   std::uint64_t seed);

}  // namespace fa4::bench
