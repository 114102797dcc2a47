// FA4's software exp2 on the FMA pipe (FA4 paper section 3.1.3), the device spelling used by the
// fa4 kernel's softmax and by the bit-exactness probe (tests/kernels/exp2_device_probe.cu), which
// checks it bit for bit against the CPU reference lib/reference/exp2_emulation.hpp:
//   clamp x >= -127; floor by adding 1.5 * 2^23 (0x4B400000) rounded toward minus infinity and
//   subtracting it back; frac = x - floor; 2^frac by a degree-3 Horner polynomial with FMA;
//   scale by 2^floor with an integer add of floor << 23 to the polynomial's bits.
// About 8 FP32/ALU instructions instead of one MUFU ex2; the constants are the reference's.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "reference/exp2_emulation.hpp"

namespace fa4::kernels {

__device__ __forceinline__ float software_exp2(float x) {
  namespace ref = fa4::exp2_emulation;
  x = fmaxf(x, ref::kMinExponent);
  const float magic_plus_floor = __fadd_rd(x, ref::kRoundingMagic);
  const float floor_x = __fsub_rn(magic_plus_floor, ref::kRoundingMagic);
  const float frac = __fsub_rn(x, floor_x);
  float poly = __fmaf_rn(ref::kPoly3, frac, ref::kPoly2);
  poly = __fmaf_rn(poly, frac, ref::kPoly1);
  poly = __fmaf_rn(poly, frac, ref::kPoly0);
  return __uint_as_float(__float_as_uint(poly) +
                         (__float_as_uint(magic_plus_floor) << ref::kMantissaBits));
}

}  // namespace fa4::kernels
