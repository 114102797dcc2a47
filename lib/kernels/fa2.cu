// fa2: FlashAttention-2 forward (Dao, arXiv 2307.08691) on sm80-style tensor-core instructions.
//
// Algorithm. One thread block per (query tile of kBlockM rows, head, batch). Q's tile stays in
// shared memory; K and V tiles of kBlockN keys stream through shared memory from the last visible
// key block down to the first (so causal masking happens in the first iterations). Each warp owns
// kBlockM / kWarps query rows:
//   S = Q K_j^T                      mma.sync m16n8k16, Q and K from shared memory via ldmatrix
//   m' = max(m, rowmax S)            in registers, 4-lane shuffles
//   P = 2^(S * scale*log2e - m'*scale*log2e)   one FFMA + one MUFU ex2 per score
//   l = l * 2^(m - m') + rowsum P;   O = O * 2^(m - m') + P V_j   (P from registers, V by
//                                    ldmatrix.trans)
// and at the end O /= l, LSE = (m * scale * log2e + log2 l) * ln 2 (natural log, float32).
// Memory pipeline (cp.async, FA2's own): V_j is copied while S = Q K_j^T runs; K_{j-1} is copied
// while the softmax and P V_j run. K and V each have one buffer; two barriers per key block.
//
// Over naive: S and P never reach HBM (each is a register tile), one kernel instead of three, and
// K/V are read from HBM once per query tile instead of S and P being written and read back.
//
// Work: FLOPs = 4 * b * h_q * sq * sk * d (halved when causal, core/shape.hpp's convention).
// HBM bytes: Q and O once (2 * b*h_q*sq*d*2), LSE b*h_q*sq*4, K and V read by every query tile
// of every query head: 2 * b*h_q*ceil(sq/kBlockM)*sk*d*2 from L2, of which HBM sees about one
// pass per kv head when the tiles of one head run together (grid x = query tiles, fastest).
// At hd128, sq = sk = 4096, b4 h16: 550 GFLOP against 268 MB minimum: compute-bound by ~3 orders.
//
// Tiles (bf16/fp16; registers and spills: the compiler's report in NOTES.md):
//   hd64:  kBlockM 128, kBlockN  64, 4 warps (32 rows each), smem Q 16 KiB + K 8 + V 8 = 32 KiB
//          (FA2 uses kBlockN 128; here that spilled 112 bytes per thread)
//   hd128: kBlockM 128, kBlockN  64, 4 warps (32 rows each), smem 32 + 16 + 16 = 64 KiB
//   hd256: kBlockM 128, kBlockN  64, 8 warps (16 rows each), smem 64 + 32 + 32 = 128 KiB
// Shared-memory rows are 16-byte chunks XOR-swizzled by (row % 8), so the 8 row addresses of each
// ldmatrix and each cp.async phase hit 8 different 16-byte bank groups.
//
// Benchmark: build-gpu/tests/kernels/kernel_timing --kernels fa2 --headdim 128
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "kernels/cuda_status.hpp"
#include "kernels/registry.hpp"
#include "kernels/sm80_primitives.cuh"
#include "kernels/toolbox.cuh"

namespace fa4::kernels {
namespace {

using namespace sm80;

template <int HeadDim, int BlockM, int BlockN, int Warps, int MinBlocksPerSm, typename ElementT>
struct Fa2Traits {
  using Element = ElementT;
  static constexpr int kHeadDim = HeadDim;
  static constexpr int kBlockM = BlockM;
  static constexpr int kBlockN = BlockN;
  static constexpr int kWarps = Warps;
  static constexpr int kThreads = Warps * kWarpSize;
  static constexpr int kMinBlocksPerSm = MinBlocksPerSm;  // register budget: 64K / (threads*this)

  static constexpr int kRowsPerWarp = kBlockM / kWarps;
  static constexpr int kMTiles = kRowsPerWarp / kMmaM;  // m16 tiles per warp
  static constexpr int kSTiles = kBlockN / kMmaN;       // n8 tiles of a warp's S strip
  static constexpr int kOTiles = kHeadDim / kMmaN;      // n8 tiles of a warp's O strip
  static constexpr int kQkSteps = kHeadDim / kMmaK;     // k16 steps of S = Q K^T
  static constexpr int kPvSteps = kBlockN / kMmaK;      // k16 steps of O += P V
  static constexpr int kChunksPerRow = kHeadDim / kElementsPerCopy;
  static constexpr int kRowBytes = kHeadDim * int(sizeof(Element));

