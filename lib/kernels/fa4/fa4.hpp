// What the fa4 kernels leave in their workspace (registry workspace_bytes): two counters of the
// conditional-rescaling policy, accumulated over launches with atomics (zero the workspace to read
// one launch's). Plain C++ so tests can read them.
#pragma once

#include <cstdint>

namespace fa4::kernels::fa4_softmax {

struct RescaleCounts {
  // Per-warp rescale decisions on key blocks after each tile's first (one per warp and block).
  std::uint64_t blocks = 0;
  // Of those, the ones where no row of the warp raised its maximum by more than 8 (log2 units),
  // so the running maximum was kept and O and the row sums were not rescaled.
  std::uint64_t skipped = 0;
};
static_assert(sizeof(RescaleCounts) == 16, "two 64-bit counters, the kernel's layout");

}  // namespace fa4::kernels::fa4_softmax
