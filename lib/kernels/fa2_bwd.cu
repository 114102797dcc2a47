// fa2_bwd: FlashAttention-2 backward (Dao, arXiv 2307.08691, Algorithm 2) on sm80-style
// tensor-core instructions (mma.sync m16n8k16, ldmatrix with and without .trans, cp.async), and
// its deterministic variant fa2_bwd_deterministic.
//
// Algorithm. Three kernels on one stream:
//   1. preprocessing (bwd_common): D = rowsum(dO o O) and LSE * log2(e) per query row into the
//      workspace; zeroes the float32 dQ accumulator.
//   2. the main kernel, one thread block per (key block of kBlockN keys, kv head, batch). K_j and
//      V_j stay in shared memory and dK_j, dV_j in registers while the block walks the query heads
//      of its GQA group and, per head, the query blocks of kBlockM rows that see any of its keys
//      (causal: from the block holding row key0 - (seqlen_k - seqlen_q) on; the blocks ordered
//      longest first within sections of kv head and batch rows,
//      core/fa2_bwd_tiles.hpp's causal_section_rows). Per query block:
//        S  = Q K^T                    P = 2^(S * scale*log2e - LSE*log2e)   (masked: P = 0)
//        dP = dO V^T                   dS = P o (dP - D)
//        dV += P^T dO                  dK += dS^T Q        dQ_acc += dS K (float32, atomics)
//      P and dS go through shared memory (16-bit) because each GEMM has its own warp layout: the
//      S/dP layout owns (query, key) tiles, dV/dK own (key, dim) tiles, dQ owns (query, dim) tiles.
//      Q, dO, LSE and D of the next query block are copied (cp.async) while the current one runs.
//      dK is scaled by the softmax scale on the way out; dK and dV need no atomics (the block owns
//      its keys and sums the group's heads itself).
//   3. dQ conversion (bwd_common): dQ = scale * dQ_acc in the dtype.
//   Long causal GQA groups at hd128 (core/fa2_bwd_tiles.hpp's split_gqa_groups; fa2_bwd, not the
//   deterministic variant): step 2 runs one thread block per (key block, query head, batch), each
//   storing its head's share of dK and dV into the workspace, and the group reduction
//   (bwd_common) sums each group's shares.
//   Deterministic variant: step 2 runs one thread block per (dQ slot, kv head, batch), each
//   walking its slot's key blocks in a fixed order and adding their dQ parts into the slot (the
//   first stored, the rest added by the one thread that owns each element, in program order);
//   step 3 sums the slots in slot order. The slots (core/fa2_bwd_tiles.hpp's
//   deterministic_dq_slots) are as few as keep the waves times the longest walk within 10% of the
//   least, at most one per key block: its workspace holds that many float32 copies of dQ (padded
//   rows).
//
// Over the forward (fa2.cu): recomputation of P from the saved LSE instead of storing it, the five
// GEMMs, the float32 dQ reduction across thread blocks.
//
// Work: FLOPs = 2.5 x forward = 10 * b * h_q * P * d for d == dv (P = unmasked pairs, halved when
// causal; core/shape.hpp), of which the kernel executes 5 GEMMs * 2 * b*h_q*sq*sk*d over the
// visited (query block, key block) pairs. exp2: one per score, b*h_q*P.
// HBM bytes: Q, dO (16-bit), LSE, D read once per key block that meets them
// (b*h_q*sq*(2d+2dv+8) * ceil(sk/kBlockN), mostly from L2); K, V read once; dK, dV written once;
// dQ_acc: 4 * b*h_q*sq*d bytes of atomics per key block (in L2), plus the preprocessing and
// conversion streams (bwd_common.cu). Minimum (core/shape.hpp): read Q K V O dO LSE, write dQ dK
// dV. At hd128, sq = sk = 4096, b4 h16: 1.37 TFLOP against 0.4 GB minimum; compute-bound.
//
// Tiles (8 warps; per GEMM the warp grid over its output; registers in NOTES.md):
//   hd64:  kBlockM 128, kBlockN 128; S/dP 4x2 warps (32 x 64 each), dK/dV 4x2 (32 x 32), dQ
//          4x2 (32 x 32). Shared memory: K 16 + V 16 + Q 2x16 + dO 2x16 + P 32 + dS 32 + LSE/D 2 =
//          162 KiB
//   hd128: kBlockM 64, kBlockN 128; S/dP 2x4 (32 x 32), dK/dV 4x2 (32 x 64), dQ 2x4 (32 x 32 in
//          one pass). Shared memory: K 32 + V 32 + Q 2x16 + dO 2x16 + P 16 + dS 16 + 1 =
//          161 KiB
//   hd256: kBlockM 64, kBlockN 64; S/dP 4x2 (16 x 32), dK/dV 2x4 (32 x 64), dQ 2x4 (32 x 64 in
//          4 column passes). Shared memory: K 32 + V 32 + Q 2x32 + dO 2x32 + P 8 + dS 8 + 1 =
//          209 KiB
//   Why: dK and dV are 2 * kBlockN * d float32 accumulators held in registers for the whole
//   block: 128 per thread at hd128 and hd256 (64 at hd64), of 255 per thread at one block of 256
//   threads per SM. What is left holds S and dP (P kept as packed 16-bit pairs while dP is
//   computed) or a column pass of dQ; the passes and the packed P keep spills small (ptxas: none
//   at hd64 and in fa2_bwd's hd128 kernels, 16-20 bytes in the deterministic variant's walking
//   hd128 kernel, 16-24 bytes at hd256; each layout measured faster than the spill-free one it
//   replaced: hd128's one dQ pass 2.4% against two, NOTES.md). hd256 halves kBlockN to
//   keep the accumulators at 128. FA2 (sm80, over 144 KiB of shared memory) uses the same
//   blocks: 128 x 128 at hd64, where 128 queries against the 64 of the first draft cut the
//   ldmatrix bytes per FLOP by a sixth (10-12% faster, NOTES.md);
//   kBlockM does not change the dQ atomics per FLOP (M*d per M*N*d), kBlockN does.
//   Double-buffered Q and dO use what shared memory the fixed tiles leave.
// Shared-memory rows are 16-byte chunks XOR-swizzled by (row % 8), as in fa2.cu.
//
// Benchmark: build-gpu/tests/kernels/kernel_timing --pass bwd --kernels fa2_bwd --headdim 128
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "core/fa2_bwd_tiles.hpp"
#include "kernels/bwd_common.hpp"
#include "kernels/cuda_status.hpp"
#include "kernels/registry.hpp"
#include "kernels/sm80_primitives.cuh"
#include "kernels/toolbox.cuh"

