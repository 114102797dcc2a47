// What every recorded run says about where it came from: revision, host, command line.
#pragma once

#include <string>

#include "context.hpp"
#include "store/store.hpp"

namespace fa4::app {

store::RunInfo current_run_info(store::RunKind kind, const Context& ctx, std::string device);

}  // namespace fa4::app
