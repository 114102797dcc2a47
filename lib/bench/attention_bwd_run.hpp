// One registered backward kernel on one shape, as kernel_timing --pass bwd takes it: skipped when
// the kernel, or the forward kernel that makes its O and LSE, cannot run the shape; else fresh
// random Q, K, V and dO, one untimed run of the forward kernel for O and LSE, the gradients
// (poisoned first) checked against the CPU backward oracle given that O and LSE on sampled rows (a
// failing kernel is not timed), then the backward launch timed with the Timer: every kernel it
// enqueues (preprocessing, main kernel, dQ conversion) inside the events. Several backward
// kernels share the inputs, O and LSE through PreparedAttention::backward (attention_run.hpp).
#pragma once

#include <cstdint>

#include "bench/attention_run.hpp"
#include "bench/timer.hpp"
#include "kernels/registry.hpp"

namespace fa4::bench {

// AttentionRun::tflops counts backward FLOPs (2.5 x forward, core/shape.hpp). Errors are CUDA
// failures outside the checks (allocation, copies, a launch error of the forward kernel).
Result<AttentionRun> run_attention_backward(const kernels::Kernel& kernel,
                                            const kernels::Kernel& forward, const AttnShape& shape,
                                            const kernels::DeviceCaps& device, const Timer& timer,
                                            std::uint64_t seed);

}  // namespace fa4::bench
