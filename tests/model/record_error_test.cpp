// The model against the published record's held-out figures (data/published/record), per GPU family
// and pass, fp8 apart and decode steps (one query row, cudnn-frontend's decode sweep) apart: the
// median |error| and the worst |error| each within a bound. The targets
// are 7% (median) and 20% (worst); where the model reaches a target the bound is the target, where
// it does not the bound is what it reached (rounded up), and the figures beyond 20% are held to
// their count, so that a later change cannot make either worse unnoticed. Figures whose data file
// names an "outside_bounds" reason (the 9.13 CSVs' PyTorch-path series, cuDNN 9.13's backward up
// to s2048 on B200 and its figures on GB300, FA4's non-causal GB200 forward and its hd256 forward
// of the July and August 2026 images, FA4's unmerged hd256 forward) are left out; sliding-window
// figures are counted in their groups. Why the misses miss: lib/model/NOTES.md,
// lib/model/factors.hpp and the report's record tables (Blackwell Ultra's cuDNN, FA4's hd256
// kernels, the deterministic backward at long lengths).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "hw/loader.hpp"
#include "report/published.hpp"

namespace fa4::report {
namespace {

constexpr double kTargetMedian = 7, kTargetWorst = 20;

enum class Work { training, decode };

struct Bound {
  double median;  // percent
  double worst;   // percent
  int count;      // held-out figures in the group
  int above;      // of them, at most this many beyond the worst target (20%)
};

using Group = std::tuple<std::string, Pass, bool, Work>;  // family, pass, fp8, work

// (family, pass, fp8, work) -> the bound held; a target where reached.
const std::map<Group, Bound> kBounds = {
    {{"Hopper", Pass::fwd, false, Work::training}, {kTargetMedian, kTargetWorst, 11, 0}},
    {{"Hopper", Pass::fwd, true, Work::training}, {kTargetMedian, kTargetWorst, 6, 0}},
    // Met since the per-key-block fill (lib/model/NOTES.md, section 2g): 5.8% / 18.0%; 5.4% /
    // 14.4% since cuDNN's deterministic share (section 2l); 5.8% / 10.9% since FA3's hd192 and
    // hd256 backward tiles (section 2p); 4.5% / 9.1% since cuDNN's deterministic backward pays a
    // fixed time per tile step in place of that share (section 2af; 13.0% before it).
    {{"Hopper", Pass::bwd, false, Work::training}, {kTargetMedian, kTargetWorst, 11, 0}},
    // Met since cuDNN's fp8 causal backward adds dQ in HBM beyond a band of keys (section
    // 2ai): 5.7% / 11.4%. Before it, 7.6% / 91.5%: H200's causal fp8 backward at s8192 and s32768
    // ran +47% and +91% (+80.5% before 2g; the median 6.5% -> 7.6% when cudnn-frontend's figures
    // lost the host-call term, section 2ac).
    {{"Hopper", Pass::bwd, true, Work::training}, {kTargetMedian, kTargetWorst, 6, 0}},
    // Blackwell, targets missed. Before cudnn-frontend's 9.26 runs on GB300 and GB200
    // (cudnn-frontend-gb300-926.json, -gb200-926.json; lib/model/NOTES.md, section 2r) the bounds
    // were: forward 7 / 31 (62 figures), fp8 forward 11.5 / 39 (41), backward 7 / 61 (76), fp8
    // backward 7 / 56 (53). Those runs' misses: cuDNN's forward on Blackwell Ultra 13-36% faster
    // than the model (GB200's within 4% at hd128 and hd192/128), cuDNN's hd192/128 fp8 backward
    // 8-40% faster on both, FA4's backward 58-300% slower at hd256 (12-23% from s8192 since its
    // split kernels are modeled, section 2t; +90% to +202% shorter) and under a window, FA4's
    // deterministic backward under a window falling with the length (+495% at s32768).
    // The forward's count fell from 182 to 173 (median 10.1% -> 9.6%) when GB200's 9.26 FA4
    // non-causal hd128 forward joined its 9.27 one outside the bounds (FA4's 2-CTA forward,
    // NOTES.md section 2u). The fp8 backward's median fell from 16.3% to 10.3% when cuDNN's from
    // 9.22 at hd192/128 was modeled on the 2-CTA pair (section 2v). The forward's median met
    // since Blackwell Ultra's forward tensor stream has its own share (section 2z: 9.6% -> 5.4%,
    // misses above 20% 30 -> 14); its worst rose from 190.3% to 218.6% (FA4's hd256 forward at
    // s2048 causal on GB300, now modeled faster with the rest of Ultra's forward), then fell to
    // 207.2% (misses above 20% 14 -> 9) when FA4's causal, windowed and hd256 forward launch one
    // CTA per work tile (section 2ab). Without the host-call term for cudnn-frontend's
    // kernel-timed figures and with the longest-first tail (section 2ac) the median fell to 4.9%
    // and the misses above 20% to 5, while FA4's hd256 forward at s2048 rose to +272.6% (the call
    // term had stood in for part of its unexplained cost); fp8 13.4% / 38.7% -> 10.8% / 31.1%.
    // Since Blackwell Ultra's row max from the tensor-memory load (section 2aj: FA4's forward
    // from July 2026 and cuDNN's fp8 forward; Ultra's tensor share refitted 0.895 -> 0.883) the
    // median is 4.7% and the worst 269.5%, the five above 20% FA4's hd256 forward (B300's cuDNN
    // hd192/128 forward at s32768 had been a sixth, at +20.0%); the fp8 forward went from
    // 10.8% / 31.1% (19 above 20%) to 7.2% / 21.1% (4). Section 2al: FA4's figures of the May
    // 2026 runs on GB200 and GB300 joined (227 figures), the July runs' hd256 forward left the
    // bounds (FA4's later image, 1.1-2.7x slower), and FA4's hd256 forward takes its tiles in
    // block order: 4.7% / +20.7% (GB200's FA4 non-causal hd128 forward at s75600), 1 above 20%.
    // Met since launches start at the boost clock and settle at each board's sustained clock
    // (section 2ar): 4.3% / 18.1%; fp8 7.2% / 21.1% (4 above 20%) -> 7.9% / 23.3% (1).
    // cuDNN 9.18's runs on GB200 and GB300 joined after it (section 2as): 245 and 95 figures; the
    // fp8 forward's median met (6.6%) since cuDNN's Ultra fp8 forward takes the row max from the
    // tensor-memory load from 9.18.1, as that release's fit figures choose.
    {{"Blackwell", Pass::fwd, false, Work::training}, {kTargetMedian, kTargetWorst, 245, 0}},
    {{"Blackwell", Pass::fwd, true, Work::training}, {kTargetMedian, 24, 95, 1}},
    // The bf16 backward's median met since FA4's hd192/128 backward waits for its shared tensor
    // memory columns (9.5% before; section 2w). Its worst fell from 494.8% to 170.6% (FA4's split
    // hd256 kernels at s2048 causal) and its misses above 20% from 56 to 24 when the launches
    // beside the main kernel, FA4's single-tile grid and its deterministic dQ chain were modeled
    // (section 2x: median 6.7% -> 6.8%); the fp8 backward's went 10.3% / 56.0% -> 9.7% / 48.3%.
    // Section 2ac: 6.5% / 182.8% (FA4's split hd256 kernels at s2048), fp8 10.1% / 46.4%. Section
    // 2af (cuDNN's pinned configuration: its deterministic backward, and its plain one above
    // hd128, a fixed time per tile step): 6.2% / 182.8%, misses above 20% 25 -> 12; 10 since the
    // deterministic chain's wait is capped by the query blocks a key block walks (section 2ah).
    // Since FA4's split hd256 dK/dV kernel walks each GQA group in one CTA (section 2al): 6.0% /
    // 38.7% (cuDNN 9.13's causal s2048 on B200), 8 above 20%; with FA4's May 2026 figures (424),
    // the dK/dV kernel's 64-key CTAs and the dQ kernel's block order, 6.2% / 38.7%, 11 above 20%.
    // Section 2aq: cuDNN 9.13's backward up to s2048 left the bounds (one time per length whatever
    // the dtype and the GPU; 424 -> 422 figures, fp8 137 -> 135) and FA4's deterministic backward
    // below hd192 waits for its dQ reduce-adds each step: 6.4% / 24.3% (cuDNN's deterministic
    // backward at Wan 2.2's s75600 on GB200), 5 above 20%; fp8 10.1% / 46.4% -> 9.7% / 31.9%.
    // Met since launches start at the boost clock and settle at each board's sustained clock and
    // cuDNN's deterministic backward pays for its ordered dQ adds up to hd128 (section 2ar): 4.3%
    // / 18.1%; fp8 10.0% / -28.4%, 25 above 20% (cuDNN's hd192/128 fp8 backward on Ultra).
    // With cuDNN 9.18's runs (section 2as): 440 and 147 figures, fp8 median 9.6%.
    {{"Blackwell", Pass::bwd, false, Work::training}, {kTargetMedian, kTargetWorst, 440, 0}},
    {{"Blackwell", Pass::bwd, true, Work::training}, {10, 29, 147, 25}},
    // Decode (cudnn-frontend's decode sweep, cuDNN 9.27, hd128; its hd256 figures are outside the
    // bounds, held below: lib/model/NOTES.md, section 8). Hopper met: 4.8% / +18.6% (H200's b1
    // h16/2 at 2048 keys). Blackwell's median met (3.8%), its worst missed: +54.6% and +47.9% at
    // b1 h16/2 and 2048 keys on GB300 and GB200 (5 us launches the model puts at 3.3 us), the two
    // above 20%.
    {{"Hopper", Pass::fwd, false, Work::decode}, {kTargetMedian, kTargetWorst, 16, 0}},
    {{"Blackwell", Pass::fwd, false, Work::decode}, {kTargetMedian, 55, 41, 2}},
};

// The held-out hd256 decode figures, outside the bounds for cuDNN's per-SM limit at hd256 (their
// files give the reason): held to what the model reached, so that the miss cannot grow unnoticed.
const std::map<std::string, Bound> kHd256DecodeBounds = {
    {"Hopper", {23, 77, 16, 9}},
    {"Blackwell", {56, 97, 32, 30}},
};

TEST(RecordError, HeldOutFiguresWithinTheirBoundsPerFamilyAndPass) {
  auto gpus = hw::load_all_specs(std::string(FA4_SOURCE_DIR) + "/models");
  ASSERT_TRUE(gpus.ok()) << gpus.error().message;
  auto figures = load_published_dir(std::string(FA4_SOURCE_DIR) + "/data/published/record");
  ASSERT_TRUE(figures.ok()) << figures.error().message;
  const std::vector<FigureVsModel> compared = compare_with_model(*gpus, *figures);
  std::map<Group, std::vector<const FigureVsModel*>> groups;
  for (const FigureVsModel& c : compared)
    if (c.predicted_tflops && held_out(*c.figure) && within_bounds(*c.figure))
      groups[{gpu_family(*c.gpu_model), c.pass(), c.figure->shape.dtype == Dtype::fp8,
              is_decode(*c.figure) ? Work::decode : Work::training}]
          .push_back(&c);
  EXPECT_EQ(groups.size(), kBounds.size());
  for (const auto& [key, rows] : groups) {
    const auto& [family, pass, fp8, work] = key;
    const std::string what = family + " " + std::string(to_string(pass)) + (fp8 ? " fp8" : "") +
                             (work == Work::decode ? " decode" : "");
    const auto bound = kBounds.find(key);
    ASSERT_NE(bound, kBounds.end()) << what;
    const ErrorSummary e = summarize_errors(rows);
    EXPECT_EQ(e.count, bound->second.count) << what;
    EXPECT_LE(e.median_abs_percent, bound->second.median) << what;
    EXPECT_LE(std::abs(e.worst_percent), bound->second.worst)
        << what << ": " << e.worst->figure->kernel << " " << describe(e.worst->figure->shape);
    const auto above = std::count_if(rows.begin(), rows.end(), [](const FigureVsModel* c) {
      return std::abs(c->error_percent()) > kTargetWorst;
    });
    EXPECT_LE(above, bound->second.above) << what;
  }
}

TEST(RecordError, Hd256DecodeFiguresOutsideTheBoundsHeldToWhatWasReached) {
  auto gpus = hw::load_all_specs(std::string(FA4_SOURCE_DIR) + "/models");
  ASSERT_TRUE(gpus.ok()) << gpus.error().message;
  auto figures = load_published_dir(std::string(FA4_SOURCE_DIR) + "/data/published/record");
  ASSERT_TRUE(figures.ok()) << figures.error().message;
  const std::vector<FigureVsModel> compared = compare_with_model(*gpus, *figures);
  std::map<std::string, std::vector<const FigureVsModel*>> groups;
  for (const FigureVsModel& c : compared)
    if (c.predicted_tflops && held_out(*c.figure) && is_decode(*c.figure) &&
        c.figure->shape.headdim == 256) {
      EXPECT_FALSE(within_bounds(*c.figure)) << c.figure->where;
      groups[gpu_family(*c.gpu_model)].push_back(&c);
    }
  EXPECT_EQ(groups.size(), kHd256DecodeBounds.size());
  for (const auto& [family, rows] : groups) {
    const auto bound = kHd256DecodeBounds.find(family);
    ASSERT_NE(bound, kHd256DecodeBounds.end()) << family;
    const ErrorSummary e = summarize_errors(rows);
    EXPECT_EQ(e.count, bound->second.count) << family;
    EXPECT_LE(e.median_abs_percent, bound->second.median) << family;
    EXPECT_LE(std::abs(e.worst_percent), bound->second.worst) << family;
    const auto above = std::count_if(rows.begin(), rows.end(), [](const FigureVsModel* c) {
      return std::abs(c->error_percent()) > kTargetWorst;
    });
    EXPECT_LE(above, bound->second.above) << family;
  }
}

// Every record figure is modeled, sliding windows included: the GPU models cover the record.
TEST(RecordError, EveryFigureIsModeled) {
  auto gpus = hw::load_all_specs(std::string(FA4_SOURCE_DIR) + "/models");
  ASSERT_TRUE(gpus.ok()) << gpus.error().message;
  auto figures = load_published_dir(std::string(FA4_SOURCE_DIR) + "/data/published/record");
  ASSERT_TRUE(figures.ok()) << figures.error().message;
  int modeled = 0;
  for (const FigureVsModel& c : compare_with_model(*gpus, *figures)) {
    EXPECT_TRUE(c.predicted_tflops.has_value())
        << c.figure->gpu << " " << c.figure->kernel << " " << describe(c.figure->shape) << ": "
        << c.not_modeled;
    modeled += c.predicted_tflops.has_value();
  }
  EXPECT_EQ(modeled, int(figures->size()));
}

}  // namespace
}  // namespace fa4::report
