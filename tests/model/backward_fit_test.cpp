// The model's Hopper backward against our own backward kernels, each predicted as bench predicts
// it (lib/orchestration/kernel_models.cpp). Fit set: the lent H200's backward run of 2026-11-23
// (data/runs/2026-11-23-h200-bwd.db, runs 1 and 2: fa2_bwd, fa2_bwd_deterministic, fa3_bwd,
// fa3_bwd_atomics over the FA3-paper sweep, hd 64/128/256, seqlen 512..16k, both masks, 16k tokens,
// hidden 2048, bf16), copied below: every figure within 10%. Held out: the lent H100's backward
// runs of the same day (another GPU and other runs; data/measurements/kernels/2026-11-23-h100-
// fa2-bwd-run{1,2}.csv and 2026-11-23-h100-fa3-bwd-notes.csv), each kernel's worst error within
// the bound the model reaches. lib/model/NOTES_BWD_FIT.md has the tables and each term's reason.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gpu_models.hpp"
#include "model/factors.hpp"
#include "model/model.hpp"
#include "orchestration/kernel_models.hpp"

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

// TFLOP/s (backward FLOPs, 2.5 x forward, causal counted halved) from v_measurements of
// data/runs/2026-11-23-h200-bwd.db; the run id of each row's figures beside it.
constexpr SweepRow kH200Fit[] = {
    {"fa2_bwd", 64, false, {173.3, 197.2, 213.3, 221.3, 225.6, 225.8}},   // run 1
    {"fa2_bwd", 64, true, {121.2, 159.3, 187.6, 206.7, 218.5, 229.4}},    // run 1
    {"fa2_bwd", 128, false, {199.3, 233.9, 255.5, 268.2, 272.7, 278.0}},  // runs 1, 2 (s16k)
    {"fa2_bwd", 128, true, {137.5, 181.9, 217.6, 242.0, 258.6, 278.1}},   // runs 1, 2 (s16k)
    {"fa2_bwd", 256, false, {165.5, 187.5, 201.0, 208.4, 212.0, 212.4}},  // run 2
    {"fa2_bwd", 256, true, {122.8, 154.3, 177.7, 194.1, 212.1, 215.9}},   // run 2
    {"fa2_bwd_deterministic", 64, false, {146.6, 159.1, 167.1, 171.1, 172.0, 173.3}},   // run 1
    {"fa2_bwd_deterministic", 64, true, {107.3, 133.2, 150.8, 161.7, 168.4, 174.7}},    // run 1
    {"fa2_bwd_deterministic", 128, false, {168.9, 186.9, 197.5, 203.4, 206.2, 207.3}},  // 1, 2
    {"fa2_bwd_deterministic", 128, true, {122.6, 152.2, 173.4, 186.8, 196.1, 209.1}},   // 1, 2
    {"fa2_bwd_deterministic", 256, false, {121.8, 131.0, 136.5, 139.6, 141.2, 141.2}},  // run 2
    {"fa2_bwd_deterministic", 256, true, {97.6, 114.1, 124.7, 131.9, 141.1, 142.8}},    // run 2
    {"fa3_bwd", 64, false, {233.2, 264.2, 286.4, 296.6, 300.5, 303.5}},                 // run 1
    {"fa3_bwd", 64, true, {162.2, 213.1, 256.9, 283.5, 299.5, 308.8}},                  // run 1
    {"fa3_bwd", 128, false, {319.6, 396.4, 448.8, 479.7, 496.7, 477.1}},  // runs 1, 2 (s16k)
    {"fa3_bwd", 128, true, {206.1, 299.5, 382.1, 444.5, 440.2, 467.2}},   // runs 1, 2 (s8k, 16k)
    {"fa3_bwd", 256, false, {232.6, 275.8, 305.6, 326.4, 334.4, 336.2}},  // run 2
    {"fa3_bwd", 256, true, {151.6, 219.3, 267.0, 303.0, 332.3, 340.9}},   // run 2
    {"fa3_bwd_atomics", 64, false, {250.6, 296.1, 329.8, 346.9, 355.8, 358.9}},   // run 1
    {"fa3_bwd_atomics", 64, true, {166.8, 231.3, 288.5, 327.0, 350.4, 360.0}},    // run 1
    {"fa3_bwd_atomics", 128, false, {272.8, 324.3, 356.5, 374.4, 386.3, 391.0}},  // runs 1, 2
    {"fa3_bwd_atomics", 128, true, {183.7, 253.7, 313.0, 354.9, 380.3, 388.3}},   // runs 1, 2
    {"fa3_bwd_atomics", 256, false, {231.4, 276.1, 306.5, 325.8, 333.7, 337.2}},  // run 2
    {"fa3_bwd_atomics", 256, true, {151.8, 221.0, 268.4, 298.6, 335.0, 341.2}},   // run 2
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
  std::map<std::string, double> worst;
  for (const SweepRow& row : kH200Fit)
    for (std::size_t i = 0; i < kSeqlens.size(); ++i) {
      const AttnShape shape = tokens_16k(row.headdim, kSeqlens[i], row.causal);
      const double e = error_percent(h200, row.kernel, shape, row.tflops[i]);
      EXPECT_LE(std::abs(e), kFitBoundPercent) << row.kernel << " " << describe(shape);
      worst[row.kernel] = std::max(worst[row.kernel], std::abs(e));
    }
  for (const auto& [kernel, e] : worst)
    std::printf("fit  %-22s worst %5.1f%%\n", kernel.c_str(), e);
}