  static constexpr int kQElements = kBlockM * kHeadDim;
  static constexpr int kKvElements = kBlockN * kHeadDim;
  static constexpr int kSharedBytes = (kQElements + 2 * kKvElements) * int(sizeof(Element));

  static_assert(kRowsPerWarp % kMmaM == 0, "each warp owns whole m16 tiles");
  static_assert(kBlockN % kMmaK == 0, "P V steps over whole k16 slices of the key block");
  static_assert(kSTiles % 2 == 0 && kOTiles % 2 == 0, "ldmatrix.x4 loads n8 tiles in pairs");
  static_assert(kChunksPerRow % kSwizzleRows == 0, "the XOR swizzle permutes 8 chunks in a row");
  static_assert(kSharedBytes <= kMaxSharedBytesPerBlock, "tiles exceed shared memory");
};

struct Fa2Params {
  const void* q;
  const void* k;
  const void* v;
  void* o;
  float* lse;
  int seqlen_q;
  int seqlen_k;
  int heads_q;
  int heads_kv;
  int heads_per_kv_head;
  bool causal;
  float scale_log2;  // softmax scale * log2(e)
};

// Byte offset of 16-byte chunk `chunk` of row `row` in a swizzled tile.
template <class T>
__device__ __forceinline__ std::uint32_t swizzled_byte_offset(int row, int chunk) {
  return std::uint32_t(row * T::kHeadDim + (chunk ^ (row % kSwizzleRows)) * kElementsPerCopy) *
         std::uint32_t(sizeof(typename T::Element));
}

// Per-lane ldmatrix addresses into a swizzled tile, for the chunk pair (2 * step + half) of row
// (row + extra_rows). The XOR swizzle touches only the low 3 bits of the chunk index, and
// extra_rows is a multiple of 8, so four bases (one per step % 4) plus compile-time offsets cover
// every step: 4 registers per operand instead of one address per (step, tile) pair, which the
// compiler would otherwise hoist out of the key loop and spill.
template <class T>
struct LaneAddresses {
  static constexpr int kSwizzleSpanBytes = kSwizzleRows * kBytesPerCopy;  // 8 chunks
  static constexpr int kBases = kSwizzleRows / 2;                         // chunk pairs per span
  std::uint32_t base[kBases];

