// Warp-level building blocks of the sm80-style kernels (mma.sync, ldmatrix, cp.async), as thin
// inline-PTX wrappers. Register fragment layouts follow the PTX ISA, "Matrix fragments for
// mma.m16n8k16": with g = lane / 4 and t = lane % 4,
//   A (16x16, row-major): a0 = (g, 2t..2t+1), a1 = (g+8, 2t..), a2 = (g, 2t+8..), a3 = (g+8,
//   2t+8..) B (16x8, "col"):      b0 = (k 2t..2t+1, n g), b1 = (k 2t+8..2t+9, n g) C (16x8, fp32):
//   c0,c1 = (g, 2t..2t+1), c2,c3 = (g+8, 2t..2t+1)
// so an S accumulator pair (n-tiles 2j, 2j+1) packs directly into the A operand of P.V.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

namespace fa4::kernels::sm80 {

inline constexpr int kWarpSize = 32;
inline constexpr int kBytesPerCopy = 16;  // one cp.async / one ldmatrix row: 8 16-bit elements
inline constexpr int kElementsPerCopy = 8;
inline constexpr int kMmaM = 16, kMmaN = 8, kMmaK = 16;  // mma.sync m16n8k16
// Shared-memory rows are 16-byte chunks XOR-swizzled by (row % kSwizzleRows): the rows whose
// chunks are permuted against each other.
inline constexpr int kSwizzleRows = 8;
inline constexpr int kMaxSharedBytesPerBlock = 227 * 1024;  // sm80/sm90 opt-in limit

__device__ __forceinline__ std::uint32_t shared_address(const void* pointer) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(pointer));
}

// 16-byte global -> shared copy that bypasses L1; bytes past `source_bytes` are zero-filled (0:
// all zeros, for rows past the end of a sequence).
__device__ __forceinline__ void cp_async_16(std::uint32_t destination, const void* source,
                                            int source_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(destination), "l"(source),
               "r"(source_bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int PendingGroups>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(PendingGroups));
}

// Four 8x8 16-bit matrices; lanes 8i..8i+7 give the row addresses of matrix i.
__device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&r)[4], std::uint32_t address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}
__device__ __forceinline__ void ldmatrix_x4_trans(std::uint32_t (&r)[4], std::uint32_t address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}

// c += a * b, m16n8k16, 16-bit inputs, fp32 accumulators.
template <typename Element>
__device__ __forceinline__ void mma_m16n8k16(float (&c)[4], const std::uint32_t (&a)[4],
                                             std::uint32_t b0, std::uint32_t b1) {
  if constexpr (std::is_same_v<Element, __nv_bfloat16>) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    static_assert(std::is_same_v<Element, __half>, "mma_m16n8k16: bf16 or fp16 inputs");
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
}

}  // namespace fa4::kernels::sm80
