// What every recorded run says about where it came from: revision, host, command line.
#pragma once

#include <string>

#include "context.hpp"
#include "store/store.hpp"

namespace fa4::app {

// The source tree's `git describe --always --dirty`, or "unknown" outside a checkout.
std::string source_revision();

store::RunInfo current_run_info(store::RunKind kind, const Context& ctx, std::string device);

}  // namespace fa4::app