  __device__ __forceinline__ LaneAddresses(std::uint32_t tile, int row, int half) {
#pragma unroll
    for (int i = 0; i < kBases; ++i)
      base[i] = tile + std::uint32_t(row * T::kRowBytes +
                                     (((2 * i + half) ^ (row % kSwizzleRows)) * kBytesPerCopy));
  }
  __device__ __forceinline__ std::uint32_t at(int step, int extra_rows) const {
    return base[step % kBases] +
           std::uint32_t((step / kBases) * kSwizzleSpanBytes + extra_rows * T::kRowBytes);
  }
};

// Copies `Rows` rows of kHeadDim elements (row stride kHeadDim) into a swizzled tile; rows at or
// past `valid_rows` are zero-filled, so no garbage (possibly NaN) meets a zero probability.
// kThreads is a multiple of the chunks per row and each pass covers a multiple of 8 rows, so a
// thread's copies share one chunk and one swizzle phase: addresses are a base plus i * stride.
template <class T, int Rows>
__device__ __forceinline__ void copy_tile_async(std::uint32_t tile, const typename T::Element* rows,
                                                int valid_rows) {
  constexpr int kRowsPerPass = T::kThreads / T::kChunksPerRow;
  constexpr int kPasses = Rows / kRowsPerPass;
  static_assert(T::kThreads % T::kChunksPerRow == 0 && kRowsPerPass % kSwizzleRows == 0 &&
                    Rows % kRowsPerPass == 0,
                "tile copies: whole rows per pass, swizzle phase fixed per thread");
  const int row = int(threadIdx.x) / T::kChunksPerRow;
  const int chunk = int(threadIdx.x) % T::kChunksPerRow;
  const std::uint32_t destination = tile + swizzled_byte_offset<T>(row, chunk);
  const typename T::Element* source = rows + row * T::kHeadDim + chunk * kElementsPerCopy;
#pragma unroll
  for (int i = 0; i < kPasses; ++i) {
    const bool valid = row + i * kRowsPerPass < valid_rows;
    cp_async_16(destination + std::uint32_t(i * kRowsPerPass * T::kRowBytes),
                valid ? source + i * kRowsPerPass * T::kHeadDim : rows, valid ? kBytesPerCopy : 0);
  }
}

// S (this warp's rows x kBlockN) = Q K^T, both operands from shared memory.
template <class T>
__device__ __forceinline__ void gemm_qk(float (&s)[T::kMTiles][T::kSTiles][4], std::uint32_t q_tile,
                                        std::uint32_t k_tile, int warp_row0, int lane) {
  using Element = typename T::Element;
#pragma unroll
  for (int mt = 0; mt < T::kMTiles; ++mt)
#pragma unroll
    for (int nt = 0; nt < T::kSTiles; ++nt)
#pragma unroll
      for (int i = 0; i < 4; ++i) s[mt][nt][i] = 0.0f;
  // ldmatrix lane roles: A (Q) matrices are (rows 0-7 | 8-15) x (k 0-7 | 8-15), lanes 0-15 the
  // rows of the k 0-7 half; B (K) matrices are (keys 0-7, k 0-7), (keys 0-7, k 8-15), (keys 8-15,
  // k 0-7), (keys 8-15, k 8-15): b0/b1 of n-tile 2p, then of n-tile 2p+1.
  const LaneAddresses<T> q_lane(q_tile, warp_row0 + lane % 16, lane / 16);
  const LaneAddresses<T> k_lane(k_tile, lane % 8 + lane / 16 * 8, lane / 8 % 2);
#pragma unroll
  for (int ks = 0; ks < T::kQkSteps; ++ks) {
    std::uint32_t a[T::kMTiles][4];
#pragma unroll
    for (int mt = 0; mt < T::kMTiles; ++mt) ldmatrix_x4(a[mt], q_lane.at(ks, mt * kMmaM));
#pragma unroll
    for (int np = 0; np < T::kSTiles / 2; ++np) {
      std::uint32_t b[4];
      ldmatrix_x4(b, k_lane.at(ks, np * 2 * kMmaN));
#pragma unroll
      for (int mt = 0; mt < T::kMTiles; ++mt) {
        mma_m16n8k16<Element>(s[mt][2 * np], a[mt], b[0], b[1]);
        mma_m16n8k16<Element>(s[mt][2 * np + 1], a[mt], b[2], b[3]);
      }
    }
  }
}

// Scores of keys a row may not see (past seqlen_k, or past its causal limit) become -inf.
template <class T>
__device__ __forceinline__ void mask_scores(float (&s)[T::kMTiles][T::kSTiles][4], int first_key,
                                            int first_row, int lane, const Fa2Params& p) {
  const int causal_shift = p.seqlen_k - p.seqlen_q;  // row i sees keys <= i + causal_shift
#pragma unroll
  for (int mt = 0; mt < T::kMTiles; ++mt)
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = first_row + mt * kMmaM + half * 8 + lane / 4;
      const int key_end = p.causal ? min(p.seqlen_k, row + causal_shift + 1) : p.seqlen_k;
#pragma unroll
      for (int nt = 0; nt < T::kSTiles; ++nt)
#pragma unroll
        for (int c = 0; c < 2; ++c) {
          const int key = first_key + nt * kMmaN + 2 * (lane % 4) + c;
          if (key >= key_end) s[mt][nt][2 * half + c] = -std::numeric_limits<float>::infinity();
        }
    }
}

// Online softmax on this warp's S strip: S becomes unnormalized P, and O and the per-thread partial
// row sums move to the new running maximum. Each thread holds 2 rows per m-tile (g and g+8).
template <class T>
__device__ __forceinline__ void online_softmax(float (&s)[T::kMTiles][T::kSTiles][4],
                                               float (&row_max)[T::kMTiles][2],
                                               float (&row_sum)[T::kMTiles][2],
                                               float (&o)[T::kMTiles][T::kOTiles][4],
                                               float scale_log2) {
  constexpr float kMinusInfinity = -std::numeric_limits<float>::infinity();
#pragma unroll
  for (int mt = 0; mt < T::kMTiles; ++mt)
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      float block_max = kMinusInfinity;
#pragma unroll
      for (int nt = 0; nt < T::kSTiles; ++nt)
        block_max = fmaxf(block_max, fmaxf(s[mt][nt][2 * half], s[mt][nt][2 * half + 1]));
      block_max = fmaxf(block_max, __shfl_xor_sync(0xffffffffu, block_max, 1));
      block_max = fmaxf(block_max, __shfl_xor_sync(0xffffffffu, block_max, 2));
      const float new_max = fmaxf(row_max[mt][half], block_max);
      // While every key so far is masked the maximum is -inf; subtracting 0 keeps 2^-inf = 0.
      const float new_max_scaled = new_max == kMinusInfinity ? 0.0f : new_max * scale_log2;
      const float correction = fast_exp2(row_max[mt][half] * scale_log2 - new_max_scaled);
      row_max[mt][half] = new_max;
      float sum = row_sum[mt][half] * correction;
#pragma unroll
      for (int nt = 0; nt < T::kOTiles; ++nt) {
        o[mt][nt][2 * half] *= correction;
        o[mt][nt][2 * half + 1] *= correction;
      }
#pragma unroll
      for (int nt = 0; nt < T::kSTiles; ++nt)
#pragma unroll
        for (int c = 0; c < 2; ++c) {
          float& x = s[mt][nt][2 * half + c];
          x = fast_exp2(fmaf(x, scale_log2, -new_max_scaled));
          sum += x;
        }
      row_sum[mt][half] = sum;
    }
}

