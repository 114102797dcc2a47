#include "open_store.hpp"

#include <fmt/format.h>

#include "databases.hpp"
#include "user_error.hpp"

namespace fa4::app {

store::Store open_store(const Context& ctx) {
  refuse_several_databases(ctx);
  return take(store::Store::open(ctx.db_path,
                                 {.busy_timeout = std::chrono::milliseconds(ctx.busy_timeout_ms)}));
}

// A reader's integrity check stops after this long, so that reading a large database stays quick
// (quick_check takes about 0.9 s on a 135 MB one); the writers check it whole when they open it.
constexpr std::chrono::milliseconds kReaderCheckBudget{250};

store::Store open_store_for_reading(const Context& ctx) {
  refuse_several_databases(ctx);
  auto db = take(store::Store::open(
      ctx.db_path,
      {.read_only = true, .busy_timeout = std::chrono::milliseconds(ctx.busy_timeout_ms)}));
  if (const auto whole = db.check_integrity(kReaderCheckBudget); !whole)
    fmt::print(stderr, "warning: {}; what is read from it may be incomplete or wrong\n",
               whole.error().message);
  return db;
}

}  // namespace fa4::app
