// The model's Hopper backward against our own backward kernels, each predicted as bench predicts
// it (lib/orchestration/kernel_models.cpp). Fit set: the lent H200's backward runs over the
// FA3-paper sweep (hd 64/128/256, seqlen 512..16k, both masks, 16k tokens, hidden 2048, bf16):
// fa2_bwd from data/runs/2026-11-27-h200-fa2-bwd-3.db (non-causal) and -4.db (causal, today's
// order of causal blocks); fa3_bwd_atomics at hd128 (dQ by atomics) from
// data/runs/2026-11-23-h200-bwd-2.db; fa3_bwd at hd128 (dQ by TMA reduce-adds from a staging tile
// whose rows are interleaved by halves, 2026-11-27) from data/runs/2026-11-27-h200-fa3-bwd.db;
// fa3_bwd at hd256 (its dV pass on two ring stages since commit e494b05, its last causal section
// since 531cecb) from data/runs/2026-11-26-h200-bwd-hd256.db; copied below, every figure within
// 10%. Held out: fa2_bwd_deterministic, fa3_bwd at hd64 and hd256 beside the fit set, the
// Llama-3 GQA shapes of data/sweeps/llama3.json and the later days' runs shipped in data/runs
// (the lent H100's among them), each kernel's worst error within the bound the model reaches.
// Figures of kernels since changed are not checked: fa3_bwd's at hd64 and hd128 from before
// 2026-11-27 (its staging stores then took two wavefronts a half warp; before commit 01e0277 its
// dQ left by one bulk add per row), at hd256 from before commit e494b05 (both passes on one ring
// stage); fa2_bwd's from before 2026-11-27 (its loop since changed), at hd256 from before commit
// 5d4c42a (its spills since fell), and its causal figures where the order of thread blocks it ran
// in is not today's for the shape (ran_in_todays_order); fa2_bwd_deterministic's from before commit
// 00b590d (its blocks since walk dQ slots) and where its slot count since changed.
// lib/model/NOTES_BWD_FIT.md has the tables and each term's reason.
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

// TFLOP/s (backward FLOPs, 2.5 x forward, causal counted halved). fa2_bwd from v_measurements of
// data/runs/2026-11-27-h200-fa2-bwd.db; fa3_bwd_atomics at hd128 from
// data/runs/2026-11-23-h200-bwd-2.db (run 4); fa3_bwd at hd128 from
// data/runs/2026-11-27-h200-fa3-bwd.db, at hd256 from data/runs/2026-11-26-h200-bwd-hd256.db.
constexpr SweepRow kH200Fit[] = {
    // data/runs/2026-11-27-h200-fa2-bwd-3.db (non-causal) and -5.db (causal, commit 90877c7: the
    // causal blocks' order of today):
    {"fa2_bwd", 64, false, {196.6, 226.1, 244.4, 254.6, 261.9, 264.8}},
    {"fa2_bwd", 64, true, {133.3, 179.7, 216.4, 241.7, 256.7, 267.3}},
    {"fa2_bwd", 128, false, {205.8, 241.4, 264.8, 278.0, 284.9, 288.7}},
    {"fa2_bwd", 128, true, {141.7, 192.6, 233.8, 262.8, 280.5, 289.7}},
    {"fa2_bwd", 256, false, {175.5, 201.1, 217.2, 226.3, 230.9, 233.6}},
    {"fa2_bwd", 256, true, {129.9, 169.4, 198.5, 218.2, 229.2, 235.9}},
    // data/runs/2026-11-27-h200-fa3-bwd.db (the staging rows interleaved by halves):
    {"fa3_bwd", 128, false, {369.2, 478.6, 557.3, 577.0, 566.7, 567.0}},
    {"fa3_bwd", 128, true, {226.2, 346.3, 461.4, 550.8, 542.0, 564.0}},
    // data/runs/2026-11-26-h200-bwd-hd256.db (commit 531cecb: the causal last section):
    {"fa3_bwd", 256, false, {268.7, 326.8, 367.2, 377.4, 390.5, 383.7}},
    {"fa3_bwd", 256, true, {175.1, 252.5, 315.4, 360.6, 391.6, 387.5}},
    // data/runs/2026-11-23-h200-bwd-2.db:
    {"fa3_bwd_atomics", 128, false, {321.0, 396.4, 447.1, 478.8, 495.2, 474.6}},  // run 4
    {"fa3_bwd_atomics", 128, true, {204.7, 298.9, 381.2, 443.7, 481.7, 458.7}},   // run 4
};

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
  std::map<std::string, std::pair<double, double>> range;  // lowest and highest error per kernel
  for (const SweepRow& row : kH200Fit)
    for (std::size_t i = 0; i < kSeqlens.size(); ++i) {
      const AttnShape shape = tokens_16k(row.headdim, kSeqlens[i], row.causal);
      const double e = error_percent(h200, row.kernel, shape, row.tflops[i]);
      EXPECT_LE(std::abs(e), kFitBoundPercent) << row.kernel << " " << describe(shape);
      const auto it = range.try_emplace(row.kernel, e, e).first;
      it->second = {std::min(it->second.first, e), std::max(it->second.second, e)};
    }
  for (const auto& [kernel, r] : range)
    std::printf("fit  %-22s %+5.1f%% to %+5.1f%%\n", kernel.c_str(), r.first, r.second);
}

