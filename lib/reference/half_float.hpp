// bf16 and fp16 <-> float conversions with round-to-nearest-even, bit-exact with the CUDA
// intrinsics __float2bfloat16_rn / __float2half_rn for finite inputs. Host only, header only: the
// references and tests keep their inputs as float arrays holding values already rounded to the
// storage type, and move them to the GPU as raw 16-bit patterns.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <vector>

#include "core/shape.hpp"
#include "reference/parallel_chunks.hpp"

namespace fa4::reference {

inline std::uint32_t bits_of(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

inline float float_of(std::uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

inline std::uint16_t float_to_bf16_bits(float value) {
  std::uint32_t bits = bits_of(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return std::uint16_t((bits >> 16) | 0x0040u);  // quiet NaN
  const std::uint32_t lsb = (bits >> 16) & 1u;
  bits += 0x7fffu + lsb;  // round to nearest, ties to even
  return std::uint16_t(bits >> 16);
}

inline float bf16_bits_to_float(std::uint16_t bits) { return float_of(std::uint32_t(bits) << 16); }

inline std::uint16_t float_to_fp16_bits(float value) {
  constexpr std::uint32_t kFloatExponentBias = 127, kHalfExponentBias = 15;
  constexpr std::uint32_t kRebias = (kFloatExponentBias - kHalfExponentBias) << 23;
  constexpr std::uint32_t kSmallestNormalHalf = 0x38800000u;  // 2^-14 as a float
  constexpr std::uint32_t kOverflowHalf = 0x477ff000u;        // 65520: rounds (to even) to inf
  constexpr float kHalfSubnormalsPerUnit = 16777216.0f;  // 2^24: fp16's subnormal step is 2^-24
  const std::uint32_t bits = bits_of(value);
  const std::uint16_t sign = std::uint16_t((bits >> 16) & 0x8000u);
  const std::uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return sign | 0x7e00u;  // quiet NaN
  if (magnitude >= kOverflowHalf) return sign | 0x7c00u;
  if (magnitude < kSmallestNormalHalf) {
    // Subnormal half: count steps of 2^-24 (the scaling by 2^24 is exact), rounded to even.
    const float steps = std::nearbyint(float_of(magnitude) * kHalfSubnormalsPerUnit);
    return sign | std::uint16_t(steps);
  }
  const std::uint32_t lsb = (magnitude >> 13) & 1u;
  return sign | std::uint16_t((magnitude + 0xfffu + lsb - kRebias) >> 13);
}

inline float fp16_bits_to_float(std::uint16_t bits) {
  const std::uint32_t sign = std::uint32_t(bits & 0x8000u) << 16;
  const std::uint32_t exponent = (bits >> 10) & 0x1fu;
  const std::uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0) {
    const float magnitude = std::ldexp(float(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 31) return float_of(sign | 0x7f800000u | (mantissa << 13));
  return float_of(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

inline void require_16_bit(Dtype dtype) {
  if (dtype != Dtype::bf16 && dtype != Dtype::fp16)
    throw std::invalid_argument("the references handle bf16 and fp16 inputs only");
}

inline std::uint16_t to_bits(float value, Dtype dtype) {
  require_16_bit(dtype);
  return dtype == Dtype::bf16 ? float_to_bf16_bits(value) : float_to_fp16_bits(value);
}

inline float from_bits(std::uint16_t bits, Dtype dtype) {
  require_16_bit(dtype);
  return dtype == Dtype::bf16 ? bf16_bits_to_float(bits) : fp16_bits_to_float(bits);
}

inline float round_to(float value, Dtype dtype) { return from_bits(to_bits(value, dtype), dtype); }

inline std::vector<std::uint16_t> to_bits(std::span<const float> values, Dtype dtype) {
  std::vector<std::uint16_t> out(values.size());
  for_each_chunk(std::int64_t(values.size()), [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i)
      out[std::size_t(i)] = to_bits(values[std::size_t(i)], dtype);
  });
  return out;
}

inline std::vector<float> from_bits(std::span<const std::uint16_t> bits, Dtype dtype) {
  std::vector<float> out(bits.size());
  for (std::size_t i = 0; i < bits.size(); ++i) out[i] = from_bits(bits[i], dtype);
  return out;
}

}  // namespace fa4::reference
