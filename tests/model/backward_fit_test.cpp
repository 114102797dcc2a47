// The model's Hopper backward against our own backward kernels, each predicted as bench predicts
// it (lib/orchestration/kernel_models.cpp). Fit set: the lent H200's backward runs over the
// FA3-paper sweep (hd 64/128/256, seqlen 512..16k, both masks, 16k tokens, hidden 2048, bf16):
// fa2_bwd and fa3_bwd at hd256 (dQ reductions in the accumulator's mma_tiles order, commit 17de6ae)
// from data/runs/2026-11-28-h200-hd256-bwd-tiles.db; fa3_bwd at hd128 (dQ by TMA reduce-adds from a
// staging tile whose rows are interleaved by halves, 2026-11-27) from
// data/runs/2026-11-27-h200-fa3-bwd.db; copied below, every figure within 10%. Held out: the
// alternating rounds of the same session at hd64 and hd128 (fa2_bwd, fa2_bwd_deterministic,
// fa3_bwd_atomics), fa3_bwd at hd64 beside the fit set, the Llama-3 GQA shapes of
// data/sweeps/llama3.json and the later days' runs (kept whole in tests/data/runs: the curated
// record of data/runs keeps only the latest of each problem; the lent H100's among them), each
// kernel's worst error within the bound the model reaches. Figures of kernels since changed are not
// checked: fa2_bwd's, fa2_bwd_deterministic's, fa3_bwd_atomics' and fa3_bwd's at hd256 from before
// commit 17de6ae (their dQ reductions then took 8 rows an instruction, in row-major order),
// fa3_bwd's at hd64 and hd128 from before 2026-11-27 (its staging stores then took two wavefronts a
// half warp) and at hd64 from before 2026-11-28 (dQ then went through the staging tile; since, by
// atomics). lib/model/NOTES_BWD_FIT.md has the tables and each term's reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/fa2_bwd_tiles.hpp"
#include "gpu_models.hpp"
#include "model/factors.hpp"
#include "model/model.hpp"
#include "orchestration/kernel_models.hpp"
#include "store/store.hpp"

