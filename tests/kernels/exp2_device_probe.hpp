// Runs reference/exp2_emulation.hpp's software_exp2 on the GPU (where its floor uses __fadd_rd),
// so tests can compare its bits with the host's.
#pragma once

#include <vector>

#include "core/error.hpp"

namespace fa4::bench {

Result<std::vector<float>> software_exp2_on_device(const std::vector<float>& inputs);

}  // namespace fa4::bench
