#include "open_store.hpp"

#include "user_error.hpp"

namespace fa4::app {

store::Store open_store(const Context& ctx, bool create) {
  return take(store::Store::open(
      ctx.db_path,
      {.create = create, .busy_timeout = std::chrono::milliseconds(ctx.busy_timeout_ms)}));
}

}  // namespace fa4::app
