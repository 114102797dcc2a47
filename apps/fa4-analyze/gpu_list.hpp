// --gpu as model, whatif and roofline take it: one hardware model, a comma list of them
// (h100,h200,b200) or all, each found as hw::find_spec finds one.
#pragma once

#include <string>
#include <vector>

#include "hw/spec.hpp"

namespace fa4::app {

// The models `text` names, in the order given ("all": every loaded model, in the loader's order).
// Throws UserError for an empty entry, an unknown one (naming it and the known ids) and a model
// named twice.
std::vector<const hw::Spec*> find_gpus(const std::vector<hw::Spec>& specs, const std::string& text);

// What --gpu's help says of the list.
inline constexpr const char* kGpuListHelp =
    "a comma list of them (h100,h200,b200) or all, printed side by side";

}  // namespace fa4::app