namespace fa4::kernels {
namespace {

using namespace sm80;

constexpr int kWarps = 8;
constexpr int kThreads = kWarps * kWarpSize;

// A warp grid over one GEMM's Rows x Cols output: WarpsRows x (kWarps / WarpsRows) warps, each
// owning a (Rows / WarpsRows) x (Cols / warps across) tile of m16 x n8 tiles.
template <int Rows, int Cols, int WarpsRows>
struct WarpGrid {
  static constexpr int kWarpsCols = kWarps / WarpsRows;
  static constexpr int kRows = Rows / WarpsRows;
  static constexpr int kCols = Cols / kWarpsCols;
  static constexpr int kMTiles = kRows / kMmaM;
  static constexpr int kNTiles = kCols / kMmaN;
  static_assert(kWarps % WarpsRows == 0 && kRows % kMmaM == 0 && kCols % (2 * kMmaN) == 0,
                "whole m16 tiles and pairs of n8 tiles per warp");
  __device__ static int row0(int warp) { return warp / kWarpsCols * kRows; }
  __device__ static int col0(int warp) { return warp % kWarpsCols * kCols; }
};

// sqrt(x) for x >= 1 by Newton's iteration, for compile-time constants.
constexpr double constexpr_sqrt(double x) {
  double root = x;
  for (int i = 0; i < 64; ++i) root = 0.5 * (root + x / root);
  return root;
}

// The blocks are core/fa2_bwd_tiles.hpp's for the head dim; the rest, per GEMM, its warp grid.
template <int HeadDim, int SdpWarpsM, int KvWarpsN, int DqWarpsM, int DqPasses, typename ElementT>
struct BwdTraits {
  using Element = ElementT;
  static constexpr int kDqPasses = DqPasses;
  static constexpr int kHeadDim = HeadDim;
  static constexpr int kBlockM = fa2_bwd_tiles::query_block(HeadDim);
  static constexpr int kBlockN = fa2_bwd_tiles::key_block(HeadDim);
  using Sdp = WarpGrid<kBlockM, kBlockN, SdpWarpsM>;  // S and dP: queries x keys
  using Kv = WarpGrid<kBlockN, HeadDim, KvWarpsN>;    // dK and dV: keys x dims
  using Dq = WarpGrid<kBlockM, HeadDim, DqWarpsM>;    // dQ: queries x dims

  // The softmax scale 1/sqrt(d) times log2(e), a constant of the head dim: an immediate operand
  // of the exp step's FFMA instead of a kernel parameter reloaded at each use.
  static constexpr float kScaleLog2 = float(double(kLog2e) / constexpr_sqrt(double(HeadDim)));
  static constexpr int kElementBytes = int(sizeof(Element));
  static constexpr int kQBytes = kBlockM * HeadDim * kElementBytes;     // Q and dO tiles
  static constexpr int kKBytes = kBlockN * HeadDim * kElementBytes;     // K and V tiles
  static constexpr int kPBytes = kBlockM * kBlockN * kElementBytes;     // P and dS tiles
  static constexpr int kRowFloatsBytes = kBlockM * int(sizeof(float));  // LSE and D
  // Offsets: K, V, Q[2], dO[2], P, dS, LSE[2], D[2].
  static constexpr int kVOffset = kKBytes;
  static constexpr int kQOffset = 2 * kKBytes;
  static constexpr int kDoOffset = kQOffset + 2 * kQBytes;
  static constexpr int kPOffset = kDoOffset + 2 * kQBytes;
  static constexpr int kDsOffset = kPOffset + kPBytes;
  static constexpr int kLseOffset = kDsOffset + kPBytes;
  static constexpr int kDOffset = kLseOffset + 2 * kRowFloatsBytes;
  static constexpr int kSharedBytes = kDOffset + 2 * kRowFloatsBytes;

  static_assert(Dq::kNTiles % (2 * DqPasses) == 0, "dQ passes of whole n8-tile pairs");
  static_assert(bwd::kRowAlignment % kBlockM == 0, "query blocks tile the padded workspace rows");
  static_assert(HeadDim / kElementsPerCopy % kSwizzleRows == 0 &&
                    kBlockN / kElementsPerCopy % kSwizzleRows == 0,
                "the XOR swizzle permutes 8 chunks in a row");
  static_assert(2 * (kBlockM / 4) <= kThreads, "one thread per 16-byte chunk of LSE and D");
  static_assert(kSharedBytes <= kMaxSharedBytesPerBlock, "tiles exceed shared memory");
};

struct BwdParams {
  const void* q;
  const void* k;
  const void* v;
  const void* dout;
  void* dk;
  void* dv;
  const float* lse_log2;  // workspace, [batch][heads_q][rows_padded]
  const float* d;
  float* dq_accum;             // bwd_common.hpp's mma_tiles order
  std::size_t dq_slot_floats;  // deterministic: slot stride
  int dq_slots;                // deterministic: slots per (batch, query head)
  int seqlen_q;
  int seqlen_k;
  int rows_padded;
  int heads_q;
  int heads_kv;
  int heads_per_kv_head;
  bool causal;
  float scale;  // softmax scale (the exp step's scale times log2(e) is T::kScaleLog2)
};

// Per-lane ldmatrix offsets into a swizzled tile of RowBytes-byte rows, from the lane's row and
// first 16-byte chunk; at(pair, extra_rows) steps by chunk pairs (compile-time) and by multiples
// of 8 rows. The XOR touches only the low 3 bits of a chunk index, so four offsets (pair % 4) plus
// constants cover every pair (fa2.cu's LaneAddresses, with a run-time first chunk). Offsets, not
// addresses: the operands that share a lane pattern (Q and dO, K and V, P and dS, ...) share the
// four registers, and the tile's address is added at the use.
template <int RowBytes>
struct LaneOffsets {
  static constexpr int kSwizzleSpanBytes = kSwizzleRows * kBytesPerCopy;
  std::uint32_t offset[kSwizzleRows / 2];

