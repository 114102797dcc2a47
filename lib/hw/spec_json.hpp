// A Spec as JSON, in the model-file schema plus its "id": what `fa4-analyze gpus --json` prints.
// Loading the output (without "id") gives the same Spec back.
#pragma once

#include <nlohmann/json.hpp>

#include "hw/spec.hpp"

namespace fa4::hw {

void to_json(nlohmann::ordered_json& json, const Spec& spec);

}  // namespace fa4::hw
