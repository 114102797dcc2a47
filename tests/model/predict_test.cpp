// Whole-kernel behaviour of the model: conventions, monotonic effects and refusals.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "gpu_models.hpp"
#include "model/algorithm_traits.hpp"
#include "model/factors.hpp"
#include "model/model.hpp"

namespace fa4::model {
namespace {

using testing::at_peak_clock;
using testing::gpu;
using testing::square;

Prediction run(const hw::Spec& spec, Algorithm a, const AttnShape& s, Options o = {}) {
  o.algorithm = a;
  auto p = predict(spec, s, o);
  if (!p) throw std::runtime_error(p.error().message);
  return *p;
}

Prediction run(std::string_view id, Algorithm a, const AttnShape& s, Options o = {}) {
  return run(gpu(id), a, s, o);
}

// The value a prediction reports for a factor, or -1 where it reports none.
double reported_value(const Prediction& p, factors::Id factor) {
  for (const auto& f : p.factors)
    if (f.name == factors::entry(factor).reported.name) return f.value;
  return -1;
}

// Why the model refuses `a` with options `o` on the shape, or nothing where it predicts.
std::string refusal(std::string_view id, Algorithm a, const AttnShape& s, Options o) {
  o.algorithm = a;
  const auto p = predict(gpu(id), s, o);
  return p.ok() ? std::string() : p.error().message;
}

TEST(Predict, FlopsFollowTheConvention) {
  const Prediction p = run("h100-sxm", Algorithm::fa3, square(2, 16, 4096, 128, true));
  EXPECT_DOUBLE_EQ(p.flops, 4.0 * 2 * 16 * 4096.0 * 4096 * 128 / 2);
  EXPECT_NEAR(p.tflops, p.flops / p.time_s / 1e12, 1e-9);
  EXPECT_NEAR(p.fraction_of_peak, p.tflops * 1e12 / gpu("h100-sxm").peak_flops(Dtype::bf16), 1e-12);
}

TEST(Predict, H100IsTensorBoundAndB200ExpBoundAtHd64) {
  EXPECT_EQ(run("h100-sxm", Algorithm::fa3, square(4, 16, 8192, 128)).bottleneck, Unit::mma);
  Options no_emulation;
  no_emulation.exp_emulation = 0.0;
  EXPECT_EQ(run("b200", Algorithm::fa4, square(4, 32, 8192, 64), no_emulation).bottleneck,
            Unit::exp_mufu);
}

// At FA4's default share (12.5%); far beyond it the FP32 pipe's issue stream binds instead.
TEST(Predict, EmulationHelpsWhereExpBinds) {
  Options off, on;
  off.exp_emulation = 0.0;
  on.exp_emulation = 0.125;
  const AttnShape s = square(4, 32, 8192, 64);
  EXPECT_GT(run("b200", Algorithm::fa4, s, on).tflops, run("b200", Algorithm::fa4, s, off).tflops);
}

// FA4 §3.1: B200's hd128 forward is exp-bound (MMA and exp2 1024 cycles each per 128x128 tile),
// so each of FA4's softmax techniques gains time there: software exp2 at FA4's default share over
// none, conditional rescaling over rescaling every tile.
TEST(Predict, Fa4TechniquesGainOnB200Hd128) {
  const AttnShape s = square(4, 16, 8192, 128);
  Options plain, emulated, every_tile_rescaled;
  plain.exp_emulation = 0.0;
  every_tile_rescaled.conditional_rescale = false;
  const double with_both = run("b200", Algorithm::fa4, s, emulated).time_s;
  EXPECT_LT(with_both, 0.98 * run("b200", Algorithm::fa4, s, plain).time_s);
  EXPECT_LT(with_both, 0.98 * run("b200", Algorithm::fa4, s, every_tile_rescaled).time_s);
}

TEST(Predict, LongerSequencesAmortizeOverheads) {
  EXPECT_LT(run("h200", Algorithm::fa2, square(32, 16, 512, 128)).tflops,
            run("h200", Algorithm::fa2, square(2, 16, 8192, 128)).tflops);
}

TEST(Predict, ShorterKeysThanQueriesLeaveRowsMaskedAndCountFewerTiles) {
  AttnShape s = square(1, 16, 4096, 128, true);
  s.seqlen_k = 1024;
  const Prediction p = run("h100-sxm", Algorithm::fa3, s);
  const Prediction full = run("h100-sxm", Algorithm::fa3, square(1, 16, 4096, 128, true));
  EXPECT_LT(p.tiles, full.tiles);
  EXPECT_GT(p.time_s, 0);
}

// A sliding window of 1024 keys with 128 x 128 tiles: query block i visits key blocks i - 8 .. i
// (its first rows reach back into block i - 8), the first eight blocks i + 1 of them: 36 + 24 * 9
// tiles a head at s4096. The backward visits the same band from the keys' side.
TEST(Predict, ASlidingWindowVisitsOnlyTheBlocksOfItsBand) {
  AttnShape s = square(1, 16, 4096, 128, true);
  s.window = 1024;
  const Prediction p = run("h100-sxm", Algorithm::fa3, s);
  ASSERT_EQ(p.tile.m, 128);
  ASSERT_EQ(p.tile.n, 128);
  EXPECT_EQ(p.tiles, 16 * (36 + 24 * 9));
  EXPECT_DOUBLE_EQ(p.flops, attention_flops(s, Pass::fwd));
  const Prediction causal = run("h100-sxm", Algorithm::fa3, square(1, 16, 4096, 128, true));
  EXPECT_LT(p.time_s, causal.time_s);
  Options bwd;
  bwd.pass = Pass::bwd;
  const Prediction band = run("h100-sxm", Algorithm::fa3, s, bwd);
  const Prediction triangle = run("h100-sxm", Algorithm::fa3, square(1, 16, 4096, 128, true), bwd);
  EXPECT_LT(band.tiles, triangle.tiles);
  EXPECT_LT(band.time_s, triangle.time_s);
  s.window = 8192;  // wider than the sequence: the causal triangle's tiles
  EXPECT_EQ(run("h100-sxm", Algorithm::fa3, s).tiles, causal.tiles);
}

// An fp8 backward on Hopper runs S and dP at fp8's rate and dV, dK, dQ (an MN-major operand
// each, which 8-bit wgmma cannot take) at the 16-bit rate; on Blackwell all five at fp8's rate.
// Its scaling adds FP32 work per element either way.
TEST(Predict, Fp8BackwardRunsItsTransposedGemmsAtTheSixteenBitRateOnHopper) {
  Options bwd;
  bwd.pass = Pass::bwd;
  AttnShape s = square(1, 16, 4096, 128);
  const Prediction bf16 = run("h200", Algorithm::fa3, s, bwd);
  s.dtype = Dtype::fp8;
  const Prediction fp8 = run("h200", Algorithm::fa3, s, bwd);
  ASSERT_EQ(fp8.tile.m, bf16.tile.m);
  ASSERT_EQ(fp8.tile.n, bf16.tile.n);
  EXPECT_NEAR(fp8.tile_cycles.mma, bf16.tile_cycles.mma * (2.0 / 5 / 2 + 3.0 / 5), 1e-6);
  EXPECT_GT(fp8.tile_cycles.fma, bf16.tile_cycles.fma);
  const Prediction b16 = run("b200", Algorithm::fa4, square(1, 16, 4096, 128), bwd);
  const Prediction b8 = run("b200", Algorithm::fa4, s, bwd);
  ASSERT_EQ(b8.tile.m, b16.tile.m);
  ASSERT_EQ(b8.tile.n, b16.tile.n);
  EXPECT_NEAR(b8.tile_cycles.mma, b16.tile_cycles.mma / 2, 1e-6);
}

// FA4's hd256 backward on Blackwell as its two kernels (Options::split_dq_backward): seven GEMMs of
// the five, every exp2 twice, and no float32 dQ buffer through shared memory.
TEST(Predict, SplitDqBackwardRecomputesScoresInItsSecondKernel) {
  Options pair;
  pair.pass = Pass::bwd;
  pair.two_cta = true;
  const AttnShape s = square(1, 16, 8192, 256);
  const Prediction fused = run("gb300", Algorithm::fa4, s, pair);
  pair.split_dq_backward = true;
  const Prediction split = run("gb300", Algorithm::fa4, s, pair);
  ASSERT_EQ(split.tile.m, fused.tile.m);
  ASSERT_EQ(split.tile.n, fused.tile.n);
  EXPECT_NEAR(split.tile_cycles.mma, fused.tile_cycles.mma * 7 / 5, 1e-6);
  EXPECT_NEAR(split.tile_cycles.exp_mufu, fused.tile_cycles.exp_mufu * 2, 1e-6);
  EXPECT_GT(split.tile_cycles.fma, fused.tile_cycles.fma);
  EXPECT_GT(split.time_s, 1.3 * fused.time_s);
  EXPECT_EQ(split.flops, fused.flops);
}

// FA4's split hd256 backward: the dK/dV kernel has one CTA per 64 keys and kv head, each walking
// its whole GQA group, so at GQA 32/2 and s2048 (64 CTAs on GB200's 148 SMs) its longest CTA, the
// first 64 keys through every query block of sixteen heads, sets its time; at MHA the same work
// spreads over sixteen times the CTAs.
TEST(Predict, SplitBackwardKeyKernelWalksEachGqaGroupInOneCta) {
  Options o;
  o.pass = Pass::bwd;
  o.two_cta = o.split_dq_backward = o.single_tile_grid = true;
  AttnShape gqa = square(1, 32, 2048, 256);
  gqa.heads_kv = 2;
  gqa.causal = true;
  const Prediction p = run("gb200", Algorithm::fa4, gqa, o);
  const double query_blocks = std::ceil(2048.0 / p.tile.m);
  const double longest_key_cta = 16 * query_blocks * split_backward_key_kernel_share(gqa) *
                                 p.tile_time_cycles * kSplitBackwardDkDvCtaKeys / p.tile.n;
  EXPECT_GE(p.main_kernel_s * gpu("gb200").peak_clock_mhz * 1e6, longest_key_cta);
  AttnShape mha = gqa;
  mha.heads_kv = 32;
  EXPECT_GT(p.main_kernel_s, 2 * run("gb200", Algorithm::fa4, mha, o).main_kernel_s);
  // FA4's hd256 backward kernels only, without deterministic mode (they have none).
  const std::string_view kRefused = "the split dQ backward is FA4's hd256 backward on Blackwell";
  Options forward = o;
  forward.pass = Pass::fwd;
  forward.two_cta = false;
  EXPECT_THAT(refusal("gb200", Algorithm::fa4, gqa, forward), ::testing::HasSubstr(kRefused));
  Options deterministic = o;
  deterministic.deterministic = true;
  EXPECT_THAT(refusal("gb200", Algorithm::fa4, gqa, deterministic),
              ::testing::HasSubstr(kRefused));
  Options hopper = o;
  hopper.two_cta = hopper.single_tile_grid = false;
  EXPECT_THAT(refusal("h200", Algorithm::fa3, gqa, hopper), ::testing::HasSubstr(kRefused));
}

// FA4's hd192/128 backward on Blackwell (Options::shared_tmem_columns_backward): each step waits
// kFa4SharedTmemColumnsStepCycles for the tensor-memory columns its S/P shares with dP/dS; the
// units' cycles stay, the factor is reported, and Hopper has no tensor memory to share.
TEST(Predict, SharedTensorMemoryColumnsAddAWaitPerStep) {
  Options pair;
  pair.pass = Pass::bwd;
  pair.two_cta = true;
  AttnShape s = square(1, 16, 8192, 192);
  s.headdim_v = 128;
  const Prediction own = run("gb200", Algorithm::fa4, s, pair);
  pair.shared_tmem_columns_backward = true;
  const Prediction shared = run("gb200", Algorithm::fa4, s, pair);
  EXPECT_DOUBLE_EQ(shared.tile_cycles.mma, own.tile_cycles.mma);
  EXPECT_DOUBLE_EQ(shared.tile_time_cycles,
                   own.tile_time_cycles + factors::kFa4SharedTmemColumnsStepCycles);
  EXPECT_GT(shared.time_s, own.time_s);
  EXPECT_TRUE(std::ranges::any_of(shared.factors, [](const auto& f) {
    return f.name == factors::entry(factors::Id::kFa4SharedTmemColumnsStepCycles).reported.name;
  }));
  Options hopper;
  hopper.pass = Pass::bwd;
  const Prediction h = run("h200", Algorithm::fa4, s, hopper);
  hopper.shared_tmem_columns_backward = true;
  EXPECT_DOUBLE_EQ(run("h200", Algorithm::fa4, s, hopper).time_s, h.time_s);
}

// Blackwell Ultra's forward tensor stream (MMA and the shared-memory port feeding it) runs at
// kBlackwellUltraForwardTensorShare, the B200 family's at gemm_efficiency; Ultra's softmax stream
// and its backward keep the sustained share.
TEST(Predict, BlackwellUltraForwardTensorStreamHasItsOwnShare) {
  const AttnShape s = square(2, 128, 8192, 192);
  for (std::string_view id : {"gb300", "b300", "gb200"}) {
    SCOPED_TRACE(id);
    const hw::Spec& g = gpu(id);
    const bool ultra = g.architecture == hw::Architecture::blackwell_ultra;
    const double share = ultra ? factors::kBlackwellUltraForwardTensorShare : g.gemm_efficiency;
    const Prediction fwd = run(id, Algorithm::fa4, s);
    EXPECT_NEAR(fwd.tensor_stream_cycles,
                std::max(fwd.tile_cycles.mma, fwd.tile_cycles.smem) / share, 1e-9);
    const double softmax = std::max(fwd.tile_cycles.exp_mufu,
                                    fwd.tile_cycles.fma / factors::kBlackwellSoftmaxIssueShare);
    EXPECT_NEAR(fwd.softmax_stream_cycles, softmax / g.gemm_efficiency, 1e-9);
    const bool reported =
        std::any_of(fwd.factors.begin(), fwd.factors.end(), [](const Factor& f) {
          return f.name == factors::entry(factors::Id::kBlackwellUltraForwardTensorShare).reported.name;
        });
    EXPECT_EQ(reported, ultra);
    Options bwd;
    bwd.pass = Pass::bwd;
    const Prediction b = run(id, Algorithm::fa4, s, bwd);
    EXPECT_NEAR(b.tensor_stream_cycles,
                std::max(b.tile_cycles.mma / g.gemm_efficiency, b.tile_cycles.smem), 1e-9);
  }
  // On one dense peak GB300's tensor-bound forward runs the shares' ratio faster than GB200's.
  EXPECT_GT(run("gb300", Algorithm::fa4, s).tflops, 1.15 * run("gb200", Algorithm::fa4, s).tflops);
}

// Blackwell Ultra's tensor-memory load returns each row's max (tcgen05.ld.red): FA4's forward
// there skips its FMNMX on the blocks the mask does not cross, by default; elsewhere, and for
// other kernels and passes, the option is refused.
TEST(Predict, UltraRowMaxFromTheLoadSkipsTheFmnmxOnUnmaskedBlocks) {
  const AttnShape dense = square(2, 32, 8192, 64);
  Options software;
  software.row_max_on_load = false;
  const Prediction loaded = run("gb300", Algorithm::fa4, dense);
  const Prediction computed = run("gb300", Algorithm::fa4, dense, software);
  EXPECT_TRUE(loaded.row_max_on_load);
  EXPECT_FALSE(computed.row_max_on_load);
  const double elements = double(loaded.tile.m) * loaded.tile.n;
  EXPECT_NEAR(computed.tile_cycles.fma - loaded.tile_cycles.fma,
              elements * factors::kRowMaxOpsPerElement / gpu("gb300").per_sm.fma_lanes_per_clk,
              1e-9);
  EXPECT_GT(loaded.tflops, 1.1 * computed.tflops);  // hd64: the softmax stream binds
  // Under a 128-key window every block the band touches is masked: nothing to skip.
  AttnShape band = square(2, 32, 8192, 64, true);
  band.window = 128;
  EXPECT_DOUBLE_EQ(run("gb300", Algorithm::fa4, band).tile_cycles.fma,
                   run("gb300", Algorithm::fa4, band, software).tile_cycles.fma);
  EXPECT_FALSE(run("gb200", Algorithm::fa4, dense).row_max_on_load);
  Options loaded_max;
  loaded_max.row_max_on_load = true;
  loaded_max.algorithm = Algorithm::fa4;
  const auto b200 = predict(gpu("b200"), dense, loaded_max);
  ASSERT_FALSE(b200.ok());
  EXPECT_THAT(b200.error().message, ::testing::HasSubstr("Blackwell Ultra"));
  loaded_max.pass = Pass::bwd;
  const auto backward = predict(gpu("gb300"), dense, loaded_max);
  ASSERT_FALSE(backward.ok());
  EXPECT_THAT(backward.error().message, ::testing::HasSubstr("fa4 bwd has none"));
  loaded_max.pass = Pass::fwd;
  loaded_max.algorithm = Algorithm::fa3;
  const auto fa3 = predict(gpu("h200"), dense, loaded_max);
  ASSERT_FALSE(fa3.ok());
  EXPECT_THAT(fa3.error().message, ::testing::HasSubstr("fa3 fwd has none"));
  // FA4 keeps the software max where it pads the head dim to 32.
  EXPECT_FALSE(run("gb300", Algorithm::fa4, square(2, 32, 8192, 32)).row_max_on_load);
  EXPECT_FALSE(run("gb300", Algorithm::fa4, square(2, 32, 8192, 24)).row_max_on_load);
  EXPECT_TRUE(run("gb300", Algorithm::fa4, square(2, 32, 8192, 48)).row_max_on_load);
}

// A persistent backward on Blackwell (FA4's, cuDNN's as the model takes it) runs a
// preprocessing and a dQ conversion launch beside its main kernel, as on Hopper: their bytes at
// the GPU's bandwidth and their launches add to the main kernel's time. FA4's split hd256
// kernels keep dQ in tensor memory and run the preprocessing alone (their second kernel, dK and
// dV's, is one more launch).
TEST(Predict, BlackwellBackwardRunsItsSideLaunchesAfterTheMainKernel) {
  Options o;
  o.pass = Pass::bwd;
  AttnShape s = square(2, 128, 32768, 64, true);
  s.window = 128;
  const hw::Spec& gb200 = gpu("gb200");
  const double bandwidth = gb200.hbm_bytes_per_s * gb200.copy_efficiency;
  const double rows = 2.0 * 128 * 32768, e = 2, fp32 = 4;
  const double preprocessing = 2 * rows * 64 * e + 2 * fp32 * rows;  // O, dO in; D, LSE out
  const double accumulator = fp32 * rows * 64;                        // zeroed, then read back
  const Prediction p = run("gb200", Algorithm::fa4, s, o);
  EXPECT_NEAR(p.time_s - p.main_kernel_s,
              (preprocessing + 2 * accumulator + rows * 64 * e) / bandwidth +
                  3 * factors::kLaunchOverheadSeconds,
              1e-9);
  o.two_cta = o.split_dq_backward = true;
  const Prediction split = run("gb200", Algorithm::fa4, square(1, 16, 8192, 256), o);
  const double split_rows = 16.0 * 8192;
  EXPECT_NEAR(split.time_s - split.main_kernel_s,
              (2 * split_rows * 256 * e + 2 * fp32 * split_rows) / bandwidth +
                  3 * factors::kLaunchOverheadSeconds,  // the preprocessing, the second kernel
              1e-9);
}

// FA4's own backward on Blackwell (Options::single_tile_grid) launches one CTA per key block:
// each pays kFa4SingleTileCtaCycles more, and on the 2-CTA pair up to hd128
// kFa4BackwardSeparateColumnsOverlap of the shorter stream hides; on one CTA (whose dQ shares
// dP's tensor-memory columns), at hd192/128 (shared columns) and in the split hd256 kernels none
// does. Its forward's single-tile CTAs pay kFa4ForwardSingleTileCtaCycles and hide nothing more.
// The CTA costs are checked at the peak clock. Not a Hopper option.
TEST(Predict, Fa4SingleTileBackwardPaysPerCtaAndHidesWhereItsColumnsAreItsOwn) {
  Options plain;
  plain.pass = Pass::bwd;
  plain.two_cta = true;
  Options own = plain;
  own.single_tile_grid = true;
  const AttnShape s = square(1, 32, 8192, 128);
  const Prediction p = run("gb200", Algorithm::fa4, s, own);
  const double longer = std::max(p.tensor_stream_cycles, p.softmax_stream_cycles);
  const double shorter = std::min(p.tensor_stream_cycles, p.softmax_stream_cycles);
  EXPECT_NEAR(p.tile_time_cycles,
              longer + (1 - factors::kFa4BackwardSeparateColumnsOverlap) * shorter, 1e-6);
  EXPECT_LT(p.time_s, run("gb200", Algorithm::fa4, s, plain).time_s);
  Options one_cta = own;
  one_cta.two_cta = false;
  const Prediction single = run("gb200", Algorithm::fa4, s, one_cta);
  EXPECT_NEAR(single.tile_time_cycles,
              std::max(single.tensor_stream_cycles, single.softmax_stream_cycles) +
                  std::min(single.tensor_stream_cycles, single.softmax_stream_cycles),
              1e-6);
  EXPECT_GT(single.time_s, p.time_s);

  const hw::Spec gb200 = at_peak_clock("gb200");
  AttnShape hd256 = square(1, 32, 8192, 256);
  own.split_dq_backward = plain.split_dq_backward = true;
  const Prediction split_own = run(gb200, Algorithm::fa4, hd256, own);
  const Prediction split_plain = run(gb200, Algorithm::fa4, hd256, plain);
  EXPECT_DOUBLE_EQ(split_own.tile_time_cycles, split_plain.tile_time_cycles);
  // Two kernels of equal CTAs (no mask) run in whole waves, each CTA longer by the cost: the
  // dK/dV kernel's one per kSplitBackwardDkDvCtaKeys keys and kv head, the dQ kernel's one per
  // query block and query head.
  const double slots = split_own.ctas / split_own.waves;
  const double key_ctas = std::ceil(8192.0 / kSplitBackwardDkDvCtaKeys) * 32;
  const double query_ctas = std::ceil(8192.0 / split_own.tile.m) * 32;
  ASSERT_DOUBLE_EQ(split_own.ctas, key_ctas + query_ctas);
  const double per_sm = slots / gpu("gb200").sms;
  EXPECT_NEAR((split_own.main_kernel_s - split_plain.main_kernel_s) * gpu("gb200").peak_clock_mhz *
                  1e6,
              (std::ceil(key_ctas / slots) + std::ceil(query_ctas / slots)) *
                  factors::kFa4SingleTileCtaCycles * per_sm,
              1e-3);
  EXPECT_TRUE(std::ranges::any_of(split_own.factors, [](const auto& f) {
    return f.name == factors::entry(factors::Id::kFa4SingleTileCtaCycles).reported.name;
  }));

  Options forward;
  forward.single_tile_grid = true;
  const Prediction fwd_own = run(gb200, Algorithm::fa4, s, forward);
  const Prediction fwd_plain = run(gb200, Algorithm::fa4, s);
  EXPECT_DOUBLE_EQ(fwd_own.tile_time_cycles, fwd_plain.tile_time_cycles);
  const double fwd_per_sm = fwd_own.ctas / (fwd_own.waves * gpu("gb200").sms);
  EXPECT_NEAR((fwd_own.main_kernel_s - fwd_plain.main_kernel_s) * gpu("gb200").peak_clock_mhz * 1e6,
              std::ceil(fwd_own.waves) * factors::kFa4ForwardSingleTileCtaCycles * fwd_per_sm,
              1e-3);
  EXPECT_TRUE(std::ranges::any_of(fwd_own.factors, [](const auto& f) {
    return f.name == factors::entry(factors::Id::kFa4ForwardSingleTileCtaCycles).reported.name;
  }));
  Options hopper;
  hopper.pass = Pass::bwd;
  hopper.single_tile_grid = true;
  EXPECT_FALSE(predict(gpu("h200"), s, hopper).ok());
}

// A persistent kernel that takes its tiles in a fixed order (Options::fixed_order_tiles) ends a
// causal launch kFixedOrderTailShare of its longest CTA after the fluid bound, where the
// longest-first schedule ends within kLongestFirstTailShare of its shortest; equal (unmasked)
// tiles run in whole waves either way.
TEST(Predict, FixedOrderTilesEndACausalLaunchAfterItsLongestCta) {
  Options fixed;
  fixed.fixed_order_tiles = true;
  const AttnShape causal = square(1, 64, 2048, 128, true);
  const Prediction lpt = run("h200", Algorithm::fa3, causal);
  const Prediction ordered = run("h200", Algorithm::fa3, causal, fixed);
  const double cycles_per_s = gpu("h200").peak_clock_mhz * 1e6;
  const double longest_cta = 16 * lpt.tile_time_cycles +
                             factors::kHopperPersistentTileOverheadCycles;  // 16 key blocks
  const double shortest_cta = lpt.tile_time_cycles + factors::kHopperPersistentTileOverheadCycles;
  EXPECT_NEAR((ordered.main_kernel_s - lpt.main_kernel_s) * cycles_per_s,
              factors::kFixedOrderTailShare * longest_cta -
                  factors::kLongestFirstTailShare * shortest_cta,
              1e-3);
  const AttnShape dense = square(1, 64, 2048, 128);
  EXPECT_DOUBLE_EQ(run("h200", Algorithm::fa3, dense, fixed).time_s,
                   run("h200", Algorithm::fa3, dense).time_s);
}

// cuDNN's fp8 causal backward on Hopper (Options::dq_adds_spill_l2): each query row's dQ adds
// beyond kSpilledDqAddBandKeys of its diagonal cost kSpilledDqAddHbmBytesPerElement of HBM per dQ
// element, moved at kSpilledDqAddBandwidthShare of the copy rate. At s32768 that traffic (about 340
// GB for 64 heads) outlasts the tiles and sets the main kernel's time; at s2048 the tiles still do;
// below kSpilledDqAddMinQueryHeads query heads, or under a window no wider than the band, nothing
// spills. The option belongs to a fused causal fp8 backward on Hopper.
TEST(Predict, SpilledDqAddsBoundCudnnFp8CausalBackwardOnHopper) {
  Options plain;
  plain.pass = Pass::bwd;
  Options spilled = plain;
  spilled.dq_adds_spill_l2 = true;
  AttnShape s = square(1, 64, 32768, 128, true);
  s.heads_kv = 8;
  s.dtype = Dtype::fp8;
  const Prediction before = run("h200", Algorithm::fa3, s, plain);
  const Prediction after = run("h200", Algorithm::fa3, s, spilled);
  const hw::Spec& h200 = gpu("h200");
  const double band = factors::kSpilledDqAddBandKeys;
  const double keys_beyond = 64 * (32768 - band) * (32768 - band) / 2;  // the pairs' area
  const double bytes = keys_beyond * 128 * factors::kSpilledDqAddHbmBytesPerElement;
  EXPECT_NEAR(bytes, 340e9, 10e9);
  const double bandwidth = h200.hbm_bytes_per_s * h200.copy_efficiency;
  const double cycles_per_s = h200.peak_clock_mhz * 1e6;
  const double hbm_s_before = before.tile_cycles.hbm * before.tiles / (h200.sms * cycles_per_s);
  EXPECT_EQ(after.bottleneck, Unit::hbm);
  EXPECT_NEAR(after.main_kernel_s,
              hbm_s_before + bytes / (bandwidth * factors::kSpilledDqAddBandwidthShare), 1e-9);
  EXPECT_GT(after.main_kernel_s, 1.5 * before.main_kernel_s);
  auto reports_band = [](const Prediction& p) {
    return std::ranges::any_of(p.factors, [](const auto& f) {
      return f.name == factors::entry(factors::Id::kSpilledDqAddBandKeys).reported.name;
    });
  };
  EXPECT_TRUE(reports_band(after));
  AttnShape few_heads = s;
  few_heads.heads_q = 32;
  few_heads.heads_kv = 4;
  const Prediction few = run("h200", Algorithm::fa3, few_heads, spilled);
  EXPECT_DOUBLE_EQ(few.main_kernel_s, run("h200", Algorithm::fa3, few_heads, plain).main_kernel_s);
  EXPECT_FALSE(reports_band(few));
  AttnShape narrow = s;
  narrow.window = std::int64_t(band);
  EXPECT_DOUBLE_EQ(run("h200", Algorithm::fa3, narrow, spilled).main_kernel_s,
                   run("h200", Algorithm::fa3, narrow, plain).main_kernel_s);
  s.seqlen_q = s.seqlen_k = 2048;
  EXPECT_DOUBLE_EQ(run("h200", Algorithm::fa3, s, spilled).main_kernel_s,
                   run("h200", Algorithm::fa3, s, plain).main_kernel_s);
  const std::string_view kRefused = "the L2-missing dQ adds are cuDNN's causal fp8 backward";
  EXPECT_THAT(refusal("gb200", Algorithm::fa4, s, spilled), ::testing::HasSubstr(kRefused));
  AttnShape bf16 = s;
  bf16.dtype = Dtype::bf16;
  EXPECT_THAT(refusal("h200", Algorithm::fa3, bf16, spilled), ::testing::HasSubstr(kRefused));
  s.causal = false;
  EXPECT_THAT(refusal("h200", Algorithm::fa3, s, spilled), ::testing::HasSubstr(kRefused));
  s.causal = true;
  spilled.pass = Pass::fwd;
  EXPECT_THAT(refusal("h200", Algorithm::fa3, s, spilled), ::testing::HasSubstr(kRefused));
}

// cuDNN's hd256 backward on Hopper (Options::serial_smem_mma): the tensor stream is the MMA at the
// sustained share plus the shared-memory traffic, not the longer of the two, and the tile longer by
// the shorter. The option belongs to fa3's backward on Hopper (not the lab's fa3_bwd schedule).
TEST(Predict, SerialSharedMemoryAddsToTheMmaOfAHopperBackwardTile) {
  Options plain;
  plain.pass = Pass::bwd;
  Options serial = plain;
  serial.serial_smem_mma = true;
  const AttnShape s = square(2, 8, 8192, 256);
  const hw::Spec& h200 = gpu("h200");
  const Prediction before = run("h200", Algorithm::fa3, s, plain);
  const Prediction after = run("h200", Algorithm::fa3, s, serial);
  const TileCycles& c = after.tile_cycles;
  EXPECT_NEAR(after.tensor_stream_cycles, c.mma / h200.gemm_efficiency + c.smem, 1e-9);
  EXPECT_NEAR(before.tensor_stream_cycles, std::max(c.mma / h200.gemm_efficiency, c.smem), 1e-9);
  EXPECT_NEAR(after.tile_time_cycles - before.tile_time_cycles,
              std::min(c.mma / h200.gemm_efficiency, c.smem), 1e-6);
  EXPECT_GT(after.time_s, 1.5 * before.time_s);
  const std::string_view kRefused = "the shared-memory traffic taken after the MMA is cuDNN's";
  EXPECT_THAT(refusal("gb200", Algorithm::fa4, s, serial), ::testing::HasSubstr(kRefused));
  EXPECT_THAT(refusal("h200", Algorithm::fa2, s, serial), ::testing::HasSubstr(kRefused));
  Options lab = serial;
  lab.group_walking_backward = DqAdd::tensor_reduce;
  EXPECT_THAT(refusal("h200", Algorithm::fa3, s, lab), ::testing::HasSubstr(kRefused));
  Options forward = serial;
  forward.pass = Pass::fwd;
  EXPECT_THAT(refusal("h200", Algorithm::fa3, s, forward), ::testing::HasSubstr(kRefused));
}

// PyTorch's flash backward's layout copies (Options::layout_copies): two launches more, each
// reading and writing a query-side tensor of b s_q h_q d_v elements at kLayoutCopyBandwidthShare
// of the HBM rate, after the kernels; the main kernel unchanged. Only a backward has them.
TEST(Predict, LayoutCopiesAddTwoQuerySideTensorsToABackwardCall) {
  Options plain;
  plain.pass = Pass::bwd;
  Options copies = plain;
  copies.layout_copies = true;
  AttnShape s = square(32, 16, 512, 128, true);
  s.seqlen_k = 2048;
  const hw::Spec& h200 = gpu("h200");
  const Prediction before = run("h200", Algorithm::fa2, s, plain);
  const Prediction after = run("h200", Algorithm::fa2, s, copies);
  const double tensor = 32.0 * 16 * 512 * 128 * 2;  // bytes, the query side's
  EXPECT_DOUBLE_EQ(after.main_kernel_s, before.main_kernel_s);
  EXPECT_NEAR(after.time_s - before.time_s,
              2 * 2 * tensor / (h200.hbm_bytes_per_s * factors::kLayoutCopyBandwidthShare) +
                  2 * factors::kLaunchOverheadSeconds,
              1e-12);
  // 185 us for the two on the lent H200 (the measurement the share comes from).
  EXPECT_NEAR(after.time_s - before.time_s, 185e-6, 15e-6);
  Options forward = copies;
  forward.pass = Pass::fwd;
  EXPECT_THAT(refusal("h200", Algorithm::fa2, s, forward),
              ::testing::HasSubstr("the layout copies are PyTorch's flash backward's"));
}

// FA4's deterministic backward under a window: its dQ semaphores chain a head's key blocks, and
// only the heads of one 50 MiB L2 section chain at once (factors.hpp, kFa4DqChainLinkSeconds):
// at s32768 hd64 a head is 16 MiB of Q, dO and accumulator, two heads a section; at s16384 four.
// The chain sets the main kernel's time, so the throughput falls as 1/s; without a window (many
// query blocks per CTA) the tiles outlast it.
TEST(Predict, Fa4DeterministicDqChainBoundsItsWindowedBackward) {
  Options o;
  o.pass = Pass::bwd;
  o.deterministic = o.single_tile_grid = true;
  AttnShape s = square(2, 128, 32768, 64, true);
  s.window = 128;
  const hw::Spec gb200 = at_peak_clock("gb200");  // the chain's seconds, not a clock's
  const Prediction s32k = run(gb200, Algorithm::fa4, s, o);
  EXPECT_NEAR(s32k.main_kernel_s, s32k.ctas * factors::kFa4DqChainLinkSeconds / 2, 1e-12);
  s.seqlen_q = s.seqlen_k = 16384;
  const Prediction s16k = run(gb200, Algorithm::fa4, s, o);
  EXPECT_NEAR(s16k.main_kernel_s, s16k.ctas * factors::kFa4DqChainLinkSeconds / 4, 1e-12);
  EXPECT_NEAR(s32k.tflops / s16k.tflops, 0.5, 0.02);
  const Prediction causal = run(gb200, Algorithm::fa4, square(2, 128, 32768, 64, true), o);
  EXPECT_GT(causal.main_kernel_s, 2 * causal.ctas * factors::kFa4DqChainLinkSeconds / 2);
}

// A deterministic backward's CTA waits for the dQ chain no longer than its key block walks query
// blocks (kDeterministicWaitTiles at most): under a 128-key window a key block of 128 walks two
// (the last one, one); causal at four query blocks, 2.5 on average; without a window at s2048 the
// rule's three tiles. The value reported is the one each CTA's overhead takes.
TEST(Predict, DeterministicWaitIsCappedByTheQueryBlocksAKeyBlockWalks) {
  Options o;
  o.pass = Pass::bwd;
  o.deterministic = o.single_tile_grid = true;
  const auto wait_tiles = [](const Prediction& p) {
    return reported_value(p, factors::Id::kDeterministicWaitTiles);
  };
  AttnShape s = square(2, 128, 2048, 64, true);
  s.window = 128;
  const Prediction windowed = run("gb200", Algorithm::fa4, s, o);
  ASSERT_EQ(windowed.tile.m, 128);
  ASSERT_EQ(windowed.tile.n, 128);
  const double key_blocks = 2048.0 / windowed.tile.n;
  EXPECT_DOUBLE_EQ(wait_tiles(windowed), (2 * (key_blocks - 1) + 1) / key_blocks);
  const Prediction short_causal = run("gb200", Algorithm::fa4, square(2, 128, 512, 64, true), o);
  ASSERT_EQ(short_causal.tile.m, 128);
  EXPECT_DOUBLE_EQ(wait_tiles(short_causal), (4 + 3 + 2 + 1) / 4.0);
  EXPECT_DOUBLE_EQ(wait_tiles(run("gb200", Algorithm::fa4, square(2, 128, 2048, 64, true), o)),
                   factors::kDeterministicWaitTiles);
  Options plain = o;
  plain.deterministic = false;
  EXPECT_GT(short_causal.main_kernel_s,
            run("gb200", Algorithm::fa4, square(2, 128, 512, 64, true), plain).main_kernel_s);
}

// A Blackwell board's launch starts at its boost clock and settles at its sustained share of it
// (hw::Spec::sustained_clock_share, factors.hpp kLaunchClockTimeConstantSeconds): a launch of tens
// of microseconds runs at the boost clock, one of half a second near the sustained clock, and in
// between the clock's integral over the launch does the cycles the peak clock does in its time
// (fa2: a grid of plain CTAs, all its time SM cycles). A model without the share (H200) keeps the
// peak clock.
TEST(Predict, LongLaunchesSettleAtTheSustainedClock) {
  const hw::Spec& gb200 = gpu("gb200");
  ASSERT_LT(gb200.sustained_clock_share, 1);
  const hw::Spec peak = at_peak_clock("gb200");
  const auto times = [&](const AttnShape& s) {
    return std::pair{run(gb200, Algorithm::fa2, s).main_kernel_s,
                     run(peak, Algorithm::fa2, s).main_kernel_s};
  };
  const double boost = gb200.boost_clock_mhz / gb200.peak_clock_mhz;
  const double sustained = gb200.sustained_clock_share * boost;
  const auto [short_s, short_peak_s] = times(square(1, 16, 2048, 128));
  ASSERT_LT(short_peak_s, 1e-4);
  EXPECT_NEAR(short_s / short_peak_s, 1 / boost, 0.002);
  const auto [long_s, long_peak_s] = times(square(8, 64, 65536, 128));
  ASSERT_GT(long_peak_s, 0.5);
  EXPECT_NEAR(long_s / long_peak_s, 1 / sustained, 0.01);
  const auto [t, peak_s] = times(square(2, 32, 16384, 128));
  const double tau = factors::kLaunchClockTimeConstantSeconds;
  EXPECT_NEAR(sustained * t + (boost - sustained) * tau * (1 - std::exp(-t / tau)), peak_s,
              1e-9 * peak_s);
  EXPECT_GT(t, peak_s / boost);
  // Without a share (H200) the boost clock plays no part: every launch keeps the peak clock.
  hw::Spec h200 = gpu("h200");
  ASSERT_EQ(h200.sustained_clock_share, 1);
  const AttnShape s = square(2, 32, 16384, 128);
  const double h200_s = run(h200, Algorithm::fa4, s).main_kernel_s;
  h200.boost_clock_mhz *= 2;
  EXPECT_EQ(run(h200, Algorithm::fa4, s).main_kernel_s, h200_s);
}

// FA4's deterministic backward below hd192 waits for each query block's dQ reduce-adds before it
// releases the block: a time per tile step, scaled by the head dim (the block's bytes). At hd192
// the plain kernel waits so too, and no step is added. Where the chain's wait is a small share of
// a CTA (256 query blocks a key block), the step sets the deterministic-over-plain time (at the
// peak clock, which the two launches would otherwise settle from differently).
TEST(Predict, Fa4DeterministicReduceWaitIsATimePerStepBelowHd192) {
  Options o;
  o.pass = Pass::bwd;
  o.deterministic = o.single_tile_grid = true;
  const auto step = [](const Prediction& p) {
    return reported_value(p, factors::Id::kFa4DeterministicReduceWaitCycles);
  };
  const hw::Spec gb200 = at_peak_clock("gb200");
  const AttnShape s = square(1, 40, 32768, 128);
  const Prediction hd128 = run(gb200, Algorithm::fa4, s, o);
  EXPECT_DOUBLE_EQ(step(hd128), factors::kFa4DeterministicReduceWaitCycles);
  EXPECT_DOUBLE_EQ(step(run("gb200", Algorithm::fa4, square(1, 40, 32768, 64), o)),
                   factors::kFa4DeterministicReduceWaitCycles / 2);
  AttnShape hd192 = square(1, 40, 32768, 192);
  hd192.headdim_v = 128;
  EXPECT_EQ(step(run("gb200", Algorithm::fa4, hd192, o)), -1.0);

  Options plain = o;
  plain.deterministic = false;
  const double ratio = hd128.main_kernel_s / run(gb200, Algorithm::fa4, s, plain).main_kernel_s;
  const double per_step = 1 + factors::kFa4DeterministicReduceWaitCycles / hd128.tile_time_cycles;
  EXPECT_GT(ratio, per_step);
  EXPECT_LT(ratio, per_step * 1.02);
}

// cuDNN's fixed time per tile step prices its backward pass alone.
TEST(Predict, CudnnDeterministicStepsAreABackwardOption) {
  Options o;
  o.algorithm = Algorithm::fa4;
  o.fixed_step_cost = true;
  EXPECT_FALSE(predict(gpu("gb200"), square(2, 16, 4096, 128), o).ok());
  o.pass = Pass::bwd;
  EXPECT_TRUE(predict(gpu("gb200"), square(2, 16, 4096, 128), o).ok());
}

TEST(Predict, GqaKeepsFlopsAndCutsBytes) {
  AttnShape gqa = square(2, 32, 4096, 128);
  gqa.heads_kv = 8;
  const Prediction a = run("h100-sxm", Algorithm::fa3, gqa);
  const Prediction b = run("h100-sxm", Algorithm::fa3, square(2, 32, 4096, 128));
  EXPECT_DOUBLE_EQ(a.flops, b.flops);
  EXPECT_LT(attention_min_hbm_bytes(gqa, Pass::fwd), attention_min_hbm_bytes(b.shape, Pass::fwd));
}

TEST(Predict, EveryHeadDimensionOfTheIssueRuns) {
  for (std::int64_t d : {64, 96, 128, 192, 256})
    for (Algorithm a : {Algorithm::fa2, Algorithm::fa3})
      for (Pass pass : {Pass::fwd, Pass::bwd}) {
        Options o;
        o.pass = pass;
        EXPECT_GT(run("h100-sxm", a, square(1, 8, 2048, d), o).tflops, 0) << d;
      }
  AttnShape dv = square(1, 8, 2048, 192);
  dv.headdim_v = 128;
  EXPECT_GT(run("b200", Algorithm::fa4, dv).tflops, 0);
}

TEST(Predict, NaiveIsHbmBoundAndRefusesWhatDoesNotFit) {
  EXPECT_EQ(run("h200", Algorithm::naive, square(2, 16, 8192, 128)).bottleneck, Unit::hbm);
  Options o;
  o.algorithm = Algorithm::naive;
  auto p = predict(gpu("h100-sxm"), square(64, 64, 65536, 128), o);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("GB for S and P"), std::string::npos);
}

TEST(Predict, RefusesAlgorithmsTheGpuCannotRun) {
  Options o;
  o.algorithm = Algorithm::fa3;
  auto p = predict(gpu("b200"), square(1, 16, 1024, 128), o);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("wgmma"), std::string::npos);
  o.algorithm = Algorithm::fa4;
  EXPECT_FALSE(predict(gpu("a100-sxm"), square(1, 16, 1024, 128), o).ok());
}

