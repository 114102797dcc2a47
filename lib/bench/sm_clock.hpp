// The SM clock of device 0 as nvidia-smi reports it now, in MHz; 0 when nvidia-smi is missing or
// says nothing usable (the store records 0 as NULL: not read).
#pragma once

namespace fa4::bench {

double current_sm_clock_mhz();

}  // namespace fa4::bench