// Held out, later days: each `bench --pass bwd` run shipped in data/runs after the fit set's,
// read from its database, the model's worst |error| per kernel within the bound reached (rounded
// up). Figures of kernels since replaced are not checked (see the top).
struct LaterRun {
  const char* database;  // in data/runs
  const char* gpu;       // the hardware model bench matched to the device
  std::map<std::string, double> bounds;
  std::map<std::string, int> figures;  // per kernel
  // Figures at these head dims are not checked: the kernels that ran them have since changed.
  std::vector<std::int64_t> retired_headdims{};
  // The (kv head, batch) rows per section of causal thread blocks that its fa2 backward figures
  // ran with (core/fa2_bwd_tiles.hpp): a causal figure is checked only where that order is
  // today's for its shape. 0: today's order.
  std::int64_t causal_section_rows = 0;
};
// Orders of fa2_bwd's causal blocks before today's: key block fastest until commit 5d4c42a
// (sections of one row), longest first over all rows at 5d4c42a, in sections of 32 rows from
// f782813 to 7344797, of 8 rows from 7344797 to the rule of fa2_bwd_tiles::causal_section_rows.
constexpr std::int64_t kKeyBlockFastest = 1;
constexpr std::int64_t kAllRows = std::int64_t{1} << 40;
constexpr std::int64_t kSectionsOf32 = 32;
constexpr std::int64_t kSectionsOf8 = 8;