// O += P V: P (rounded to Element) from the S registers, V from shared memory via ldmatrix.trans.
template <class T>
__device__ __forceinline__ void gemm_pv(float (&o)[T::kMTiles][T::kOTiles][4],
                                        const float (&p)[T::kMTiles][T::kSTiles][4],
                                        std::uint32_t v_tile, int lane) {
  using Element = typename T::Element;
  // ldmatrix.trans lane roles: matrices (keys 0-7 | 8-15) x (dims 0-7 | 8-15), keys fastest:
  // b0/b1 of n-tile 2p, then of n-tile 2p+1.
  const LaneAddresses<T> v_lane(v_tile, lane % 8 + lane / 8 % 2 * 8, lane / 16);
#pragma unroll
  for (int ks = 0; ks < T::kPvSteps; ++ks) {
    std::uint32_t a[T::kMTiles][4];
#pragma unroll
    for (int mt = 0; mt < T::kMTiles; ++mt) {
      a[mt][0] = pack_pair<Element>(p[mt][2 * ks][0], p[mt][2 * ks][1]);
      a[mt][1] = pack_pair<Element>(p[mt][2 * ks][2], p[mt][2 * ks][3]);
      a[mt][2] = pack_pair<Element>(p[mt][2 * ks + 1][0], p[mt][2 * ks + 1][1]);
      a[mt][3] = pack_pair<Element>(p[mt][2 * ks + 1][2], p[mt][2 * ks + 1][3]);
    }
#pragma unroll
    for (int np = 0; np < T::kOTiles / 2; ++np) {
      std::uint32_t b[4];
      ldmatrix_x4_trans(b, v_lane.at(np, ks * kMmaK));
#pragma unroll
      for (int mt = 0; mt < T::kMTiles; ++mt) {
        mma_m16n8k16<Element>(o[mt][2 * np], a[mt], b[0], b[1]);
        mma_m16n8k16<Element>(o[mt][2 * np + 1], a[mt], b[2], b[3]);
      }
    }
  }
}

