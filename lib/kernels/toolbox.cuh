// What every attention kernel file repeats, written once: the log constants of the exp2-based
// softmax, the device helpers that round P to 16 bits and take MUFU's exp2, and the host checks
// and workspace size the registry entries of naive, fa2, fa3, fa4 and the backward kernels share.
// Included by .cu files (and the kernels' .cuh headers) only.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "core/shape.hpp"
#include "kernels/registry.hpp"

namespace fa4::kernels {

// The softmax runs in base 2 (exp2 is one MUFU instruction): scores are scaled by log2(e) with the
// softmax scale folded in, and LSE goes back to the natural log by ln(2).
inline constexpr float kLog2e = 1.4426950408889634f;
inline constexpr float kLn2 = 0.6931471805599453f;

// Two fp32 values rounded to nearest into one register of two 16-bit values, `low` in the lower
// half (the lower column of a fragment pair).
template <typename Element>
__device__ __forceinline__ std::uint32_t pack_pair(float low, float high) {
  if constexpr (std::is_same_v<Element, __nv_bfloat16>) {
    const __nv_bfloat162 pair = __floats2bfloat162_rn(low, high);
    return *reinterpret_cast<const std::uint32_t*>(&pair);
  } else {
    static_assert(std::is_same_v<Element, __half>, "pack_pair: bf16 or fp16");
    const __half2 pair = __floats2half2_rn(low, high);
    return *reinterpret_cast<const std::uint32_t*>(&pair);
  }
}

// MUFU ex2: 2^x with about 2 ulp of error; ex2(-inf) = +0.
__device__ __forceinline__ float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

// ---- host: the registry entries' shared checks ----

// Why `kernel` cannot compute `shape.dtype`: the kernels compute bf16 and fp16 only.
inline std::optional<std::string> unsupported_dtype(std::string_view kernel,
                                                    const AttnShape& shape) {
  if (shape.dtype != Dtype::bf16 && shape.dtype != Dtype::fp16)
    return std::string(kernel) + " computes bf16 and fp16 only, not " +
           std::string(to_string(shape.dtype));
  return std::nullopt;
}

// The checks of the tiled kernels (fa2, fa3 and fa4 on fa3's pipeline, and the backward fa2_bwd
// and fa3_bwd, whose tiles cover the same shapes): a 16-bit dtype, equal Q/K and V head dims, a
// head dim with tiles (64, 128, 256), and sequence lengths that 32-bit row indices reach with
// headroom.
inline std::optional<std::string> unsupported_tiled_shape(std::string_view kernel,
                                                          const AttnShape& shape) {
  constexpr std::int64_t kMaxSeqlen = std::int64_t{1} << 30;
  if (auto reason = unsupported_dtype(kernel, shape)) return reason;
  const std::string name(kernel);
  if (shape.headdim != shape.headdim_v)
    return name + " needs headdim == headdim_v (got " + std::to_string(shape.headdim) + " and " +
           std::to_string(shape.headdim_v) + ")";
  if (shape.headdim != 64 && shape.headdim != 128 && shape.headdim != 256)
    return name + " has tiles for head dims 64, 128 and 256, not " + std::to_string(shape.headdim);
  if (shape.seqlen_q > kMaxSeqlen || shape.seqlen_k > kMaxSeqlen)
    return name + " indexes rows with 32-bit integers: seqlen at most 2^30";
  return std::nullopt;
}

// The workspace of a kernel that needs none.
inline std::size_t no_workspace(const AttnShape&, const DeviceCaps&) { return 0; }

}  // namespace fa4::kernels
