// The fa2 rung's compute ceiling: the rate of back-to-back bf16 mma.sync m16n8k16 (fp32
// accumulate) with operands in registers, measured on the device.
#pragma once

#include "core/error.hpp"

namespace fa4::bench {

struct MmaPeak {
  double median_ms = 0.0;
  double tflops = 0.0;
};

// Times `samples` launches (after one warm-up) that fill every SM with independent mma.sync chains.
Result<MmaPeak> measure_mma_sync_peak(int multiprocessors, int samples);

}  // namespace fa4::bench
