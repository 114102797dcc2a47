#include "hw/spec.hpp"

namespace fa4::hw {

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

}  // namespace fa4::hw