  __device__ __forceinline__ LaneOffsets(int row, int chunk) {
#pragma unroll
    for (int i = 0; i < kSwizzleRows / 2; ++i)
      offset[i] =
          std::uint32_t(row * RowBytes + ((chunk + 2 * i) ^ (row % kSwizzleRows)) * kBytesPerCopy);
  }
  __device__ __forceinline__ std::uint32_t at(std::uint32_t tile, int pair, int extra_rows) const {
    return tile + offset[pair % (kSwizzleRows / 2)] +
           std::uint32_t(pair / (kSwizzleRows / 2) * kSwizzleSpanBytes + extra_rows * RowBytes);
  }
};

// Lane patterns of the ldmatrix.x4 operands (PTX "Matrix fragments for mma.m16n8k16"); `first` is
// the warp's first m (A) or n (B) index in the tile. Plain: tile rows along m (A) or n (B), k
// along the row; transposed: tile rows along k, read with ldmatrix .trans.
//   A plain: matrices (m 0-7 | 8-15) x (k 0-7 | 8-15), lanes 0-15 the k 0-7 half's rows.
//   A transposed: the same four matrices, from k rows.
//   B plain: (n 0-7, k 0-7), (n 0-7, k 8-15), (n 8-15, k 0-7), (n 8-15, k 8-15): b0, b1 of
//   n-tile 2p, then of 2p+1. B transposed: (k 0-7, n 0-7), (k 8-15, n 0-7), (k 0-7, n 8-15), ...
template <int RowBytes>
__device__ __forceinline__ LaneOffsets<RowBytes> a_plain(int first, int lane) {
  return LaneOffsets<RowBytes>(first + lane % 16, lane / 16);
}
template <int RowBytes>
__device__ __forceinline__ LaneOffsets<RowBytes> a_transposed(int first, int lane) {
  return LaneOffsets<RowBytes>(lane % 8 + lane / 16 * 8, first / kElementsPerCopy + lane / 8 % 2);
}
template <int RowBytes>
__device__ __forceinline__ LaneOffsets<RowBytes> b_plain(int first, int lane) {
  return LaneOffsets<RowBytes>(first + lane % 8 + lane / 16 * 8, lane / 8 % 2);
}
template <int RowBytes>
__device__ __forceinline__ LaneOffsets<RowBytes> b_transposed(int first, int lane) {
  return LaneOffsets<RowBytes>(lane % 8 + lane / 8 % 2 * 8, first / kElementsPerCopy + lane / 16);
}

// c (MTiles x NTiles of m16n8) += A (m x k) * B (k x n), k = KSteps * 16 from the tiles' start;
// B's n starts b_first_pair * 16 past its lane offsets' first (a compile-time constant).
template <class Element, int MTiles, int NTiles, int KSteps, bool ATransposed, bool BTransposed,
          int ARowBytes, int BRowBytes>
__device__ __forceinline__ void warp_gemm(float (&c)[MTiles][NTiles][4], std::uint32_t a_tile,
                                          const LaneOffsets<ARowBytes>& a_lane,
                                          std::uint32_t b_tile,
                                          const LaneOffsets<BRowBytes>& b_lane,
                                          int b_first_pair = 0) {
#pragma unroll
  for (int ks = 0; ks < KSteps; ++ks) {
    std::uint32_t af[MTiles][4];
#pragma unroll
    for (int mt = 0; mt < MTiles; ++mt) {
      if constexpr (ATransposed)
        ldmatrix_x4_trans(af[mt], a_lane.at(a_tile, mt, ks * kMmaK));
      else
        ldmatrix_x4(af[mt], a_lane.at(a_tile, ks, mt * kMmaM));
    }
#pragma unroll
    for (int np = 0; np < NTiles / 2; ++np) {
      std::uint32_t bf[4];
      if constexpr (BTransposed)
        ldmatrix_x4_trans(bf, b_lane.at(b_tile, b_first_pair + np, ks * kMmaK));
      else
        ldmatrix_x4(bf, b_lane.at(b_tile, ks, (b_first_pair + np) * 2 * kMmaN));
#pragma unroll
      for (int mt = 0; mt < MTiles; ++mt) {
        mma_m16n8k16<Element>(c[mt][2 * np], af[mt], bf[0], bf[1]);
        mma_m16n8k16<Element>(c[mt][2 * np + 1], af[mt], bf[2], bf[3]);
      }
    }
  }
}

template <int MTiles, int NTiles>
__device__ __forceinline__ void zero(float (&c)[MTiles][NTiles][4]) {
#pragma unroll
  for (int mt = 0; mt < MTiles; ++mt)
#pragma unroll
    for (int nt = 0; nt < NTiles; ++nt)
#pragma unroll
      for (int i = 0; i < 4; ++i) c[mt][nt][i] = 0.0f;
}

// Copies `Rows` rows of HeadDim elements into a swizzled tile; rows at or past valid_rows are
// zero-filled (fa2.cu's copy, for 256 threads).
template <class T, int Rows>
__device__ __forceinline__ void copy_tile_async(std::uint32_t tile, const typename T::Element* rows,
                                                int valid_rows) {
  constexpr int kChunksPerRow = T::kHeadDim / kElementsPerCopy;
  constexpr int kRowsPerPass = kThreads / kChunksPerRow;
  constexpr int kRowBytes = T::kHeadDim * T::kElementBytes;
  static_assert(
      kThreads % kChunksPerRow == 0 && kRowsPerPass % kSwizzleRows == 0 && Rows % kRowsPerPass == 0,
      "tile copies: whole rows per pass, swizzle phase fixed per thread");
  const int row = int(threadIdx.x) / kChunksPerRow;
  const int chunk = int(threadIdx.x) % kChunksPerRow;
  const std::uint32_t destination =
      tile + std::uint32_t(row * kRowBytes + (chunk ^ (row % kSwizzleRows)) * kBytesPerCopy);
  const typename T::Element* source = rows + row * T::kHeadDim + chunk * kElementsPerCopy;
#pragma unroll
  for (int i = 0; i < Rows / kRowsPerPass; ++i) {
    const bool valid = row + i * kRowsPerPass < valid_rows;
    cp_async_16(destination + std::uint32_t(i * kRowsPerPass * kRowBytes),
                valid ? source + i * kRowsPerPass * T::kHeadDim : rows, valid ? kBytesPerCopy : 0);
  }
}

// Q, dO, LSE*log2e and D of one query block into buffer `stage`.
template <class T>
__device__ __forceinline__ void copy_query_block_async(std::uint32_t shared, int stage,
                                                       const BwdParams& p, int batch, int head,
                                                       int m_block) {
  using Element = typename T::Element;
  const int m0 = m_block * T::kBlockM;
  const std::int64_t head_row = std::int64_t(batch) * p.heads_q + head;
  const std::int64_t q_offset = (head_row * p.seqlen_q + m0) * T::kHeadDim;
  copy_tile_async<T, T::kBlockM>(shared + T::kQOffset + stage * T::kQBytes,
                                 static_cast<const Element*>(p.q) + q_offset, p.seqlen_q - m0);
  copy_tile_async<T, T::kBlockM>(shared + T::kDoOffset + stage * T::kQBytes,
                                 static_cast<const Element*>(p.dout) + q_offset, p.seqlen_q - m0);
  // Padded workspace rows: no bounds check. Threads 0..kBlockM/4-1 copy LSE, the next ones D.
  constexpr int kChunks = T::kBlockM / 4;
  const int t = int(threadIdx.x);
  if (t < 2 * kChunks) {
    const bool is_d = t >= kChunks;
    const int chunk = t % kChunks;
    const float* source = (is_d ? p.d : p.lse_log2) + head_row * p.rows_padded + m0 + chunk * 4;
    cp_async_16(shared + (is_d ? T::kDOffset : T::kLseOffset) + stage * T::kRowFloatsBytes +
                    chunk * kBytesPerCopy,
                source, kBytesPerCopy);
  }
}

// A warp's S/dP-layout tile rounded to 16 bits, as pairs of adjacent columns (the register
// fragment's own pairs).
template <class T>
using PackedScores = std::uint32_t[T::Sdp::kMTiles][T::Sdp::kNTiles][2];

template <typename Element>
__device__ __forceinline__ float2 unpack_pair(std::uint32_t pair) {
  if constexpr (std::is_same_v<Element, __nv_bfloat16>)  // a bf16 is a float's upper half
    return make_float2(__uint_as_float(pair << 16), __uint_as_float(pair & 0xffff0000u));
  else
    return __half22float2(*reinterpret_cast<const __half2*>(&pair));
}

// Packed scores into a swizzled [query][key] shared tile. The 8 rows (lane / 4) of one store sit
// in 8 different 16-byte bank groups: no conflicts.
template <class T>
__device__ __forceinline__ void store_scores(unsigned char* tile, const PackedScores<T>& x,
                                             int row0, int col0, int lane) {
  constexpr int kRowBytes = T::kBlockN * T::kElementBytes;
#pragma unroll
  for (int mt = 0; mt < T::Sdp::kMTiles; ++mt)
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = row0 + mt * kMmaM + half * 8 + lane / 4;
#pragma unroll
      for (int nt = 0; nt < T::Sdp::kNTiles; ++nt) {
        const int chunk = col0 / kElementsPerCopy + nt;
        *reinterpret_cast<std::uint32_t*>(tile + row * kRowBytes +
                                          (chunk ^ (row % kSwizzleRows)) * kBytesPerCopy +
                                          (lane % 4) * 4) = x[mt][nt][half];
      }
    }
}

// A warp's dQ column pass `pass` out of registers, into the accumulator's mma_tiles order
// (bwd_common.hpp): each m16n8 tile's four floats stored (Store) or added with one float32 vector
// reduction at lane_accum (the lane's floats of the warp's first tile) plus compile-time offsets.
// One thread adds to each element, so a deterministic slot's adds land in program order.
template <class T, int NTiles, bool Store>
__device__ __forceinline__ void write_dq_pass(float* lane_accum,
                                              const float (&dq)[T::Dq::kMTiles][NTiles][4],
                                              int pass) {
#pragma unroll
  for (int mt = 0; mt < T::Dq::kMTiles; ++mt)
#pragma unroll
    for (int nt = 0; nt < NTiles; ++nt) {
      float4* target = reinterpret_cast<float4*>(
          lane_accum + bwd::dq_tile_offset(mt * kMmaM, (pass * NTiles + nt) * kMmaN, T::kHeadDim));
      const float4 value = make_float4(dq[mt][nt][0], dq[mt][nt][1], dq[mt][nt][2], dq[mt][nt][3]);
      if constexpr (Store) {
        *target = value;
      } else {
#if __CUDA_ARCH__ >= 900
        atomicAdd(target, value);  // one vector red.global.add.v4.f32 (sm90+)
#else
        atomicAdd(&target->x, value.x);
        atomicAdd(&target->y, value.y);
        atomicAdd(&target->z, value.z);
        atomicAdd(&target->w, value.w);
#endif
      }
    }
}

// One key block's walk: K_j and V_j into shared memory, dK_j and dV_j in registers over the query
// blocks of the walked heads that see the block, then stored. head_row: (row head, batch), the
// row heads being kv heads or, with SplitGroups, query heads (their dK and dV shares stored into
// the workspace's per-query-head partials: p.dk, p.dv point there). Deterministic: dQ parts go to
// dQ slot `slot`, stored (store_dq: the slot's first key block) or added; otherwise added
// atomically into the one accumulator.
template <class T, bool Deterministic, bool SplitGroups>
__device__ __forceinline__ void walk_key_block(const BwdParams& p, unsigned char* shared_bytes,
                                               int n_block, int head_row, int slot, bool store_dq) {
  using Element = typename T::Element;
  using Sdp = typename T::Sdp;
  using Kv = typename T::Kv;
  using Dq = typename T::Dq;
  const std::uint32_t shared = shared_address(shared_bytes);
  const float* shared_floats = reinterpret_cast<const float*>(shared_bytes);
  const int row_heads = SplitGroups ? p.heads_q : p.heads_kv;  // heads per batch in the grid
  const int row_head = head_row % row_heads;
  const int batch = head_row / row_heads;
  const int walked_heads = SplitGroups ? 1 : p.heads_per_kv_head;  // query heads walked
  const int first_head = SplitGroups ? row_head : row_head * p.heads_per_kv_head;
  const int kv_head = SplitGroups ? row_head / p.heads_per_kv_head : row_head;
  const int warp = int(threadIdx.x) / kWarpSize;
  const int lane = int(threadIdx.x) % kWarpSize;
  const int key0 = n_block * T::kBlockN;
  const int causal_shift = p.seqlen_k - p.seqlen_q;  // row i sees keys <= i + causal_shift

  // Query blocks that see a key of this block: rows >= key0 - causal_shift when causal.
  const int m_blocks = (p.seqlen_q + T::kBlockM - 1) / T::kBlockM;
  const int m_begin = p.causal ? min(m_blocks, max(0, key0 - causal_shift) / T::kBlockM) : 0;
  const int per_head = m_blocks - m_begin;
  const int iterations = per_head * walked_heads;

  const std::int64_t kv_offset =
      ((std::int64_t(batch) * p.heads_kv + kv_head) * p.seqlen_k + key0) * T::kHeadDim;
  if (iterations > 0) {
    copy_tile_async<T, T::kBlockN>(shared, static_cast<const Element*>(p.k) + kv_offset,
                                   p.seqlen_k - key0);
    copy_tile_async<T, T::kBlockN>(shared + T::kVOffset,
                                   static_cast<const Element*>(p.v) + kv_offset, p.seqlen_k - key0);
    copy_query_block_async<T>(shared, 0, p, batch, first_head, m_begin);
    cp_async_commit();
  }

  float dk[Kv::kMTiles][Kv::kNTiles][4];
  float dv[Kv::kMTiles][Kv::kNTiles][4];
  zero(dk);
  zero(dv);
  // Each warp's lane offsets into its GEMMs' operand tiles (see LaneOffsets).
  constexpr int kDimRowBytes = T::kHeadDim * T::kElementBytes;  // Q, K, V, dO rows
  constexpr int kKeyRowBytes = T::kBlockN * T::kElementBytes;   // P, dS rows
  const int sdp_row0 = Sdp::row0(warp), sdp_col0 = Sdp::col0(warp);
  const int kv_row0 = Kv::row0(warp), kv_col0 = Kv::col0(warp);
  const int dq_row0 = Dq::row0(warp), dq_col0 = Dq::col0(warp);
  const LaneOffsets<kDimRowBytes> sdp_a = a_plain<kDimRowBytes>(sdp_row0, lane);     // Q, dO
  const LaneOffsets<kDimRowBytes> sdp_b = b_plain<kDimRowBytes>(sdp_col0, lane);     // K, V
  const LaneOffsets<kKeyRowBytes> kv_a = a_transposed<kKeyRowBytes>(kv_row0, lane);  // P, dS
  const LaneOffsets<kDimRowBytes> kv_b = b_transposed<kDimRowBytes>(kv_col0, lane);  // dO, Q
  const LaneOffsets<kKeyRowBytes> dq_a = a_plain<kKeyRowBytes>(dq_row0, lane);       // dS
  const LaneOffsets<kDimRowBytes> dq_b = b_transposed<kDimRowBytes>(dq_col0, lane);  // K

  for (int it = 0; it < iterations; ++it) {
    const int head = first_head + it / per_head;
    const int m_block = m_begin + it % per_head;
    const int m0 = m_block * T::kBlockM;
    const int stage = it % 2;
    const float* lse_log2 = shared_floats + (T::kLseOffset + stage * T::kRowFloatsBytes) / 4;
    const float* row_d = shared_floats + (T::kDOffset + stage * T::kRowFloatsBytes) / 4;
    const std::uint32_t q_tile = shared + T::kQOffset + stage * T::kQBytes;
    const std::uint32_t do_tile = shared + T::kDoOffset + stage * T::kQBytes;
    cp_async_wait<0>();  // this query block (and K, V) landed
    __syncthreads();     // ... for every warp; every warp is done with the previous block
    if (it + 1 < iterations) {
      const int next = it + 1;
      copy_query_block_async<T>(shared, 1 - stage, p, batch, first_head + next / per_head,
                                m_begin + next % per_head);
      cp_async_commit();
    }

    // This warp's rows of LSE*log2e and D, read ahead of the GEMMs that wait on them.
    float row_lse[Sdp::kMTiles][2], row_dsum[Sdp::kMTiles][2];
#pragma unroll
    for (int mt = 0; mt < Sdp::kMTiles; ++mt)
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        row_lse[mt][half] = lse_log2[sdp_row0 + mt * kMmaM + half * 8 + lane / 4];
        row_dsum[mt][half] = row_d[sdp_row0 + mt * kMmaM + half * 8 + lane / 4];
      }

    // S = Q K^T, then P, kept in 16 bits (the dS below uses the rounded P, as the GEMMs do).
    PackedScores<T> packed_p;
    {
      float s[Sdp::kMTiles][Sdp::kNTiles][4];
      zero(s);
      warp_gemm<Element, Sdp::kMTiles, Sdp::kNTiles, T::kHeadDim / kMmaK, false, false>(
          s, q_tile, sdp_a, shared, sdp_b);
      // Masked scores (past the last key, or past the diagonal when causal) become -inf, in the
      // blocks that have any; then every score's exp runs unpredicated. LSE*log2e is +inf for rows
      // that see no key and for padding rows: P = 0 there.
      const bool past_end = key0 + T::kBlockN > p.seqlen_k;
      const bool crosses_diagonal = p.causal && key0 + T::kBlockN - 1 > m0 + causal_shift;
      if (past_end || crosses_diagonal) {
#pragma unroll
        for (int mt = 0; mt < Sdp::kMTiles; ++mt)
#pragma unroll
          for (int half = 0; half < 2; ++half) {
            const int row = sdp_row0 + mt * kMmaM + half * 8 + lane / 4;
            const int key_end =
                p.causal ? min(p.seqlen_k, m0 + row + causal_shift + 1) : p.seqlen_k;
#pragma unroll
            for (int nt = 0; nt < Sdp::kNTiles; ++nt)
#pragma unroll
              for (int c = 0; c < 2; ++c)
                if (key0 + sdp_col0 + nt * kMmaN + 2 * (lane % 4) + c >= key_end)
                  s[mt][nt][2 * half + c] = -std::numeric_limits<float>::infinity();
          }
      }
#pragma unroll
      for (int mt = 0; mt < Sdp::kMTiles; ++mt)
#pragma unroll
        for (int half = 0; half < 2; ++half) {
#pragma unroll
          for (int nt = 0; nt < Sdp::kNTiles; ++nt)
            packed_p[mt][nt][half] = pack_pair<Element>(
                fast_exp2(fmaf(s[mt][nt][2 * half], T::kScaleLog2, -row_lse[mt][half])),
                fast_exp2(fmaf(s[mt][nt][2 * half + 1], T::kScaleLog2, -row_lse[mt][half])));
        }
    }
    store_scores<T>(shared_bytes + T::kPOffset, packed_p, sdp_row0, sdp_col0, lane);

    // dP = dO V^T, then dS = P o (dP - D).
    {
      float dp[Sdp::kMTiles][Sdp::kNTiles][4];
      zero(dp);
      warp_gemm<Element, Sdp::kMTiles, Sdp::kNTiles, T::kHeadDim / kMmaK, false, false>(
          dp, do_tile, sdp_a, shared + T::kVOffset, sdp_b);
      PackedScores<T> packed_ds;
#pragma unroll
      for (int mt = 0; mt < Sdp::kMTiles; ++mt)
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          const float d = row_dsum[mt][half];
#pragma unroll
          for (int nt = 0; nt < Sdp::kNTiles; ++nt) {
            const float2 prob = unpack_pair<Element>(packed_p[mt][nt][half]);
            packed_ds[mt][nt][half] = pack_pair<Element>(prob.x * (dp[mt][nt][2 * half] - d),
                                                         prob.y * (dp[mt][nt][2 * half + 1] - d));
          }
        }
      store_scores<T>(shared_bytes + T::kDsOffset, packed_ds, sdp_row0, sdp_col0, lane);
    }
    __syncthreads();  // P and dS of every warp are in shared memory