// Every run with a causal_section_rows (all before commit cba3e4b) walked the long GQA groups that
// fa2_bwd splits today (fa2_bwd_tiles::split_gqa_groups).
bool ran_in_todays_order(const LaterRun& run, const store::MeasurementRow& row) {
  if (!row.kernel.starts_with("fa2_bwd") || !row.shape.causal || run.causal_section_rows == 0)
    return true;
  const AttnShape& s = row.shape;
  if (fa2_bwd_tiles::split_gqa_groups(row.kernel == "fa2_bwd_deterministic", s.causal,
                                      int(s.heads_q / s.heads_kv), s.seqlen_q, int(s.headdim)))
    return false;
  const std::int64_t rows = row.shape.heads_kv * row.shape.batch;
  const std::int64_t key_block = fa2_bwd_tiles::key_block(int(row.shape.headdim));
  const std::int64_t key_blocks = (row.shape.seqlen_k + key_block - 1) / key_block;
  return std::min(run.causal_section_rows, rows) ==
         std::min<std::int64_t>(fa2_bwd_tiles::causal_section_rows(int(key_blocks)), rows);
}
const LaterRun kLaterRuns[] = {
    // fa3_bwd's figures at hd64 and hd128 from before the staging rows were interleaved by halves
    // (2026-11-27) are not checked: 2026-11-26-h200-bwd.db (its hd256 from before commit e494b05
    // too), -llama3-2.db, and fa3_bwd, fa3_bwd_no_overlap and fa3_bwd_no_persistent of
    // -bwd-ablation.db. fa3_bwd_atomics (dQ by atomics, unchanged), from that call over
    // data/sweeps/ladder-h128.json (hd128): -3.4% to +10.1% (s16384, drifting with power).
    // fa3_bwd_one_stage is not held: the model puts it 17-47% too fast (its one-stage term,
    // kLabFa3OneStageRingCycles, was fitted when the dQ hand-off's wait hid most of the next
    // block's load; lib/model/NOTES_BWD_FIT.md).
    {"2026-11-26-h200-bwd-ablation.db", "h200", {{"fa3_bwd_atomics", 10.5}},
     {{"fa3_bwd_atomics", 12}}},
    // The lent H200 over the FA3-paper sweep after commit e494b05, 2026-11-26 (later that day):
    // fa3_bwd at hd256 (the fit set until commit 531cecb, whose last causal section made causal
    // s512-4096 2-7% faster; held out since) -5.9% to +6.0%.
    {"2026-11-26-h200-bwd-2.db", "h200", {{"fa3_bwd", 6}}, {{"fa3_bwd", 12}}, {64, 128}},
    // The lent H100, the same afternoon, over the FA3-paper sweep (fa3_bwd of commit e494b05, all
    // held out): hd256 -6.9% to +6.6%.
    {"2026-11-26-h100-bwd.db", "h100-sxm", {{"fa3_bwd", 7}}, {{"fa3_bwd", 12}}, {64, 128}},
    // The lent H100, the evening of 2026-11-26: fa3_bwd at hd256 after commit 531cecb (the last
    // causal section) over the FA3-paper sweep: -7.0% to +3.0%.
    {"2026-11-26-h100-bwd-hd256.db", "h100-sxm", {{"fa3_bwd", 7.5}}, {{"fa3_bwd", 12}}},
    // The lent H200, 2026-11-27: fa2_bwd's loop of commit 1a87c64 (the fit set until hd256's
    // spills fell at commit 5d4c42a), hd64 and hd128 non-causal: -2.0% to +3.7%.
    {"2026-11-27-h200-fa2-bwd.db", "h200", {{"fa2_bwd", 4}}, {{"fa2_bwd", 12}}, {256},
     kKeyBlockFastest},
    // Commit 5d4c42a (today's loop and spills; causal blocks longest first over all rows): the
    // FA3-paper sweep, -4.4% to +4.6%; the Llama-3 GQA shapes of eight rows, -1.3% (the one shape
    // whose group fa2_bwd walks today).
    {"2026-11-27-h200-fa2-bwd-2.db", "h200", {{"fa2_bwd", 5}}, {{"fa2_bwd", 19}}, {}, kAllRows},
    {"2026-11-27-h200-fa2-llama3-2.db", "h200", {{"fa2_bwd", 3.5}}, {{"fa2_bwd", 1}}, {},
     kAllRows},
    // Commit 313975f (sections of 32 rows), a session later: the FA3-paper sweep on the lent H200,
    // -5.1% to +4.4%, and on the lent H100, -6.1% to +2.7% (hd256 causal s4096, 32 rows, not
    // checked: its samples split between 3.2 and 4.4 ms); the Llama-3 shapes of eight rows and of
    // eight key blocks a row (s1024) on the H200 whose groups are walked today, -1.1% to -0.7%.
    {"2026-11-27-h200-fa2-bwd-3.db", "h200", {{"fa2_bwd", 5.5}}, {{"fa2_bwd", 24}}, {},
     kSectionsOf32},
    {"2026-11-27-h100-fa2-bwd.db", "h100-sxm", {{"fa2_bwd", 6.5}}, {{"fa2_bwd", 24}}, {},
     kSectionsOf32},
    {"2026-11-27-h200-fa2-llama3-3.db", "h200", {{"fa2_bwd", 4.5}}, {{"fa2_bwd", 3}}, {},
     kSectionsOf32},
    // Commit 7344797 (sections of 8 rows), the lent H200: the Llama-3 GQA shapes of at least 32
    // key blocks a row, fa2_bwd -5.3% to +4.0% (its split groups not checked).
    {"2026-11-27-h200-fa2-llama3-4.db", "h200", {{"fa2_bwd", 5.5}}, {{"fa2_bwd", 6}}, {},
     kSectionsOf8},
    // The FA3-paper sweep's causal half at commit 7344797 (sections of 8 rows), the lent H200,
    // the fit set's until today's rule: -5.1% to -0.4% where its order is today's.
    {"2026-11-27-h200-fa2-bwd-4.db", "h200", {{"fa2_bwd", 5.5}}, {{"fa2_bwd", 10}}, {},
     kSectionsOf8},
    // Commit a5f9fd8 (today's order and group split), the lent H200, a session later: the
    // Llama-3 GQA shapes, fa2_bwd -5.0% to +0.7% with the split groups (32/8 s32768 walked, 64/8
    // s32768 and 128/8 s16384 split) and +5.5% at one query row per head.
    {"2026-11-27-h200-fa2-llama3-5.db", "h200", {{"fa2_bwd", 6}}, {{"fa2_bwd", 11}}},
    // The FA3-paper sweep's causal half at commit d5e0277 (the code of a5f9fd8), the lent H100,
    // that session: -6.1% to +2.7%.
    {"2026-11-27-h100-fa2-bwd-2.db", "h100-sxm", {{"fa2_bwd", 6.5}}, {{"fa2_bwd", 18}}},
    // The same lent H100, a later lease, the Llama-3 GQA shapes: -6.2% to -0.1%.
    {"2026-11-27-h100-fa2-llama3.db", "h100-sxm", {{"fa2_bwd", 6.5}}, {{"fa2_bwd", 11}}},
    // Commit 00b590d (fa2_bwd_deterministic's blocks walk dQ slots at hd64 and hd128), the lent
    // H200: the FA3-paper sweep, fa2_bwd -4.8% to +5.2% and fa2_bwd_deterministic -1.0% to +9.7%
    // (s512 causal; +5.4% at most from s2048), on one lease; the Llama-3 GQA shapes, both kernels
    // in one call, fa2_bwd -4.8% to +5.4% (fa2_bwd_deterministic's figures there are not checked:
    // its three longest shapes walk 16 slots today, not 15, and the next record has all eleven).
    // The walking schedule's terms (predict.cpp: walking_dq_slots) were written before these
    // runs, none fitted to them. The FA3-paper sweep's slot counts are today's.
    {"2026-11-27-h200-fa2-bwd-6.db", "h200", {{"fa2_bwd", 5.5}}, {{"fa2_bwd", 36}}},
    {"2026-11-27-h200-fa2-bwd-deterministic-2.db", "h200", {{"fa2_bwd_deterministic", 10}},
     {{"fa2_bwd_deterministic", 36}}},
    {"2026-11-27-h200-fa2-llama3-6.db", "h200", {{"fa2_bwd", 5.5}}, {{"fa2_bwd", 11}}},
    // The slot rule counting the longest walk (16 slots of 16 key blocks at 8 rows and 256 key
    // blocks, where 15 walked up to 18), the lent H200, 2026-11-27, one call with sdpa_flash and
    // sdpa_cudnn after: the Llama-3 GQA shapes, fa2_bwd -5.2% to +5.1%, fa2_bwd_deterministic
    // -0.0% to +9.3% (64/8 s32768: the model has its 16 slots 12% faster than 15, measured 3.5%).
    {"2026-11-27-h200-fa2-llama3-7.db",
     "h200",
     {{"fa2_bwd", 5.5}, {"fa2_bwd_deterministic", 9.5}},
     {{"fa2_bwd", 11}, {"fa2_bwd_deterministic", 11}}},
    // fa3_bwd with its staging rows interleaved by halves (one wavefront a half warp), the lent
    // H200, 2026-11-27: the FA3-paper sweep, hd128 the fit set above (-6.9% to +7.4%), hd64
    // +2.0% to +11.7% (s512 causal; +11.1% at s16384 causal, a 5.7 ms launch drifting with
    // power), hd256 -5.6% to +2.5%; the Llama-3 GQA shapes (the next call, the same lease)
    // -5.3% to +9.1%, but for 16 x 64/8 x 1024 at +23.1% (a group of 8 walked at s1024, as in
    // every earlier record) and one query row per head at -14.2%.
    {"2026-11-27-h200-fa3-bwd.db", "h200", {{"fa3_bwd", 12}}, {{"fa3_bwd", 36}}},
    {"2026-11-27-h200-fa3-llama3.db", "h200", {{"fa3_bwd", 23.5}}, {{"fa3_bwd", 11}}},
    // The lent H100 that night, fa3_bwd of the staging change over the FA3-paper sweep, the SDPA
    // cuDNN backward after in the same call: hd64 -2.6% to +7.2%, hd128 -9.6% to +3.6% (s1024),
    // hd256 -6.5% to +2.5%.
    {"2026-11-27-h100-fa3-bwd.db", "h100-sxm", {{"fa3_bwd", 10}}, {{"fa3_bwd", 36}}},
    // fa3_bwd and its ablations over data/sweeps/ladder-h128.json after the staging change, a
    // later lease that evening: fa3_bwd -6.3% to +7.5%, fa3_bwd_atomics -4.0% to +8.6%,
    // fa3_bwd_no_overlap -2.8% to +12.6% (s16384, a 10 ms launch drifting with power: +4.5%
    // causal), fa3_bwd_no_persistent -4.8% to +7.1%; fa3_bwd_one_stage not held (+16% to +45%).
    {"2026-11-27-h200-bwd-ablation.db",
     "h200",
     {{"fa3_bwd", 8}, {"fa3_bwd_atomics", 9}, {"fa3_bwd_no_overlap", 13},
      {"fa3_bwd_no_persistent", 7.5}},
     {{"fa3_bwd", 12}, {"fa3_bwd_atomics", 12}, {"fa3_bwd_no_overlap", 12},
      {"fa3_bwd_no_persistent", 12}}},
};