TEST(Predict, RefusesTilesThatDoNotFitSharedMemory) {
  Options o;
  o.algorithm = Algorithm::fa3;
  o.tile = Tile{256, 256};
  auto p = predict(gpu("h100-sxm"), square(1, 16, 1024, 256), o);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("shared memory"), std::string::npos);
}

TEST(Predict, RefusesEmulationOutsideFa4AndOutOfRange) {
  Options o;
  o.algorithm = Algorithm::fa3;
  o.exp_emulation = 0.5;
  EXPECT_FALSE(predict(gpu("h100-sxm"), square(1, 16, 1024, 128), o).ok());
  o.algorithm = Algorithm::fa4;
  o.exp_emulation = 1.5;
  EXPECT_FALSE(predict(gpu("h100-sxm"), square(1, 16, 1024, 128), o).ok());
}

TEST(ParseTile, AcceptsMxNOnly) {
  EXPECT_EQ(*parse_tile("128x176"), (Tile{128, 176}));
  EXPECT_FALSE(parse_tile("128").ok());
  EXPECT_FALSE(parse_tile("0x64").ok());
  EXPECT_FALSE(parse_tile("128x64x2").ok());
}

// The trace names every term a prediction paid beyond its algorithm's core, and none for the
// algorithm alone.
TEST(Predict, TheTraceNamesTheTermsPaid) {
  const AttnShape s = square(2, 16, 8192, 128);
  Options o;
  o.pass = Pass::bwd;
  EXPECT_TRUE(run("gb200", Algorithm::fa4, s, o).terms.empty());
  o.two_cta = true;
  o.single_tile_grid = true;
  o.deterministic = true;
  EXPECT_THAT(run("gb200", Algorithm::fa4, s, o).terms,
              ::testing::ElementsAre("deterministic kernel (dQ in a fixed order)", "2-CTA pair",
                                   "single-tile grid"));
  Options lab;
  lab.pass = Pass::bwd;
  lab.group_walking_backward = DqAdd::atomics;
  EXPECT_THAT(run("h200", Algorithm::fa3, s, lab).terms,
              ::testing::ElementsAre("the lab's Hopper schedule, dQ by atomics"));
}

}  // namespace
}  // namespace fa4::model
