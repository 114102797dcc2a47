// Hopper (sm_90a) building blocks of fa3 as thin inline-PTX wrappers: mbarriers, TMA tensor
// copies, named barriers, setmaxnreg, the wgmma fence/commit/wait and shared-memory matrix
// descriptors. Each follows the PTX ISA section it names; nothing here knows about attention.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda.h>  // CUtensorMap (a 64-byte opaque struct); no driver library is linked

#include <cstdint>

namespace fa4::kernels::hopper {

inline constexpr int kWarpSize = 32;
inline constexpr int kWarpgroupThreads = 128;  // wgmma is issued by 4 consecutive warps
inline constexpr int kWarpsPerWarpgroup = kWarpgroupThreads / kWarpSize;
inline constexpr int kSwizzleBytes = 128;       // CU_TENSOR_MAP_SWIZZLE_128B: one swizzled row
inline constexpr int kSwizzleAtomRows = 8;      // rows the 128-byte swizzle permutes together
inline constexpr int kSwizzleAtomBytes = kSwizzleBytes * kSwizzleAtomRows;  // 1024, tile alignment

__device__ __forceinline__ std::uint32_t smem_u32(const void* pointer) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(pointer));
}

// ---- mbarrier (PTX ISA "Parallel Synchronization and Communication Instructions: mbarrier") ----

__device__ __forceinline__ void mbarrier_init(std::uint32_t bar, std::uint32_t arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(arrivals) : "memory");
}
// Makes the initialized barriers visible to the async proxy (TMA) and to other threads.
__device__ __forceinline__ void fence_barrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
__device__ __forceinline__ void mbarrier_arrive(std::uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
// One arrival plus `bytes` of expected transaction count (the TMA copies complete the rest).
__device__ __forceinline__ void mbarrier_arrive_expect_tx(std::uint32_t bar, std::uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
               : "memory");
}
// Spins until the phase of parity `parity` has completed. A fresh barrier is in phase 0, so
// waiting for parity 1 returns at once (the convention producers use for "slot initially empty").
__device__ __forceinline__ void mbarrier_wait(std::uint32_t bar, std::uint32_t parity) {
  std::uint32_t done = 0;
  do {
    asm volatile(
        "{\n.reg .pred p;\n"
        "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  } while (!done);
}

// ---- TMA (cp.async.bulk.tensor, tensor maps made on the host with cuTensorMapEncodeTiled) ----

__device__ __forceinline__ void prefetch_tensor_map(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<std::uint64_t>(map))
               : "memory");
}
// Copies the box at element coordinates (c0, c1, c2) of a 3-D tensor map into shared memory at
// `dst`; completion is reported to mbarrier `bar` as transaction bytes. Out-of-bounds elements
// are zero-filled (and still counted).
__device__ __forceinline__ void tma_load_3d(std::uint32_t dst, const CUtensorMap* map,
                                            std::uint32_t bar, int c0, int c1, int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4}], [%5];\n" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(bar)
      : "memory");
}

// Copies the box at (c0, c1) of a 2-D tensor map into shared memory at `dst` (128-byte
// aligned); completion is reported to mbarrier `bar` as transaction bytes. For small float32 rows
// read by threads (fa3_bwd's LSE and D): compute-sanitizer's racecheck pairs a raw cp.async.bulk
// write with the issuing thread and, not modelling the mbarrier wait, reports every later read of
// the stage as a hazard; a tensor copy is the TMA unit's, as the 3-D loads are.
__device__ __forceinline__ void tma_load_2d(std::uint32_t dst, const CUtensorMap* map,
                                            std::uint32_t bar, int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c0), "r"(c1), "r"(bar)
      : "memory");
}

// Stores the box at (c0, c1, c2) of a 3-D tensor map from shared memory at `src` (same layout
// as a load with the map's swizzle); rows outside the tensor are not written. Bulk-group
// completion: commit, then wait_group.read before `src` may be overwritten.
__device__ __forceinline__ void tma_store_3d(const CUtensorMap* map, std::uint32_t src, int c0,
                                             int c1, int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];\n" ::"l"(
          reinterpret_cast<std::uint64_t>(map)),
      "r"(src), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}