    // dV += P^T dO and dK += dS^T Q: A is the [query][key] tile read transposed (rows = k).
    warp_gemm<Element, Kv::kMTiles, Kv::kNTiles, T::kBlockM / kMmaK, true, true>(
        dv, shared + T::kPOffset, kv_a, do_tile, kv_b);
    warp_gemm<Element, Kv::kMTiles, Kv::kNTiles, T::kBlockM / kMmaK, true, true>(
        dk, shared + T::kDsOffset, kv_a, q_tile, kv_b);

    // dQ_acc += dS K, into the float32 accumulator (or this key block's slot), in kDqPasses
    // column passes over the warp's dQ tile to bound the registers next to dK and dV.
    // This lane's floats of the warp's first dQ tile (mma_tiles order); every target below is a
    // compile-time offset from it (one 64-bit address a block, each reduction [address +
    // immediate]).
    float* const lane_accum =
        p.dq_accum + (std::int64_t(batch) * p.heads_q + head) * p.rows_padded * T::kHeadDim +
        (Deterministic ? std::size_t(slot) * p.dq_slot_floats : 0) +
        bwd::dq_tile_offset(m0 + dq_row0, dq_col0, T::kHeadDim) + 4 * lane;
#pragma unroll
    for (int pass = 0; pass < T::kDqPasses; ++pass) {
      constexpr int kNTiles = Dq::kNTiles / T::kDqPasses;
      float dq[Dq::kMTiles][kNTiles][4];
      zero(dq);
      warp_gemm<Element, Dq::kMTiles, kNTiles, T::kBlockN / kMmaK, false, true>(
          dq, shared + T::kDsOffset, dq_a, shared, dq_b, pass * kNTiles / 2);
      if (Deterministic && store_dq)  // uniform: one branch a pass, not one per element
        write_dq_pass<T, kNTiles, true>(lane_accum, dq, pass);
      else
        write_dq_pass<T, kNTiles, false>(lane_accum, dq, pass);
    }
  }

  // Epilogue: dK (scaled) and dV of the block's valid keys, 4-byte stores, into the kv head's
  // rows or (groups split) this query head's share of them in the workspace's partials.
  const std::int64_t out_offset =
      SplitGroups
          ? ((std::int64_t(batch) * p.heads_q + first_head) * p.seqlen_k + key0) * T::kHeadDim
          : kv_offset;
  Element* dk_out = static_cast<Element*>(p.dk) + out_offset;
  Element* dv_out = static_cast<Element*>(p.dv) + out_offset;
