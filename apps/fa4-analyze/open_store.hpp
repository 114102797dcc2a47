// Opening the results database the way every subcommand does: --db, and --busy-timeout for how
// long to wait for another process writing it. Throws UserError with the store's message.
#pragma once

#include "context.hpp"
#include "store/store.hpp"

namespace fa4::app {

// create = false: refuse a missing database (the read-only commands) instead of creating it.
store::Store open_store(const Context& ctx, bool create = true);

}  // namespace fa4::app
