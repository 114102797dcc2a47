#include "bench/sm_clock.hpp"

#include <cstdio>
#include <cstdlib>

namespace fa4::bench {

double current_sm_clock_mhz() {
  FILE* pipe = popen("nvidia-smi --query-gpu=clocks.sm --format=csv,noheader,nounits -i 0 "
                     "2>/dev/null", "r");
  if (!pipe) return 0;
  char line[64] = {};
  const bool read = std::fgets(line, sizeof line, pipe) != nullptr;
  pclose(pipe);
  return read ? std::strtod(line, nullptr) : 0;
}

}  // namespace fa4::bench