#pragma unroll
  for (int mt = 0; mt < Kv::kMTiles; ++mt)
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = kv_row0 + mt * kMmaM + half * 8 + lane / 4;
      if (key0 + row >= p.seqlen_k) continue;
#pragma unroll
      for (int nt = 0; nt < Kv::kNTiles; ++nt) {
        const std::int64_t offset =
            std::int64_t(row) * T::kHeadDim + kv_col0 + nt * kMmaN + 2 * (lane % 4);
        *reinterpret_cast<std::uint32_t*>(dk_out + offset) =
            pack_pair<Element>(dk[mt][nt][2 * half] * p.scale, dk[mt][nt][2 * half + 1] * p.scale);
        *reinterpret_cast<std::uint32_t*>(dv_out + offset) =
            pack_pair<Element>(dv[mt][nt][2 * half], dv[mt][nt][2 * half + 1]);
      }
    }
}

// One thread block per (key block, row head, batch); deterministic: per (dQ slot, kv head, batch),
// walking the slot's key blocks in core/fa2_bwd_tiles.hpp's deterministic_dq_slots order (one key
// block a slot at hd256: deterministic_walks_slots).
template <class T, bool Deterministic, bool SplitGroups>
__global__ void __launch_bounds__(kThreads, 1) fa2_bwd_kernel(const BwdParams p) {
  extern __shared__ __align__(128) unsigned char shared_bytes[];
  // The block's first key block (deterministic: its dQ slot), kv head and batch from its linear
  // index. Causal: in sections of fa2_bwd_tiles::causal_section_rows (kv head, batch) rows, key
  // block slowest, so the blocks with the most query blocks to walk (the first key blocks) start
  // first and the short ones fill the tail, while the blocks running together are several key
  // blocks of each row of the section and share its Q, dO and dQ accumulator rows in L2. Over all
  // rows at once, hd256 causal s512 and s1024 (256 and 128 rows, one block of each running) ran 18%
  // and 23% slower on a lent H200; in sections of 32 rows, hd256 causal s4096 (32 rows, four key
  // blocks of each running) took 3.2 or 4.4 ms from sample to sample on a lent H100, against
  // 3.16-3.19 ms in sections of 8; where a row has at most 8 key blocks, sections of 8 rows (64
  // blocks) ran 1-5% slower than of 32 on a lent H200 (lib/kernels/NOTES.md). Otherwise key block
  // fastest, so that the blocks running together share one GQA group's rows.
  const int key_blocks = (p.seqlen_k + T::kBlockN - 1) / T::kBlockN;
  const int row_blocks = Deterministic ? p.dq_slots : key_blocks;  // blocks per head row
  const int head_rows = int(gridDim.x) / row_blocks;               // row heads x batch
  const int linear = int(blockIdx.x);
  int first = linear % row_blocks;
  int head_row = linear / row_blocks;
  if (p.causal) {
    const int section_rows = fa2_bwd_tiles::causal_section_rows(row_blocks);
    const int section = linear / (section_rows * row_blocks);
    const int first_row = section * section_rows;
    const int rows = min(section_rows, head_rows - first_row);
    const int in_section = linear - first_row * row_blocks;
    first = in_section / rows;
    head_row = first_row + in_section % rows;
  }
  if constexpr (!Deterministic || !fa2_bwd_tiles::deterministic_walks_slots(T::kHeadDim)) {
    // One key block (deterministic: slot `first` is this key block's own, stored).
    walk_key_block<T, Deterministic, SplitGroups>(p, shared_bytes, first, head_row, first,
                                                  Deterministic);
  } else {
    for (int round = 0;; ++round) {
      const int n_block = round * p.dq_slots + (round % 2 == 0 ? first : p.dq_slots - 1 - first);
      if (n_block >= key_blocks) break;
      if (round > 0) __syncthreads();  // every warp is done with the last key block's tiles
      walk_key_block<T, true, SplitGroups>(p, shared_bytes, n_block, head_row, first, round == 0);
    }
  }
}