template <class T>
__global__ void __launch_bounds__(T::kThreads, T::kMinBlocksPerSm)
    fa2_forward_kernel(const Fa2Params p) {
  using Element = typename T::Element;
  extern __shared__ __align__(128) unsigned char shared[];
  const std::uint32_t q_tile = shared_address(shared);
  const std::uint32_t k_tile = q_tile + T::kQElements * sizeof(Element);
  const std::uint32_t v_tile = k_tile + T::kKvElements * sizeof(Element);

  const int m_block = int(gridDim.x - 1 - blockIdx.x);  // longest causal tiles start first
  const int head = int(blockIdx.y);
  const int batch = int(blockIdx.z);
  const int kv_head = head / p.heads_per_kv_head;
  const int lane = int(threadIdx.x) % kWarpSize;
  const int warp_row0 = int(threadIdx.x) / kWarpSize * T::kRowsPerWarp;
  const int m0 = m_block * T::kBlockM;

  const std::int64_t q_row0 = (std::int64_t(batch) * p.heads_q + head) * p.seqlen_q + m0;
  const std::int64_t kv_row0 = (std::int64_t(batch) * p.heads_kv + kv_head) * p.seqlen_k;
  const Element* q = static_cast<const Element*>(p.q) + q_row0 * T::kHeadDim;
  const Element* k = static_cast<const Element*>(p.k) + kv_row0 * T::kHeadDim;
  const Element* v = static_cast<const Element*>(p.v) + kv_row0 * T::kHeadDim;

  // Key blocks this tile needs: all, or up to the causal limit of its last row.
  const int causal_shift = p.seqlen_k - p.seqlen_q;
  int n_blocks = (p.seqlen_k + T::kBlockN - 1) / T::kBlockN;
  if (p.causal) {
    const int key_end = max(0, min(p.seqlen_k, m0 + T::kBlockM + causal_shift));
    n_blocks = min(n_blocks, (key_end + T::kBlockN - 1) / T::kBlockN);
  }

  float o[T::kMTiles][T::kOTiles][4];
  float row_max[T::kMTiles][2];
  float row_sum[T::kMTiles][2];
#pragma unroll
  for (int mt = 0; mt < T::kMTiles; ++mt) {
#pragma unroll
    for (int nt = 0; nt < T::kOTiles; ++nt)
#pragma unroll
      for (int i = 0; i < 4; ++i) o[mt][nt][i] = 0.0f;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      row_max[mt][half] = -std::numeric_limits<float>::infinity();
      row_sum[mt][half] = 0.0f;
    }
  }

  if (n_blocks > 0) {
    copy_tile_async<T, T::kBlockM>(q_tile, q, p.seqlen_q - m0);
    const int last_key0 = (n_blocks - 1) * T::kBlockN;
    copy_tile_async<T, T::kBlockN>(k_tile, k + std::int64_t(last_key0) * T::kHeadDim,
                                   p.seqlen_k - last_key0);
    cp_async_commit();
  }
  for (int n_block = n_blocks - 1; n_block >= 0; --n_block) {
    const int key0 = n_block * T::kBlockN;
    cp_async_wait<0>();  // K_j (and Q) landed
    __syncthreads();     // ... for every warp; every warp is done reading V_{j+1}
    copy_tile_async<T, T::kBlockN>(v_tile, v + std::int64_t(key0) * T::kHeadDim, p.seqlen_k - key0);
    cp_async_commit();

    float s[T::kMTiles][T::kSTiles][4];
    gemm_qk<T>(s, q_tile, k_tile, warp_row0, lane);
    const bool past_end = key0 + T::kBlockN > p.seqlen_k;
    const bool crosses_diagonal = p.causal && key0 + T::kBlockN - 1 > m0 + causal_shift;
    if (past_end || crosses_diagonal) mask_scores<T>(s, key0, m0 + warp_row0, lane, p);

    cp_async_wait<0>();  // V_j landed
    __syncthreads();     // ... for every warp; every warp is done reading K_j
    if (n_block > 0) {
      const int next_key0 = key0 - T::kBlockN;
      copy_tile_async<T, T::kBlockN>(k_tile, k + std::int64_t(next_key0) * T::kHeadDim,
                                     p.seqlen_k - next_key0);
      cp_async_commit();
    }
    online_softmax<T>(s, row_max, row_sum, o, p.scale_log2);
    gemm_pv<T>(o, s, v_tile, lane);
  }

  // Epilogue: finish the row sums across the 4 lanes of each row, normalize, store O and LSE.
  Element* out = static_cast<Element*>(p.o) + q_row0 * T::kHeadDim;
  float* lse = p.lse + q_row0;
