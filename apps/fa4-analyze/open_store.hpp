// Opening the results database the way every subcommand does: --db, and --busy-timeout for how
// long to wait for another process writing it. Throws UserError with the store's message, and
// when --db names several databases (the readers of several open them through databases.hpp).
#pragma once

#include "context.hpp"
#include "store/store.hpp"

namespace fa4::app {

// For the commands that write: creates a missing database; refuses a damaged or read-only one.
store::Store open_store(const Context& ctx);

// For the commands that only read (query, runs, report, --ceilings measured): refuses a missing
// database, reads a read-only one, and warns on standard error when the database is damaged (the
// check stops after 250 ms, so that reading a large database stays quick).
store::Store open_store_for_reading(const Context& ctx);

}  // namespace fa4::app