// Tile configurations by head dim (see the header; the blocks in core/fa2_bwd_tiles.hpp): HeadDim,
// then the warps along the first dimension of the S/dP, dK/dV and dQ grids, and the dQ passes.
template <int HeadDim, typename Element>
struct TilesFor;
template <typename Element>
struct TilesFor<64, Element> {
  using Traits = BwdTraits<64, 4, 4, 4, 1, Element>;
};
template <typename Element>
struct TilesFor<128, Element> {
  using Traits = BwdTraits<128, 2, 4, 2, 1, Element>;
};
template <typename Element>
struct TilesFor<256, Element> {
  using Traits = BwdTraits<256, 4, 2, 2, 4, Element>;
};

// The key-block size of the main kernel at shape.headdim (0 when there is no configuration);
// the tiles are the same for both element types.
std::int64_t key_block(const AttnShape& shape) {
  switch (shape.headdim) {
    case 64:
      return TilesFor<64, __half>::Traits::kBlockN;
    case 128:
      return TilesFor<128, __half>::Traits::kBlockN;
    case 256:
      return TilesFor<256, __half>::Traits::kBlockN;
    default:
      return 0;
  }
}

std::int64_t key_blocks(const AttnShape& shape) {
  const std::int64_t block = key_block(shape);
  return block == 0 ? 0 : (shape.seqlen_k + block - 1) / block;
}

