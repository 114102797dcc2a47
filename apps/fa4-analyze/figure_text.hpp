// A hardware model's figure as `fa4-analyze gpus` prints it ("1980 MHz", "4.8 TB/s", "not
// measured"): shared by gpus and by the lines that say why two GPUs' predictions differ.
#pragma once

#include <string>

#include "hw/figures.hpp"
#include "hw/spec.hpp"

namespace fa4::app {

std::string format_value(hw::Unit unit, double value);

// A figure the model file leaves out (a measured efficiency, a fitted clock share) shows why, the
// words before its absent source's colon ("not measured", "not fitted"), not its default.
std::string format_figure(const hw::Figure& figure, const hw::Spec& gpu);

}  // namespace fa4::app