__device__ __forceinline__ void tma_store_commit() {
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}
// Waits until the shared-memory sources of every committed bulk store have been read.
__device__ __forceinline__ void tma_store_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
}
// Waits until every committed bulk store has completed (its writes are performed).
__device__ __forceinline__ void tma_store_wait_all() {
  asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory");
}
// Adds the box at `src` (laid out as the 4-D map's box, dimension 0 fastest) into the tensor at
// {c0, c1, c2, c3} element by element (cp.reduce.async.bulk.tensor .add); bulk-group completion
// as tma_store_3d.
__device__ __forceinline__ void tma_reduce_add_4d(const CUtensorMap* map, std::uint32_t src,
                                                  int c0, int c1, int c2, int c3) {
  asm volatile(
      "cp.reduce.async.bulk.tensor.4d.global.shared::cta.add.tile.bulk_group"
      " [%0, {%2, %3, %4, %5}], [%1];\n" ::"l"(reinterpret_cast<std::uint64_t>(map)),
      "r"(src), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
      : "memory");
}
// Makes this thread's generic-proxy shared-memory writes visible to the async proxy (TMA).
__device__ __forceinline__ void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
__device__ __forceinline__ void st_shared_u32(std::uint32_t address, std::uint32_t value) {
  asm volatile("st.shared.u32 [%0], %1;\n" ::"r"(address), "r"(value) : "memory");
}
__device__ __forceinline__ std::uint32_t ld_shared_u32(std::uint32_t address) {
  std::uint32_t value;
  asm volatile("ld.shared.u32 %0, [%1];\n" : "=r"(value) : "r"(address) : "memory");
  return value;
}

// Stores four 8x8 16-bit matrices transposed (stmatrix .trans): register i of each lane holds
// the pair (row lane / 4, columns 2 (lane % 4) +0/1) of matrix i, as an mma accumulator fragment,
// and lands in shared memory as column lane / 4, rows 2 (lane % 4) +0/1; lane l gives the
// address of row l % 8 of matrix l / 8 (16 contiguous bytes).
__device__ __forceinline__ void stmatrix_x4_trans(std::uint32_t address, std::uint32_t r0,
                                                  std::uint32_t r1, std::uint32_t r2,
                                                  std::uint32_t r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(
                   address),
               "r"(r0), "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}

// ---- named barriers (bar.sync / bar.arrive with an id and a thread count) ----

__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void named_barrier_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// ---- setmaxnreg: move registers between warpgroups (needs a register cap at kernel entry) ----

template <int Registers>
__device__ __forceinline__ void warpgroup_release_registers() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(Registers));
#endif
}
template <int Registers>
__device__ __forceinline__ void warpgroup_claim_registers() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(Registers));
#endif
}

// ---- wgmma ordering ----

__device__ __forceinline__ void wgmma_fence() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void wgmma_commit() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}
template <int Pending>
__device__ __forceinline__ void wgmma_wait() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(Pending) : "memory");
#endif
}
// Pins accumulator registers at this point: the compiler may not move their reads or writes
// across it (the wgmma that writes them runs asynchronously, between issue and wait).
template <int N>
__device__ __forceinline__ void fence_operands(float (&r)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(r[i])::"memory");
}
template <int N>
__device__ __forceinline__ void fence_operands(std::uint32_t (&r)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+r"(r[i])::"memory");
}

// ---- shared-memory matrix descriptors (PTX ISA "Matrix Descriptor Format", 128-byte swizzle) ----
// Bits 0-13 start address >> 4; 16-29 leading-dimension byte offset >> 4; 32-45 stride-dimension
// byte offset >> 4; 49-51 base offset (0: tiles start 1024-byte aligned); 62-63 swizzle mode
// (1 = 128 B). Both tile kinds below are stored as column blocks of 64 16-bit elements (one
// 128-byte swizzled row per tile row), block after block, exactly as TMA writes a box of
// {64, rows} with CU_TENSOR_MAP_SWIZZLE_128B.
inline constexpr std::uint64_t kDescriptorSwizzle128 = std::uint64_t{1} << 62;

__device__ __forceinline__ std::uint64_t descriptor_field(std::uint32_t bytes) {
  return std::uint64_t((bytes >> 4) & 0x3fff);
}
// K-major operand (Q or K for S = Q K^T): rows are M/N, the 128-byte row holds 64 k values.
// Groups of 8 rows lie 1024 bytes apart (stride offset); the leading offset is unused when one
// wgmma's k extent (16 elements, 32 bytes) stays inside the swizzled row (1 by convention).
// Advance k by 16 elements: +32 bytes on the start address.
__device__ __forceinline__ std::uint64_t kmajor_descriptor(std::uint32_t address) {
  return descriptor_field(address) | (std::uint64_t{1} << 16) |
         (descriptor_field(kSwizzleAtomBytes) << 32) | kDescriptorSwizzle128;
}
// MN-major operand (V for O += P V, B transposed): rows are k (keys), the 128-byte row holds 64
// n values (head dims). Leading offset: bytes between 64-column blocks of n; stride offset: bytes
// between groups of 8 k rows (1024). Advance k by 16 keys: +2048 bytes.
__device__ __forceinline__ std::uint64_t mnmajor_descriptor(std::uint32_t address,
                                                            std::uint32_t column_block_bytes) {
  return descriptor_field(address) | (descriptor_field(column_block_bytes) << 16) |
         (descriptor_field(kSwizzleAtomBytes) << 32) | kDescriptorSwizzle128;
}

}  // namespace fa4::kernels::hopper