TEST(BackwardFit, HeldOutRunsOfALaterDayWithinTheirBounds) {
  for (const LaterRun& run : kLaterRuns) {
    const hw::Spec& gpu = testing::gpu(run.gpu);
    const std::string path = std::string(FA4_SOURCE_DIR) + "/data/runs/" + run.database;
    auto store = store::Store::open(path, {.read_only = true});
    ASSERT_TRUE(store) << store.error().message;
    auto rows = store->measurements_for_report();
    ASSERT_TRUE(rows) << rows.error().message;
    std::map<std::string, int> count;
    for (const store::MeasurementRow& row : *rows) {
      const auto bound = run.bounds.find(row.kernel);
      if (!row.ok() || !row.ours() || row.pass != Pass::bwd || bound == run.bounds.end()) continue;
      if (std::ranges::find(run.retired_headdims, row.shape.headdim) !=
              run.retired_headdims.end() ||
          !ran_in_todays_order(run, row))
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
  lab.lab_fa3_backward = model::DqAdd::tensor_reduce;
  const AttnShape hd256 = tokens_16k(256, 4096, false);
  const auto one = model::tile_cycles(h200, hd256, published, *published.tile);
  const auto two = model::tile_cycles(h200, hd256, lab, *lab.tile);
  ASSERT_TRUE(one && two);
  EXPECT_DOUBLE_EQ(two->mma, one->mma * 6 / 5);
  EXPECT_DOUBLE_EQ(two->exp_mufu, one->exp_mufu * 2);
  const auto with_factor = [](const model::Prediction& p, model::factors::Reported f) {
    return std::any_of(p.factors.begin(), p.factors.end(),
                       [&](const auto& r) { return r.name == model::factors::text_of(f).name; });
  };
  const auto hd256_lab = model::predict(h200, hd256, lab);
  ASSERT_TRUE(hd256_lab);
  EXPECT_TRUE(with_factor(*hd256_lab, model::factors::Reported::lab_fa3_one_stage_ring_cycles));
  EXPECT_TRUE(with_factor(*hd256_lab, model::factors::Reported::lab_fa3_serial_dq_chunk_cycles));
  EXPECT_TRUE(with_factor(*hd256_lab, model::factors::Reported::lab_fa3_dq_atomic_cycles));
  EXPECT_TRUE(with_factor(*hd256_lab, model::factors::Reported::lab_fa3_step_wait_cycles));
  lab.tile = model::Tile{64, 128};
  const auto hd128 = model::predict(h200, tokens_16k(128, 4096, false), lab);
  lab.tile = model::Tile{128, 128};
  const auto hd64 = model::predict(h200, tokens_16k(64, 4096, false), lab);
  ASSERT_TRUE(hd128 && hd64);
  for (const model::Prediction* staged : {&*hd128, &*hd64}) {
    EXPECT_FALSE(with_factor(*staged, model::factors::Reported::lab_fa3_one_stage_ring_cycles));
    EXPECT_FALSE(with_factor(*staged, model::factors::Reported::lab_fa3_serial_dq_chunk_cycles));
    EXPECT_FALSE(with_factor(*staged, model::factors::Reported::lab_fa3_dq_atomic_cycles));
    EXPECT_FALSE(with_factor(*staged, model::factors::Reported::lab_fa3_step_wait_cycles));
    EXPECT_TRUE(with_factor(*staged, model::factors::Reported::lab_fa3_staged_step_wait_cycles));
  }
}

TEST(BackwardFit, RefusesTheLabScheduleOutsideFa3BackwardOnHopper) {
  model::Options o;
  o.algorithm = model::Algorithm::fa3;
  o.pass = Pass::bwd;
  o.lab_fa3_backward = model::DqAdd::atomics;
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