namespace fa4 {
namespace {

constexpr std::array<std::int64_t, 6> kSeqlens = {512, 1024, 2048, 4096, 8192, 16384};
constexpr double kFitBoundPercent = 10;

struct SweepRow {
  const char* kernel;
  std::int64_t headdim;
  bool causal;
  std::array<double, 6> tflops;  // at kSeqlens
};

// TFLOP/s (backward FLOPs, 2.5 x forward, causal counted halved), from v_measurements.
constexpr SweepRow kH200Fit[] = {
    // data/runs/2026-11-28-h200-hd256-bwd-tiles.db (commit 17de6ae's kernels):
    {"fa2_bwd", 256, false, {191.8, 224.6, 245.1, 257.0, 265.4, 267.7}},
    {"fa2_bwd", 256, true, {141.5, 188.4, 223.6, 249.5, 262.7, 272.6}},
    {"fa3_bwd", 256, false, {293.4, 370.9, 427.6, 441.2, 443.7, 442.5}},
    {"fa3_bwd", 256, true, {184.0, 278.9, 360.4, 423.1, 461.9, 435.4}},
    // data/runs/2026-11-27-h200-fa3-bwd.db (the staging rows interleaved by halves):
    {"fa3_bwd", 128, false, {369.2, 478.6, 557.3, 577.0, 566.7, 567.0}},
    {"fa3_bwd", 128, true, {226.2, 346.3, 461.4, 550.8, 542.0, 564.0}},
};

// Held out: kernel_timing's alternating rounds on the lent H200 that measured commit 17de6ae's
// kernels against their parent (16k tokens, hidden 2048, bf16, median of 10 samples; the first
// round of each; lib/kernels/NOTES.md, "The dQ accumulator in mma_tiles order").
struct HeldOutFigure {
  const char* kernel;
  std::int64_t headdim;
  std::int64_t seqlen;
  bool causal;
  double tflops;
};
constexpr HeldOutFigure kH200Rounds[] = {
    {"fa2_bwd", 64, 2048, false, 263.6},          {"fa2_bwd", 64, 2048, true, 232.1},
    {"fa2_bwd", 64, 16384, false, 282.9},         {"fa2_bwd", 64, 16384, true, 285.0},
    {"fa2_bwd", 128, 2048, false, 292.5},         {"fa2_bwd", 128, 2048, true, 256.9},
    {"fa2_bwd", 128, 16384, false, 321.6},        {"fa2_bwd", 128, 16384, true, 325.3},
    {"fa2_bwd_deterministic", 128, 4096, false, 303.2},
    {"fa2_bwd_deterministic", 128, 16384, false, 302.3},
    {"fa3_bwd_atomics", 128, 2048, false, 540.3}, {"fa3_bwd_atomics", 128, 2048, true, 448.4},
    {"fa3_bwd_atomics", 128, 16384, false, 567.7}, {"fa3_bwd_atomics", 128, 16384, true, 584.4},
    {"fa3_bwd_atomics", 64, 4096, false, 525.1},  {"fa3_bwd_atomics", 64, 4096, true, 475.7},
    {"fa3_bwd_atomics", 64, 16384, false, 511.7}, {"fa3_bwd_atomics", 64, 16384, true, 516.8},
};
constexpr double kRoundsBoundPercent = 7;

// 16k tokens, hidden 2048 (the FA3 paper's sweep).
AttnShape tokens_16k(std::int64_t headdim, std::int64_t seqlen, bool causal) {
  return testing::square(16384 / seqlen, 2048 / headdim, seqlen, headdim, causal);
}

// The model's error against a measured figure, in percent (+: the model is faster).
double error_percent(const hw::Spec& gpu, const std::string& kernel, const AttnShape& shape,
                     double measured_tflops) {
  const auto entry = orchestration::find_kernel_model(kernel);
  if (!entry) throw std::runtime_error(entry.error().message);
  const auto p = model::predict(gpu, shape, orchestration::model_options(**entry, shape));
  if (!p) throw std::runtime_error(p.error().message);
  return (p->tflops / measured_tflops - 1) * 100;
}

TEST(BackwardFit, EveryH200FigureOfOurBackwardKernelsWithinTenPercent) {
  const hw::Spec& h200 = testing::gpu("h200");
  // The lowest and highest error per kernel and head dim.
  std::map<std::string, std::pair<double, double>> range;
  for (const SweepRow& row : kH200Fit)
    for (std::size_t i = 0; i < kSeqlens.size(); ++i) {
      const AttnShape shape = tokens_16k(row.headdim, kSeqlens[i], row.causal);
      const double e = error_percent(h200, row.kernel, shape, row.tflops[i]);
      EXPECT_LE(std::abs(e), kFitBoundPercent) << row.kernel << " " << describe(shape);
      const std::string key = std::string(row.kernel) + " d" + std::to_string(row.headdim);
      const auto it = range.try_emplace(key, e, e).first;
      it->second = {std::min(it->second.first, e), std::max(it->second.second, e)};
    }
  for (const auto& [kernel, r] : range)
    std::printf("fit  %-22s %+5.1f%% to %+5.1f%%\n", kernel.c_str(), r.first, r.second);
}

TEST(BackwardFit, HeldOutRoundsOfTheFitSessionWithinTheirBound) {
  const hw::Spec& h200 = testing::gpu("h200");
  for (const HeldOutFigure& f : kH200Rounds) {
    const AttnShape shape = tokens_16k(f.headdim, f.seqlen, f.causal);
    const double e = error_percent(h200, f.kernel, shape, f.tflops);
    EXPECT_LE(std::abs(e), kRoundsBoundPercent) << f.kernel << " " << describe(shape);
    std::printf("rounds %-22s %+6.1f%% %s\n", f.kernel, e, describe(shape).c_str());
  }
}

// Held out, later days: each `bench --pass bwd` run after the fit set's (in tests/data/runs),
// read from its database, the model's worst |error| per kernel within the bound reached (rounded
// up). Figures of kernels since replaced are not checked (see the top).
struct LaterRun {
  const char* database;  // in tests/data/runs
  const char* gpu;       // the hardware model bench matched to the device
  std::map<std::string, double> bounds;
  std::map<std::string, int> figures;  // per kernel
  // Figures at these head dims are not checked: the kernels that ran them have since changed.
  std::vector<std::int64_t> retired_headdims{};
};
const LaterRun kLaterRuns[] = {
    // fa3_bwd with its staging rows interleaved by halves (one wavefront a half warp), the lent
    // H200, 2026-11-27: the FA3-paper sweep, hd128 the fit set above (-6.9% to +7.4%); hd64 no
    // longer checked (its dQ goes by atomics since 2026-11-28); the Llama-3 GQA shapes (the next
    // call, the same lease) -5.3% to +9.1%, but for 16 x 64/8 x 1024 at +23.1% (a group of 8
    // walked at s1024, as in every earlier record) and one query row per head at -14.2%.
    {"2026-11-27-h200-fa3-bwd.db", "h200", {{"fa3_bwd", 7.5}}, {{"fa3_bwd", 12}}, {64, 256}},
    {"2026-11-27-h200-fa3-llama3.db", "h200", {{"fa3_bwd", 23.5}}, {{"fa3_bwd", 11}}},
    // The lent H100 that night, fa3_bwd of the staging change over the FA3-paper sweep, the SDPA
    // cuDNN backward after in the same call: hd128 -9.6% to +3.6% (s1024); hd64 no longer checked.
    {"2026-11-27-h100-fa3-bwd.db", "h100-sxm", {{"fa3_bwd", 10}}, {{"fa3_bwd", 12}}, {64, 256}},
    // fa3_bwd and its ablations over data/sweeps/ladder-h128.json after the staging change, a
    // later lease that evening: fa3_bwd -6.3% to +7.5%, fa3_bwd_no_overlap -2.8% to +12.6%
    // (s16384, a 10 ms launch drifting with power: +4.5% causal), fa3_bwd_no_persistent -4.8% to
    // +7.1%; fa3_bwd_one_stage not held (+16% to +45%).
    {"2026-11-27-h200-bwd-ablation.db",
     "h200",
     {{"fa3_bwd", 8}, {"fa3_bwd_no_overlap", 13}, {"fa3_bwd_no_persistent", 7.5}},
     {{"fa3_bwd", 12}, {"fa3_bwd_no_overlap", 12}, {"fa3_bwd_no_persistent", 12}}},
    // The lent H200, 2026-11-28, after the mma_tiles order (17de6ae), sdpa_flash after in the same
    // call: fa2_bwd over the FA3-paper sweep's hd64 and hd128, -4.0% to +5.7% (s512 causal).
    {"2026-11-28-h200-fa2-bwd-tiles.db", "h200", {{"fa2_bwd", 6}}, {{"fa2_bwd", 24}}},
    // The next call, the Llama-3 GQA shapes with sdpa_flash and sdpa_cudnn after: fa2_bwd -6.6%
    // to +2.9%, fa2_bwd_deterministic -0.2% to +5.5%.
    {"2026-11-28-h200-fa2-llama3-tiles.db",
     "h200",
     {{"fa2_bwd", 7}, {"fa2_bwd_deterministic", 6}},
     {{"fa2_bwd", 11}, {"fa2_bwd_deterministic", 11}}},
    // A later lease that morning: fa3_bwd at hd64 with dQ by atomics (fa3_tiles.hpp's rule since
    // that day), sdpa_cudnn after: -3.8% to +8.3% (s512 causal).
    {"2026-11-28-h200-fa3-bwd-hd64-atomics.db", "h200", {{"fa3_bwd", 8.5}}, {{"fa3_bwd", 12}}},
    // The backward targets' record (c9bda66's kernels, one lease that afternoon, cuDNN and
    // sdpa_flash in the same lease): the FA3-paper sweep, every head dim, fa3_bwd -6.8% to +7.9%
    // (hd64 s512 causal), fa2_bwd -4.8% to +6.0% (hd256 s512 causal).
    {"2026-11-28-h200-targets-record.db",
     "h200",
     {{"fa3_bwd", 8}, {"fa2_bwd", 6.5}},
     {{"fa3_bwd", 36}, {"fa2_bwd", 36}}},
};

TEST(BackwardFit, HeldOutRunsOfALaterDayWithinTheirBounds) {
  for (const LaterRun& run : kLaterRuns) {
    const hw::Spec& gpu = testing::gpu(run.gpu);
    const std::string path = std::string(FA4_SOURCE_DIR) + "/tests/data/runs/" + run.database;
    auto store = store::Store::open(path, {.read_only = true});
    ASSERT_TRUE(store) << store.error().message;
    auto rows = store->measurements_for_report();
    ASSERT_TRUE(rows) << rows.error().message;
    std::map<std::string, int> count;
    for (const store::MeasurementRow& row : *rows) {
      const auto bound = run.bounds.find(row.kernel);
      if (!row.ok() || !row.ours() || row.pass != Pass::bwd || bound == run.bounds.end()) continue;
      if (std::ranges::find(run.retired_headdims, row.shape.headdim) !=
          run.retired_headdims.end())
        continue;
      const double e = error_percent(gpu, row.kernel, row.shape, row.tflops);
      EXPECT_LE(std::abs(e), bound->second)
          << run.database << ": " << row.kernel << " " << describe(row.shape);
      std::printf("%s %-8s %+6.1f%% %s\n", run.database, row.kernel.c_str(), e,
                  describe(row.shape).c_str());
      ++count[row.kernel];
    }
    EXPECT_EQ(count, run.figures) << run.database;
  }
}

// The schedule's terms where they can be read off alone: fa3_bwd's two passes at hd256 do six
// GEMMs' work and two exp2 per score, the dK/dQ pass with a one-stage ring and the second dQ chunk
// serialized; the dQ path follows the kernel's rule (core/fa3_tiles.hpp: atomics at hd256, with
// their step wait; the staging tile and its own step wait at hd64 and hd128).
TEST(BackwardFit, LabFa3ScheduleRunsTwoPassesAboveHd128AndFollowsTheKernelsDqPath) {
  const hw::Spec& h200 = testing::gpu("h200");
  model::Options published;
  published.algorithm = model::Algorithm::fa3;
  published.pass = Pass::bwd;
  published.tile = model::Tile{64, 128};
  model::Options lab = published;
  lab.group_walking_backward = model::DqAdd::tensor_reduce;
  const AttnShape hd256 = tokens_16k(256, 4096, false);
  const auto one = model::tile_cycles(h200, hd256, published, *published.tile);
  const auto two = model::tile_cycles(h200, hd256, lab, *lab.tile);
  ASSERT_TRUE(one && two);
  EXPECT_DOUBLE_EQ(two->mma, one->mma * 6 / 5);
  EXPECT_DOUBLE_EQ(two->exp_mufu, one->exp_mufu * 2);
  const auto with_factor = [](const model::Prediction& p, model::factors::Id f) {
    return std::any_of(p.factors.begin(), p.factors.end(),
                       [&](const auto& r) { return r.name == model::factors::entry(f).reported.name; });
  };
  const auto hd256_lab = model::predict(h200, hd256, lab);
  ASSERT_TRUE(hd256_lab);
  EXPECT_TRUE(with_factor(*hd256_lab, model::factors::Id::kLabFa3OneStageRingCycles));
  EXPECT_TRUE(with_factor(*hd256_lab, model::factors::Id::kLabFa3SerialDqChunkCyclesPerElement));
  EXPECT_TRUE(with_factor(*hd256_lab, model::factors::Id::kLabFa3BackwardStepWaitCycles));
  lab.tile = model::Tile{64, 128};
  const auto hd128 = model::predict(h200, tokens_16k(128, 4096, false), lab);
  lab.tile = model::Tile{128, 128};
  const auto hd64 = model::predict(h200, tokens_16k(64, 4096, false), lab);
  ASSERT_TRUE(hd128 && hd64);
  // hd128 adds dQ from its staging tile; hd64 by atomics in one chunk (fa3_tiles.hpp's rules).
  EXPECT_FALSE(with_factor(*hd128, model::factors::Id::kLabFa3BackwardStepWaitCycles));
  EXPECT_TRUE(with_factor(*hd128, model::factors::Id::kLabFa3StagedDqStepWaitCycles));
  EXPECT_TRUE(with_factor(*hd64, model::factors::Id::kLabFa3BackwardStepWaitCycles));
  EXPECT_FALSE(with_factor(*hd64, model::factors::Id::kLabFa3StagedDqStepWaitCycles));
  for (const model::Prediction* one_pass : {&*hd128, &*hd64}) {
    EXPECT_FALSE(with_factor(*one_pass, model::factors::Id::kLabFa3OneStageRingCycles));
    EXPECT_FALSE(with_factor(*one_pass, model::factors::Id::kLabFa3SerialDqChunkCyclesPerElement));
  }
}

TEST(BackwardFit, RefusesTheLabScheduleOutsideFa3BackwardOnHopper) {
  model::Options o;
  o.algorithm = model::Algorithm::fa3;
  o.pass = Pass::bwd;
  o.group_walking_backward = model::DqAdd::atomics;
  const AttnShape shape = tokens_16k(128, 4096, false);
  EXPECT_TRUE(model::predict(testing::gpu("h200"), shape, o));
  EXPECT_FALSE(model::predict(testing::gpu("b200"), shape, o));  // fa3 is Hopper's
  o.pass = Pass::fwd;
  const auto forward = model::predict(testing::gpu("h200"), shape, o);
  ASSERT_FALSE(forward);
  EXPECT_NE(forward.error().message.find("drop it"), std::string::npos);
  o.pass = Pass::bwd;
  o.deterministic = true;
  EXPECT_FALSE(model::predict(testing::gpu("h200"), shape, o));
  model::Options fa2;
  fa2.algorithm = model::Algorithm::fa2;
  fa2.pass = Pass::bwd;
  fa2.deterministic = true;
  EXPECT_TRUE(model::predict(testing::gpu("h200"), shape, fa2));
  const auto fa2_blackwell = model::predict(testing::gpu("b200"), shape, fa2);
  ASSERT_FALSE(fa2_blackwell);
  EXPECT_NE(fa2_blackwell.error().message.find("Hopper only"), std::string::npos);
}

// fa2_bwd's causal block order and GQA split (core/fa2_bwd_tiles.hpp), as the kernel's notes give
// them, and the model's schedule splitting exactly where the kernel does.
TEST(BackwardFit, Fa2SectionsAndGroupSplitFollowTheKernelsRules) {
  EXPECT_EQ(fa2_bwd_tiles::causal_section_rows(4), 32);
  EXPECT_EQ(fa2_bwd_tiles::causal_section_rows(8), 32);
  EXPECT_EQ(fa2_bwd_tiles::causal_section_rows(16), 16);
  EXPECT_EQ(fa2_bwd_tiles::causal_section_rows(32), 8);
  EXPECT_EQ(fa2_bwd_tiles::causal_section_rows(512), 8);
  EXPECT_TRUE(fa2_bwd_tiles::split_gqa_groups(false, true, 8, 8192, 128));
  EXPECT_FALSE(fa2_bwd_tiles::split_gqa_groups(true, true, 8, 8192, 128));  // deterministic
  EXPECT_FALSE(fa2_bwd_tiles::split_gqa_groups(false, false, 8, 8192, 128));
  EXPECT_FALSE(fa2_bwd_tiles::split_gqa_groups(false, true, 4, 32768, 128));
  EXPECT_FALSE(fa2_bwd_tiles::split_gqa_groups(false, true, 16, 4096, 128));
  EXPECT_FALSE(fa2_bwd_tiles::split_gqa_groups(false, true, 8, 8192, 256));

  const hw::Spec& h200 = testing::gpu("h200");
  AttnShape shape = testing::square(1, 128, 16384, 128, true);
  shape.heads_kv = 8;
  const auto ctas = [&](const char* kernel, const AttnShape& s) {
    const auto entry = orchestration::find_kernel_model(kernel);
    if (!entry) throw std::runtime_error(entry.error().message);
    const auto p = model::predict(h200, s, orchestration::model_options(**entry, s));
    if (!p) throw std::runtime_error(p.error().message);
    return p->ctas;
  };
  EXPECT_DOUBLE_EQ(ctas("fa2_bwd", shape), 128 * 128);  // split: per key block and query head
  EXPECT_DOUBLE_EQ(ctas("fa2_bwd_deterministic", shape), 16 * 8);  // per dQ slot and kv head
  shape.seqlen_q = shape.seqlen_k = 4096;  // walked: one CTA per key block and kv head
  EXPECT_DOUBLE_EQ(ctas("fa2_bwd", shape), 32 * 8);
}

// fa2_bwd_deterministic's dQ slots (core/fa2_bwd_tiles.hpp) on a 132-SM Hopper: the fewest whose
// waves x longest walk is within 10% of the least, never more than the key blocks; one per key
// block at hd256, where the blocks do not walk.
TEST(BackwardFit, DeterministicSlotsBalanceTheWalksAndBoundTheWorkspace) {
  EXPECT_EQ(fa2_bwd_tiles::deterministic_dq_slots(128, 16, 132, 128), 8);  // 1 wave x 16
  EXPECT_EQ(fa2_bwd_tiles::deterministic_dq_slots(256, 8, 132, 128), 16);  // 1 x 16, not 15 x 18
  EXPECT_EQ(fa2_bwd_tiles::deterministic_dq_slots(8, 512, 132, 64), 1);    // 4 waves x 8
  EXPECT_EQ(fa2_bwd_tiles::deterministic_dq_slots(64, 100, 132, 128), 5);  // 4 x 13, least 49
  EXPECT_EQ(fa2_bwd_tiles::deterministic_dq_slots(14, 4, 132, 128), 14);     // one per key block
  EXPECT_EQ(fa2_bwd_tiles::deterministic_dq_slots(128, 16, 132, 256), 128);  // hd256
  EXPECT_FALSE(fa2_bwd_tiles::deterministic_walks_slots(256));
  EXPECT_EQ(fa2_bwd_tiles::deterministic_dq_slots(128, 16, 0, 128), 1);  // SM count unknown
}

}  // namespace
}  // namespace fa4
