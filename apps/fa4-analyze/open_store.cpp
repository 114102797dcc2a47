#include "open_store.hpp"

#include <fmt/format.h>

#include "user_error.hpp"

namespace fa4::app {

store::Store open_store(const Context& ctx) {
  return take(store::Store::open(ctx.db_path,
                                 {.busy_timeout = std::chrono::milliseconds(ctx.busy_timeout_ms)}));
}

store::Store open_store_for_reading(const Context& ctx) {
  auto db = take(store::Store::open(
      ctx.db_path,
      {.read_only = true, .busy_timeout = std::chrono::milliseconds(ctx.busy_timeout_ms)}));
  if (const Status whole = db.check_integrity(); !whole)
    fmt::print(stderr, "warning: {}; what is read from it may be incomplete or wrong\n",
               whole.error().message);
  return db;
}

}  // namespace fa4::app