#pragma unroll
  for (int mt = 0; mt < T::kMTiles; ++mt)
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      float sum = row_sum[mt][half];
      sum += __shfl_xor_sync(0xffffffffu, sum, 1);
      sum += __shfl_xor_sync(0xffffffffu, sum, 2);
      const float inverse = sum > 0.0f ? 1.0f / sum : 0.0f;  // fully masked rows: O = 0
      const int row = warp_row0 + mt * kMmaM + half * 8 + lane / 4;
      if (m0 + row >= p.seqlen_q) continue;
      Element* out_row = out + std::int64_t(row) * T::kHeadDim + 2 * (lane % 4);
#pragma unroll
      for (int nt = 0; nt < T::kOTiles; ++nt)
        *reinterpret_cast<std::uint32_t*>(out_row + nt * kMmaN) =
            pack_pair<Element>(o[mt][nt][2 * half] * inverse, o[mt][nt][2 * half + 1] * inverse);
      if (lane % 4 == 0)
        lse[row] = sum > 0.0f ? (row_max[mt][half] * p.scale_log2 + __log2f(sum)) * kLn2
                              : -std::numeric_limits<float>::infinity();
    }
}

template <class T>
Status launch_traits(const AttnShape& shape, const AttnBuffers& buffers, Stream stream) {
  const auto kernel = fa2_forward_kernel<T>;
  // Once per instantiation (for the device current at first launch): above 48 KiB of dynamic
  // shared memory needs an opt-in.
  static const cudaError_t opt_in =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, T::kSharedBytes);
  if (Status status = cuda_status(opt_in, "fa2: raising the shared-memory limit"); !status)
    return status;
  const Fa2Params params{
      .q = buffers.q,
      .k = buffers.k,
      .v = buffers.v,
      .o = buffers.o,
      .lse = buffers.lse,
      .seqlen_q = int(shape.seqlen_q),
      .seqlen_k = int(shape.seqlen_k),
      .heads_q = int(shape.heads_q),
      .heads_kv = int(shape.heads_kv),
      .heads_per_kv_head = int(shape.heads_q / shape.heads_kv),
      .causal = shape.causal,
      .scale_log2 = float(1.0 / std::sqrt(double(shape.headdim)) * double(kLog2e))};
  const dim3 grid(unsigned((shape.seqlen_q + T::kBlockM - 1) / T::kBlockM), unsigned(shape.heads_q),
                  unsigned(shape.batch));
  kernel<<<grid, T::kThreads, T::kSharedBytes, stream>>>(params);
  return cuda_status(cudaGetLastError(), "fa2: kernel launch");
}

template <typename Element>
Status launch_for_element(const AttnShape& shape, const AttnBuffers& buffers, Stream stream) {
  switch (shape.headdim) {
    case 64:
      return launch_traits<Fa2Traits<64, 128, 64, 4, 2, Element>>(shape, buffers, stream);
    case 128:
      return launch_traits<Fa2Traits<128, 128, 64, 4, 2, Element>>(shape, buffers, stream);
    case 256:
      return launch_traits<Fa2Traits<256, 128, 64, 8, 1, Element>>(shape, buffers, stream);
    default:
      return Error{"fa2: head dim " + std::to_string(shape.headdim) + " has no tile configuration"};
  }
}

Status launch(const AttnShape& shape, const AttnBuffers& buffers, Stream stream) {
  return shape.dtype == Dtype::bf16 ? launch_for_element<__nv_bfloat16>(shape, buffers, stream)
                                    : launch_for_element<__half>(shape, buffers, stream);
}

std::optional<std::string> unsupported_reason(const AttnShape& shape, const DeviceCaps&) {
  constexpr std::int64_t kMaxGridDimension = 65535;  // grid y (heads) and z (batch)
  if (auto reason = unsupported_tiled_shape("fa2", shape)) return reason;
  if (shape.heads_q > kMaxGridDimension || shape.batch > kMaxGridDimension)
    return "fa2 launches one block row per head and batch: at most 65535 of each";
  return std::nullopt;
}

}  // namespace

extern const Kernel fa2_kernel;  // listed in registry.cpp
const Kernel fa2_kernel{
    .name = "fa2",
    .summary = "FlashAttention-2 forward: mma.sync m16n8k16, ldmatrix, cp.async, online softmax",
    .min_sm = 80,
    .unsupported_reason = unsupported_reason,
    .workspace_bytes = no_workspace,
    .launch = launch,
};

}  // namespace fa4::kernels
