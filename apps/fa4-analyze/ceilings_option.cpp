#include "ceilings_option.hpp"

#include <fmt/format.h>

#include "hw/loader.hpp"
#include "hw/measured_ceilings.hpp"
#include "open_store.hpp"
#include "report/roofline.hpp"
#include "store/store.hpp"
#include "user_error.hpp"

namespace fa4::app {

void add_ceilings_option(CLI::App& command, std::string& mode) {
  command
      .add_option("--ceilings", mode,
                  "Unit rates: datasheet (the hardware model's file) or measured (the latest "
                  "'fa4-analyze ceilings' on that GPU, from --db)")
      ->check(CLI::IsMember({"datasheet", "measured"}));
}

hw::Spec apply_ceilings(const Context& ctx, const std::vector<hw::Spec>& specs, const hw::Spec& gpu,
                        const std::string& mode) {
  if (mode != "measured") return gpu;
  const auto db = open_store_for_reading(ctx);
  const auto measured = report::measured_ceilings_of(specs, gpu, take(db.latest_ceilings()));
  if (measured.empty())
    throw UserError(
        fmt::format("{} holds no ceilings measured on a {} ({}): run 'fa4-analyze "
                    "ceilings' on that GPU first, or use --ceilings datasheet",
                    ctx.db_path, gpu.id, gpu.name));
  return take(hw::with_measured_ceilings(gpu, measured));
}

}  // namespace fa4::app
