// --ceilings datasheet|measured for the commands that model (model, predict): the hardware
// model as its file has it, or with the latest unit ceilings 'fa4-analyze ceilings' recorded
// for that GPU in the results database.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "context.hpp"
#include "hw/spec.hpp"

namespace fa4::app {

void add_ceilings_option(CLI::App& command, std::string& mode);

// Throws UserError when `mode` is measured and the database holds no (or too few) ceilings
// measured on a device that `gpu` models.
hw::Spec apply_ceilings(const Context& ctx, const std::vector<hw::Spec>& specs,
                        const hw::Spec& gpu, const std::string& mode);

}  // namespace fa4::app
