// FA4's software exp2 (FA4 paper §3.1.3; repo flash_attn/cute/utils.py), one definition for the
// CPU reference and the CUDA kernels, so both run the same float operations in the same order:
//
//   2^x = 2^floor(x) * 2^frac(x)
//   1. clamp x >= -127 (2^-127 and below contribute nothing next to a row maximum of 2^0);
//   2. floor: add 1.5 * 2^23 rounding toward minus infinity. At that magnitude a float's step is
//      exactly 1, so the sum is 1.5 * 2^23 + floor(x), whose low mantissa bits hold floor(x);
//      subtracting 1.5 * 2^23 back is exact;
//   3. frac = x - floor(x) in [0, 1); 2^frac by a degree-3 minimax polynomial (Horner, FMA);
//   4. scale by 2^floor(x) with one integer add of floor(x) << 23 to the polynomial's bits (the
//      exponent field). Shifting the whole magic sum left by 23 leaves only floor(x) << 23 mod
//      2^32, because the magic constant's low 22 bits are zero.
//
// Valid results for x in [-126, 128): below -126 the exponent field underflows to 0, so
// x in [-127, -126) gives a wrong but tiny value (< 2^-126) and x <= -127 gives +0. Max relative
// error over [-126, 128) is 8.8e-5 (paper), checked densely in tests/reference.
//
// The only step whose spelling differs between host and device is the round-down add: the GPU has
// __fadd_rd; the host computes the round-to-nearest sum and its exact error (TwoSum, valid under
// IEEE round-to-nearest without contraction, which -std=c++20 gives) and steps one float down
// when the exact sum lies below the rounded one. Both give the correctly rounded-down sum.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define FA4_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define FA4_HOST_DEVICE inline
#endif

namespace fa4::exp2_emulation {

inline constexpr float kMinExponent = -127.0f;
inline constexpr float kRoundingMagic = 12582912.0f;  // 0x4B400000 = 1.5 * 2^23
inline constexpr int kMantissaBits = 23;
// 2^f on [0, 1): minimax for relative error (Sollya), from the FA4 repository.
inline constexpr float kPoly0 = 1.0f;
inline constexpr float kPoly1 = 0.695146143436431884765625f;
inline constexpr float kPoly2 = 0.227564394474029541015625f;
inline constexpr float kPoly3 = 0.077119089663028717041015625f;

FA4_HOST_DEVICE std::uint32_t float_bits(float value) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(value);
#else
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
#endif
}

FA4_HOST_DEVICE float bits_float(std::uint32_t bits) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(bits);
#else
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
#endif
}

// a + b rounded toward minus infinity.
FA4_HOST_DEVICE float add_round_down(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rd(a, b);
#else
  const float sum = a + b;
  const float b_part = sum - a;
  const float a_part = sum - b_part;
  const float exact_error = (a - a_part) + (b - b_part);  // a + b == sum + exact_error exactly
  return exact_error < 0.0f ? std::nextafter(sum, -INFINITY) : sum;
#endif
}

FA4_HOST_DEVICE float software_exp2(float x) {
  x = fmaxf(x, kMinExponent);
  const float magic_plus_floor = add_round_down(x, kRoundingMagic);
  const float floor_x = magic_plus_floor - kRoundingMagic;
  const float frac = x - floor_x;
  float poly = fmaf(kPoly3, frac, kPoly2);
  poly = fmaf(poly, frac, kPoly1);
  poly = fmaf(poly, frac, kPoly0);
  return bits_float(float_bits(poly) + (float_bits(magic_plus_floor) << kMantissaBits));
}

}  // namespace fa4::exp2_emulation
