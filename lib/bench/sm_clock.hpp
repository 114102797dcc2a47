// What the driver says about device 0 while we measure: its SM clock now (nvidia-smi), the
// driver's version and the CUDA versions, recorded with every bench and ceilings run.
#pragma once

#include <string>

namespace fa4::bench {

// In MHz; 0 when nvidia-smi is missing or says nothing usable (the store records 0 as NULL).
double current_sm_clock_mhz();

// "580.159.04" from nvidia-smi; empty when it cannot be read.
std::string driver_version();

// "runtime 13.0, driver 13.0": the CUDA runtime linked in and the newest the driver supports.
std::string cuda_versions();

}  // namespace fa4::bench
