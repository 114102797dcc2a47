// What every recorded run says about where it came from: revision, host, command line.
#pragma once

#include <optional>
#include <string>

#include "context.hpp"
#include "store/store.hpp"

namespace fa4::app {

// The revision this binary was built from: the source tree's `git describe --always --dirty` at
// build time ("unknown" when it was built outside a checkout). What every recorded run says.
std::string source_revision();

// A line saying that the source tree's `git describe --always --dirty` now differs from the
// revision this binary was built from, or nothing when they agree or git cannot tell (no checkout,
// no git, a tree owned by another user).
std::optional<std::string> revision_mismatch_note();

store::RunInfo current_run_info(store::RunKind kind, const Context& ctx, std::string device);
#if FA4_HAVE_BENCH
// The same for a run on this machine's GPU (bench, ceilings): with the driver and CUDA versions.
store::RunInfo gpu_run_info(store::RunKind kind, const Context& ctx, std::string device);
#endif

}  // namespace fa4::app