bool splits_groups(const AttnShape& shape, bool deterministic) {
  return fa2_bwd_tiles::split_gqa_groups(deterministic, shape.causal,
                                         int(shape.heads_q / shape.heads_kv), shape.seqlen_q,
                                         int(shape.headdim));
}

// The workspace on a GPU of `multiprocessors` SMs (the deterministic variant's dQ slots depend on
// it).
bwd::WorkspaceLayout layout_for(const AttnShape& shape, bool deterministic, int multiprocessors) {
  const std::int64_t slots =
      deterministic ? fa2_bwd_tiles::deterministic_dq_slots(int(key_blocks(shape)),
                                                            shape.heads_kv * shape.batch,
                                                            multiprocessors, int(shape.headdim))
                    : 1;
  return bwd::workspace_layout(shape, slots, bwd::DqOrder::mma_tiles,
                               splits_groups(shape, deterministic));
}

// Launches fa2_bwd_kernel<T, Deterministic, SplitGroups>, its shared-memory limit raised on the
// first call.
template <class T, bool Deterministic, bool SplitGroups>
Status launch_kernel(const dim3 grid, const BwdParams& params, Stream stream) {
  const auto kernel = fa2_bwd_kernel<T, Deterministic, SplitGroups>;
  static const cudaError_t opt_in =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, T::kSharedBytes);
  if (Status status = cuda_status(opt_in, "fa2_bwd: raising the shared-memory limit"); !status)
    return status;
  kernel<<<grid, kThreads, T::kSharedBytes, stream>>>(params);
  return cuda_status(cudaGetLastError(), "fa2_bwd: kernel launch");
}

