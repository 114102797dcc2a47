// Per-tile cycles on each unit (FA4 §3.1.1 and §3.2.1 for Blackwell; derived for the others).
// A tile is M query rows against N keys: one iteration of the kernel's inner loop.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "model/algorithm_traits.hpp"
#include "model/blocks.hpp"
#include "model/factors.hpp"
#include "model/model.hpp"
#include "model/predict_internal.hpp"

namespace fa4::model {
namespace {

constexpr double kFp32Bytes = 4;
constexpr double kTcgen05Rows = 128;  // tcgen05 MMA and TMEM are organised in 128-row blocks

// The MMA rate the algorithm's instructions reach: FA2's mma.sync runs below wgmma's on Hopper.
double mma_rate(const hw::Spec& gpu, Dtype dtype, Algorithm algorithm) {
  const double rate = gpu.mma_flop_per_clk(dtype);
  if (algorithm == Algorithm::fa2 && mma_sync_below_peak(gpu)) return rate * mma_sync_share(gpu);
  return rate;
}

// MMA cycles of one backward tile's five GEMMs (S = Q K^T, dP = dO V^T, dV = P^T dO, dK = dS^T Q,
// dQ = dS K), plus S once more per extra pass of the lab's fa3_bwd. An fp8 backward on Hopper
// runs at fp8's rate only the two GEMMs whose operands are both K-major (S and dP): wgmma's 8-bit
// forms take no transpose (PTX ISA, wgmma.mma_async: imm-trans-a and imm-trans-b exist for .f16
// and .bf16 only; FA3 §3.3 transposes V in the kernel for its fp8 forward), and dV, dK and dQ
// each reduce over the sequence, so one operand of each (dO, Q, K) is MN-major in memory. Those
// three are taken at the 16-bit rate: near what the record shows (cuDNN 9.19's fp8 backward on
// H200 is 1.05-1.18x its bf16 one, non-causal). Blackwell's tcgen05 takes 8-bit operands either
// way (FA4 runs its fp8 GEMMs at fp8's rate).
double backward_mma_cycles(const hw::Spec& gpu, const AttnShape& s, const Options& o, Tile t,
                           double again_columns) {
  const double m = t.m, n = t.n, d = double(s.headdim), dv = double(s.headdim_v);
  const double rate = mma_rate(gpu, s.dtype, o.algorithm);
  if (!(s.dtype == Dtype::fp8 && is_hopper(gpu)))
    return 2 * m * n * (3 * d + 2 * dv + again_columns) / rate;
  const double rate16 = mma_rate(gpu, Dtype::bf16, o.algorithm);
  return 2 * m * n * (d + dv + again_columns) / rate + 2 * m * n * (2 * d + dv) / rate16;
}

// Bytes read from and written to shared memory for one forward tile.
double forward_smem_bytes(const hw::Spec& gpu, const AttnShape& s, Algorithm algorithm, Tile t) {
  const double e = element_bytes(s.dtype);
  const double m = t.m, n = t.n, d = double(s.headdim), dv = double(s.headdim_v);
  switch (algorithm) {
    case Algorithm::naive: return 0;
    case Algorithm::fa2:  // every warp ldmatrix-reads the whole K and V tile; Q stays in registers
      return e * fa2_warps(s) * n * (d + dv);
    case Algorithm::fa3:
    case Algorithm::fa4:
      if (algorithm == Algorithm::fa4 && is_blackwell(gpu)) {
        // FA4 §3.1.1: Q K^T reads Q and K per 128x128 block; P V takes P from TMEM, V from SMEM.
        const double qk = ceil_div(m, kTcgen05Rows) * ceil_div(n, kTcgen05Rows) * 2 *
                          kTcgen05Rows * d;
        const double pv = ceil_div(m, kTcgen05Rows) * ceil_div(dv, kTcgen05Rows) *
                          kTcgen05Rows * n;
        return e * (qk + pv);
      }
      {
        // Hopper (derived; FA4 gives no Hopper SMEM model): each 64-row consumer warpgroup's
        // wgmma reads its Q rows and the whole K tile (SS); P V reads V (P from registers, RS).
        const double warpgroups = ceil_div(m, 64);
        return e * (m * d + warpgroups * n * (d + dv));
      }
  }
  return 0;
}

// Bytes through shared memory for one backward tile (five GEMMs: S=QK^T, dP=dO V^T, dV=P^T dO,
// dK=dS^T Q, dQ=dS K). FA4 §3.2.1 for Blackwell; Hopper and FA2 derived the same way with P and
// dS staged in shared memory (no tensor memory).
double backward_smem_bytes(const hw::Spec& gpu, const AttnShape& s, Algorithm algorithm, Tile t,
                           bool two_cta, bool split_dq) {
  const double e = element_bytes(s.dtype);
  const double m = t.m, n = t.n, d = double(s.headdim), dv = double(s.headdim_v);
  if (algorithm == Algorithm::naive) return 0;
  const double q_side = 2 * m * d + 2 * m * dv;  // Q twice (S, dK), dO twice (dP, dV)
  const double k_side = 2 * n * d + n * dv;      // K twice (S, dQ), V once (dP)
  // fp32 dQ written and read back; FA4's split backward keeps dQ in tensor memory instead, and
  // its dQ kernel reads Q, K (S) and dO, V (dP) again.
  const double dq_accumulate = split_dq ? 0 : 2 * kFp32Bytes * m * d;
  const double q_again = split_dq ? m * (d + dv) : 0, k_again = split_dq ? n * (d + dv) : 0;
  if (algorithm == Algorithm::fa4 && is_blackwell(gpu)) {
    if (!two_cta)
      return e * (q_side + q_again + k_side + k_again + m * n) + e * m * n + dq_accumulate;
    // 2-CTA: the pair splits the M-side operand reads and the dQ traffic; it exchanges dS
    // (1.5 * M*N elements per CTA, FA4 §3.2.1's figure scaled with M*N).
    constexpr double kDsExchangeElements = 1.5;
    return e * ((q_side + q_again) / 2 + k_side + k_again + m * n) + e * m * n +
           e * kDsExchangeElements * m * n + dq_accumulate / 2;
  }
  // P read once (dV), dS read twice (dK, dQ); P and dS written.
  const double bytes = e * (q_side + k_side + 3 * m * n) + e * 2 * m * n + dq_accumulate;
  if (algorithm != Algorithm::fa2) return bytes;
  // FA2's warps: on Hopper our fa2_bwd's warp grids, elsewhere the re-read factor fitted to
  // PyTorch's flash backward.
  const double rereads = is_hopper(gpu)
                             ? factors::entry(internal::fa2_backward_rereads(s.headdim, t).id).value
                             : factors::kFa2BackwardSmemRereads;
  return bytes * rereads;
}

}  // namespace

Result<TileCycles> tile_cycles(const hw::Spec& gpu, const AttnShape& s, const Options& o,
                               Tile t) {
  if (auto reason = unsupported_reason(gpu, o.algorithm)) return Error{*reason};
  if (o.two_cta && !(o.algorithm == Algorithm::fa4 && o.pass == Pass::bwd && is_blackwell(gpu)))
    return Error{
        fmt::format("--two-cta is FA4's backward on Blackwell (tcgen05 cta_group::2); "
                    "{} {} on {} has no 2-CTA mode: drop it or model fa4 --pass bwd on "
                    "a Blackwell GPU",
                    to_string(o.algorithm), to_string(o.pass), gpu.name)};
  const double rate = mma_rate(gpu, s.dtype, o.algorithm);
  if (rate <= 0)
    return Error{fmt::format("{} has no tensor-core rate for {}: pick another --dtype", gpu.name,
                             to_string(s.dtype))};
  const double m = t.m, n = t.n, d = double(s.headdim), dv = double(s.headdim_v);
  const double elements = m * n;
  const auto& sm = gpu.per_sm;
  TileCycles c;
  if (o.pass == Pass::fwd) {
    const double share = o.algorithm == Algorithm::fa4
                             ? o.exp_emulation.value_or(default_exp_emulation(gpu, o.algorithm))
                             : 0.0;
    const bool conditional = o.algorithm == Algorithm::fa4 && o.conditional_rescale.value_or(true);
    const double rescale_share = conditional ? factors::kConditionalRescaleShare : 1.0;
    c.mma = 2 * m * n * (d + dv) / rate;
    c.exp_mufu = elements * (1 - share) / sm.mufu_ex2_per_clk;
    c.exp_fma = elements * share * factors::kFmaOpsPerEmulatedExp2 / sm.fma_lanes_per_clk;
    // The issue stream (factors.def, kIssueLanesPerClkPerSm): the FP32 pipe's work, plus the
    // emulated exp2's ALU instructions and one issue slot per exp2 sent to MUFU.
    const double issue_only = elements * (share * factors::kAluOpsPerEmulatedExp2 + (1 - share)) /
                              factors::kIssueLanesPerClkPerSm;
    // The row max the tensor-memory load returns, on the blocks the mask does not cross.
    const double loaded_max = row_max_on_load(gpu, s, o) ? 1 - forward_masked_block_share(s, t) : 0;
    const double softmax_ops =
        factors::kSoftmaxFmaOpsPerElement - loaded_max * factors::kRowMaxOpsPerElement;
    c.fma = (elements * softmax_ops + rescale_share * m * dv) / sm.fma_lanes_per_clk + c.exp_fma +
            issue_only;
    c.smem = forward_smem_bytes(gpu, s, o.algorithm, t) / sm.smem_bytes_per_clk;
    if (o.algorithm == Algorithm::fa4 && is_blackwell(gpu))  // S read, P written, O rescaled
      c.tmem_bytes = elements * (kFp32Bytes + element_bytes(s.dtype)) +
                     rescale_share * 2 * kFp32Bytes * m * dv;
  } else {
    // What a second pass or kernel computes again (algorithm_traits.hpp): the lab's fa3_bwd above
    // hd128 (S and P once more, with their exp2 and FFMA), FA4's split hd256 backward (S, dP, P
    // and dS in each of its two kernels).
    const BackwardRecompute again = backward_recompute(s, o);
    c.mma = backward_mma_cycles(gpu, s, o, t, again.gemm_columns);
    c.exp_mufu = (1 + again.softmax_passes) * elements / sm.mufu_ex2_per_clk;
    const double fp8_scaling =
        s.dtype == Dtype::fp8 ? factors::kFp8BackwardExtraFmaOpsPerElement : 0.0;
    // The issue stream, as the forward's: the FP32 pipe's work and one slot per exp2 to MUFU.
    const double fma_ops =
        factors::kBackwardFmaOpsPerElement + fp8_scaling + again.fma_ops_per_element;
    c.fma = elements * fma_ops / sm.fma_lanes_per_clk +
            (1 + again.softmax_passes) * elements / factors::kIssueLanesPerClkPerSm;
    c.smem = backward_smem_bytes(gpu, s, o.algorithm, t, o.two_cta, o.split_dq_backward) /
             sm.smem_bytes_per_clk;
    if (o.algorithm == Algorithm::fa4 && is_blackwell(gpu))  // S, dP written and read; P, dS
      c.tmem_bytes = elements * (4 * kFp32Bytes + 2 * element_bytes(s.dtype));
  }
  // The tile's bottleneck at the units' own rates (FA4's Table 1 convention); exp on MUFU wins a
  // tie with MMA, as FA4 argues for B200 at hd128.
  c.bottleneck = Unit::exp_mufu;
  for (Unit u : {Unit::mma, Unit::fma, Unit::smem})
    if (c.of(u) > c.of(c.bottleneck)) c.bottleneck = u;
  return c;
}

}  // namespace fa4::model
