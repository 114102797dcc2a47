#include "hw/spec.hpp"

namespace fa4::hw {

std::string_view to_string(Architecture architecture) {
  switch (architecture) {
    case Architecture::ampere:
      return "ampere";
    case Architecture::hopper:
      return "hopper";
    case Architecture::blackwell:
      return "blackwell";
    case Architecture::blackwell_ultra:
      return "blackwell-ultra";
  }
  return "?";
}

std::optional<Architecture> parse_architecture(std::string_view text) {
  for (Architecture architecture : kAllArchitectures)
    if (to_string(architecture) == text) return architecture;
  return std::nullopt;
}

double Spec::mma_flop_per_clk(Dtype dtype) const {
  switch (dtype) {
    case Dtype::bf16:
      return per_sm.mma_flop_per_clk_bf16;
    case Dtype::fp16:
      return per_sm.mma_flop_per_clk_fp16;
    case Dtype::fp8:
      return per_sm.mma_flop_per_clk_fp8;
  }
  return 0;
}

double Spec::peak_flops(Dtype dtype) const {
  return mma_flop_per_clk(dtype) * sms * peak_clock_mhz * 1e6;
}

double Spec::boost_peak_tflops(Dtype dtype) const {
  return peak_flops(dtype) * boost_clock_mhz / peak_clock_mhz / 1e12;
}

bool rate_above_peak(const Spec& gpu, Dtype dtype, double tflops) {
  return tflops > gpu.boost_peak_tflops(dtype) * (1 + kRateAbovePeakMargin);
}

}  // namespace fa4::hw