template <class T>
Status launch_main(const AttnShape& shape, const AttnBuffers& buffers,
                   const bwd::WorkspaceLayout& layout, bool deterministic, Stream stream) {
  const bwd::WorkspaceArrays arrays = bwd::workspace_arrays(layout, buffers.workspace);
  const double scale = 1.0 / std::sqrt(double(shape.headdim));
  const BwdParams params{.q = buffers.q,
                         .k = buffers.k,
                         .v = buffers.v,
                         .dout = buffers.dout,
                         .dk = layout.key_grad_partials ? arrays.dk_partials : buffers.dk,
                         .dv = layout.key_grad_partials ? arrays.dv_partials : buffers.dv,
                         .lse_log2 = arrays.lse_log2,
                         .d = arrays.d,
                         .dq_accum = arrays.dq_accum,
                         .dq_slot_floats = layout.dq_slot_floats,
                         .dq_slots = int(layout.dq_slots),
                         .seqlen_q = int(shape.seqlen_q),
                         .seqlen_k = int(shape.seqlen_k),
                         .rows_padded = int(layout.rows_padded),
                         .heads_q = int(shape.heads_q),
                         .heads_kv = int(shape.heads_kv),
                         .heads_per_kv_head = int(shape.heads_q / shape.heads_kv),
                         .causal = shape.causal,
                         .scale = float(scale)};
  // One row of blocks per kv head, or per query head where the groups are split: a block per key
  // block, or per dQ slot (deterministic).
  const std::int64_t row_heads = layout.key_grad_partials ? shape.heads_q : shape.heads_kv;
  const std::int64_t row_blocks = deterministic ? layout.dq_slots : key_blocks(shape);
  const dim3 grid(unsigned(row_blocks * row_heads * shape.batch));
  if constexpr (T::kHeadDim == fa2_bwd_tiles::kSplitGroupsHeadDim) {
    if (layout.key_grad_partials) return launch_kernel<T, false, true>(grid, params, stream);
  }
  return deterministic ? launch_kernel<T, true, false>(grid, params, stream)
                       : launch_kernel<T, false, false>(grid, params, stream);
}

template <typename Element>
Status launch_main_for_element(const AttnShape& shape, const AttnBuffers& buffers,
                               const bwd::WorkspaceLayout& layout, bool deterministic,
                               Stream stream) {
  switch (shape.headdim) {
    case 64:
      return launch_main<typename TilesFor<64, Element>::Traits>(shape, buffers, layout,
                                                                 deterministic, stream);
    case 128:
      return launch_main<typename TilesFor<128, Element>::Traits>(shape, buffers, layout,
                                                                  deterministic, stream);
    case 256:
      return launch_main<typename TilesFor<256, Element>::Traits>(shape, buffers, layout,
                                                                  deterministic, stream);
    default:
      return Error{"fa2_bwd: head dim " + std::to_string(shape.headdim) +
                   " has no tile configuration"};
  }
}

Status launch_passes(const AttnShape& shape, const AttnBuffers& buffers, bool deterministic,
                     Stream stream) {
  const Result<int> sms = current_device_sms("fa2_bwd");
  if (!sms) return sms.error();
  const bwd::WorkspaceLayout layout = layout_for(shape, deterministic, *sms);
  if (Status s = bwd::launch_preprocess(shape, buffers, layout, !deterministic, stream); !s)
    return s;
  const Status main =
      shape.dtype == Dtype::bf16
          ? launch_main_for_element<__nv_bfloat16>(shape, buffers, layout, deterministic, stream)
          : launch_main_for_element<__half>(shape, buffers, layout, deterministic, stream);
  if (!main) return main;
  if (layout.key_grad_partials)
    if (Status s = bwd::launch_group_reduce(shape, buffers, layout, stream); !s) return s;
  return bwd::launch_dq_convert(shape, buffers, layout, key_block(shape), stream);
}

Status launch(const AttnShape& shape, const AttnBuffers& buffers, Stream stream) {
  return launch_passes(shape, buffers, false, stream);
}
Status launch_deterministic(const AttnShape& shape, const AttnBuffers& buffers, Stream stream) {
  return launch_passes(shape, buffers, true, stream);
}

std::optional<std::string> unsupported_reason(const AttnShape& shape, const DeviceCaps&) {
  if (auto reason = unsupported_tiled_shape("fa2_bwd", shape)) return reason;
  if (key_blocks(shape) * shape.heads_q * shape.batch > std::numeric_limits<int>::max())
    return "fa2_bwd launches up to one thread block per key block, query head and batch: at most "
           "2^31 - 1";
  return std::nullopt;
}

// The deterministic variant's workspace holds its float32 dQ slots: refuse shapes where they would
// not fit in device memory (half of it, leaving room for the tensors).
std::optional<std::string> deterministic_unsupported_reason(const AttnShape& shape,
                                                            const DeviceCaps& device) {
  if (auto reason = unsupported_reason(shape, device)) return reason;
  const bwd::WorkspaceLayout layout = layout_for(shape, true, device.multiprocessors);
  if (layout.bytes > device.global_memory_bytes / 2)
    return "fa2_bwd_deterministic keeps " + std::to_string(layout.dq_slots) +
           " float32 copies of dQ: " + std::to_string(layout.bytes >> 20) +
           " MiB of workspace, over half of the device's " +
           std::to_string(device.global_memory_bytes >> 20) + " MiB";
  return std::nullopt;
}

std::size_t workspace_bytes(const AttnShape& shape, const DeviceCaps& device) {
  return layout_for(shape, false, device.multiprocessors).bytes;
}
std::size_t deterministic_workspace_bytes(const AttnShape& shape, const DeviceCaps& device) {
  return layout_for(shape, true, device.multiprocessors).bytes;
}

}  // namespace

extern const Kernel fa2_bwd_kernel;  // listed in registry.cpp
const Kernel fa2_bwd_kernel{
    .name = "fa2_bwd",
    .summary =
        "FlashAttention-2 backward: mma.sync, ldmatrix(.trans), cp.async; dQ by float32 "
        "atomics",
    .min_sm = 80,
    .unsupported_reason = unsupported_reason,
    .workspace_bytes = workspace_bytes,
    .launch = launch,
    .pass = Pass::bwd,
};

extern const Kernel fa2_bwd_deterministic_kernel;  // listed in registry.cpp
const Kernel fa2_bwd_deterministic_kernel{
    .name = "fa2_bwd_deterministic",
    .summary =
        "fa2_bwd with dQ in float32 slots, each filled in a fixed key-block order, summed in "
        "slot order: bitwise reproducible",
    .min_sm = 80,
    .unsupported_reason = deterministic_unsupported_reason,
    .workspace_bytes = deterministic_workspace_bytes,
    .launch = launch_deterministic,
    .pass = Pass::bwd,
};

}  // namespace fa4::kernels