struct HeldOut {
  std::string kernel;
  AttnShape shape;
  double tflops = 0;
};

// Splits one CSV line (no quoted fields in these files).
std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  for (std::string f; std::getline(in, f, ',');) out.push_back(f);
  return out;
}

std::ifstream open_data(const std::string& path) {
  std::ifstream in(std::string(FA4_SOURCE_DIR) + "/" + path);
  if (!in) throw std::runtime_error("cannot read " + path);
  return in;
}

// kernel_timing's CSV (kernel, shape "b4 h16 s4096 d128 bf16[ causal]", causal, seqlen, median_ms,
// min_ms, max_ms, tflops, check).
std::vector<HeldOut> read_kernel_timing(const std::string& path) {
  std::ifstream in = open_data(path);
  std::vector<HeldOut> out;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    const auto f = fields(line);
    long long b = 0, h = 0, s = 0, d = 0;
    if (f.size() != 9 || std::sscanf(f[1].c_str(), "b%lld h%lld s%lld d%lld", &b, &h, &s, &d) != 4)
      throw std::runtime_error(path + ": unreadable row: " + line);
    out.push_back({f[0], testing::square(b, h, s, d, f[2] == "1"), std::stod(f[7])});
  }
  return out;
}

// The NOTES_BWD figures (kernel, run, seqlen, causal, tflops at hd128, 16k tokens), '#' comments.
std::vector<HeldOut> read_notes_figures(const std::string& path) {
  std::ifstream in = open_data(path);
  std::vector<HeldOut> out;
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (std::exchange(header, false)) continue;
    const auto f = fields(line);
    if (f.size() != 5) throw std::runtime_error(path + ": unreadable row: " + line);
    out.push_back({f[0], tokens_16k(128, std::stoll(f[2]), f[3] == "1"), std::stod(f[4])});
  }
  return out;
}

// Worst |error| per kernel on the held-out H100 figures: the bound reached (rounded up), so that
// a later change cannot make it worse unnoticed.
// On the H100 the model is slow on every fa3 figure (fa3_bwd by 5-9%, fa3_bwd_atomics, run 1's
// earlier consumer loop, by up to 11%); the cause is not identified.
const std::map<std::string, double> kHeldOutBounds = {
    {"fa2_bwd", 6.5},
    {"fa2_bwd_deterministic", 4},
    {"fa3_bwd", 9},
    {"fa3_bwd_atomics", 11.5},
};

TEST(BackwardFit, HeldOutH100FiguresOfOurBackwardKernelsWithinTheirBounds) {
  const hw::Spec& h100 = testing::gpu("h100-sxm");
  std::vector<HeldOut> figures;
  for (const char* file : {"data/measurements/kernels/2026-11-23-h100-fa2-bwd-run1.csv",
                           "data/measurements/kernels/2026-11-23-h100-fa2-bwd-run2.csv"})
    for (HeldOut& f : read_kernel_timing(file)) figures.push_back(std::move(f));
  for (HeldOut& f :
       read_notes_figures("data/measurements/kernels/2026-11-23-h100-fa3-bwd-notes.csv"))
    figures.push_back(std::move(f));
  std::map<std::string, double> worst;
  std::map<std::string, int> count;
  for (const HeldOut& f : figures) {
    const auto bound = kHeldOutBounds.find(f.kernel);
    if (bound == kHeldOutBounds.end()) continue;  // the peers: reported in NOTES_BWD_FIT.md
    const double e = error_percent(h100, f.kernel, f.shape, f.tflops);
    EXPECT_LE(std::abs(e), bound->second) << f.kernel << " " << describe(f.shape);
    worst[f.kernel] = std::max(worst[f.kernel], std::abs(e));
    ++count[f.kernel];
  }
  EXPECT_EQ(count.size(), kHeldOutBounds.size());
  for (const auto& [kernel, e] : worst)
    std::printf("held out  %-22s %2d figures, worst %5.1f%%\n", kernel.c_str(), count[kernel], e);
}

// The schedule's terms where they can be read off alone: fa3_bwd's two passes at hd256 do six
// GEMMs' work and two exp2 per score; the staging tile's row bound binds at hd64 only.
TEST(BackwardFit, LabFa3ScheduleRunsTwoPassesAboveHd128AndBoundsTheTileByDqRows) {
  const hw::Spec& h200 = testing::gpu("h200");
  model::Options published;
  published.algorithm = model::Algorithm::fa3;
  published.pass = Pass::bwd;
  published.tile = model::Tile{64, 128};
  model::Options lab = published;
  lab.lab_fa3_backward = model::DqAdd::bulk_reduce;
  const AttnShape hd256 = tokens_16k(256, 4096, false);
  const auto one = model::tile_cycles(h200, hd256, published, *published.tile);
  const auto two = model::tile_cycles(h200, hd256, lab, *lab.tile);
  ASSERT_TRUE(one && two);
  EXPECT_DOUBLE_EQ(two->mma, one->mma * 6 / 5);
  EXPECT_DOUBLE_EQ(two->exp_mufu, one->exp_mufu * 2);
  lab.tile = model::Tile{128, 128};
  const auto hd64 = model::predict(h200, tokens_16k(64, 4096, false), lab);
  ASSERT_TRUE(hd64);
  EXPECT_DOUBLE_EQ(hd64->tile_time_cycles, 128 * model::factors::kLabFa3BulkReduceRowCycles);
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

}  // namespace
}  // namespace fa4
