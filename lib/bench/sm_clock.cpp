#include "bench/sm_clock.hpp"

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

namespace fa4::bench {
namespace {

// The first line nvidia-smi prints for `query` on device 0, without its newline; "" on failure.
std::string nvidia_smi(const char* query) {
  const std::string command =
      fmt::format("nvidia-smi --query-gpu={} --format=csv,noheader,nounits -i 0 2>/dev/null", query);
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return "";
  char line[128] = {};
  const bool read = std::fgets(line, sizeof line, pipe) != nullptr;
  const int status = pclose(pipe);
  if (!read || status != 0) return "";
  std::string text(line);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

std::string version_text(int version) {  // 13000 -> "13.0"
  return fmt::format("{}.{}", version / 1000, version % 1000 / 10);
}

}  // namespace

double current_sm_clock_mhz() {
  const std::string text = nvidia_smi("clocks.sm");
  return text.empty() ? 0 : std::strtod(text.c_str(), nullptr);
}

std::string driver_version() { return nvidia_smi("driver_version"); }

std::string cuda_versions() {
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  return fmt::format("runtime {}, driver {}", version_text(runtime), version_text(driver));
}

}  // namespace fa4::bench
