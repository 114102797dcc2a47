// Each section on its own: the figures it must show and the prose the numbers drive.
#include "report/sections.hpp"

#include <gtest/gtest.h>

#include "hw/loader.hpp"
#include "model/model.hpp"
#include "report/numbers.hpp"
#include "report_inputs.hpp"

namespace fa4::report {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

class Sections : public ::testing::Test {
 protected:
  std::string sweep(std::vector<store::ReportRow> rows) {
    ReportInputs in;
    in.gpus = gpus;
    in.predictions = digest_predictions(read_from(std::move(rows)), gpus).value();
    return sweep_section(in, charts);
  }
  std::string measured(std::vector<store::MeasurementRow> rows) {
    ReportInputs in;
    in.gpus = gpus;
    in.measurements = std::move(rows);
    return measured_section(in, charts);
  }
  std::string ladder(std::vector<store::MeasurementRow> rows,
                     std::vector<store::CeilingRow> ceilings = {}) {
    ReportInputs in;
    in.gpus = gpus;
    in.measurements = std::move(rows);
    in.ceilings = std::move(ceilings);
    return ladder_subsection(in, charts);
  }

  const std::vector<hw::Spec> gpus = testing::real_specs();
  ReportCharts charts{"c", ""};
};

TEST_F(Sections, Table1ReproducesFa4ForwardAndBackwardFigures) {
  const std::string s = table1_subsection(gpus);
  // model / paper, for MMA, exp on MUFU and shared memory.
  EXPECT_TRUE(
      contains(s, "| forward (Table 1) | 128x128 | 1024 / 1024 | 1024 / 1024 | 768 / 768 |"))
      << s;
  EXPECT_TRUE(
      contains(s, "| forward (Table 1) | 256x128 | 2048 / 2048 | 2048 / 2048 | 1536 / 1536 |"))
      << s;
  EXPECT_TRUE(contains(
      s, "| backward, 1-CTA (§3.2.1) | 128x128 | 2560 / 2560 | 1024 / 1024 | 3328 / 3328 |"))
      << s;
  EXPECT_TRUE(contains(s, "| 2560 / 2560 | 1024 / — | 2688 / 2688 |")) << s;
  EXPECT_EQ(count(s, "✓"), 4u) << s;
  EXPECT_FALSE(contains(s, "✗")) << s;
}

TEST_F(Sections, Table1SaysSoWhenNoB200ModelIsLoaded) {
  std::vector<hw::Spec> no_b200;
  for (const auto& g : gpus)
    if (g.id != "b200") no_b200.push_back(g);
  EXPECT_TRUE(contains(table1_subsection(no_b200), "No `b200` hardware model is loaded"));
}

TEST_F(Sections, WhyExplainsEachGpuFromItsTile) {
  const std::string s = why_subsection(gpus);
  EXPECT_TRUE(contains(s, "- **b200** (fa4)")) << s;
  EXPECT_TRUE(contains(s, "exp on MUFU 1024 (16 ex2/clk/SM), as many as the MMA (1024)")) << s;
  EXPECT_TRUE(contains(s, "Backward, the MMA takes 2560 cycles; shared memory 3328, 1.30x the MMA"))
      << s;
  EXPECT_TRUE(contains(s,
                       "the forward pass is bound by exp on MUFU and the backward by shared "
                       "memory on b200, gb200"))
      << s;
  EXPECT_TRUE(contains(s, "both passes are bound by the MMA on a100-sxm, h100-sxm, h200")) << s;
}

TEST_F(Sections, HardwareShowsEachGpuAndItsScalingAgainstH100) {
  const std::string s = hardware_section(gpus);
  for (const auto& g : gpus) EXPECT_TRUE(contains(s, "| " + g.id + " |")) << g.id;
  EXPECT_TRUE(contains(s, "| b200 | 2.27x | 2.00x | 1.00x | 1.00x | 1.00x | 2.39x |")) << s;
}

TEST_F(Sections, SweepChartsAGpuPerPassAndHeadDimAndKeepsEveryFigureInCsv) {
  const std::string s = sweep(testing::sample_rows());
  EXPECT_TRUE(contains(s, "### b200")) << s;
  EXPECT_TRUE(contains(s, "![Predicted TFLOP/s against sequence length on b200")) << s;
  EXPECT_TRUE(contains(s, "[predicted-b200.csv](c/predicted-b200.csv)")) << s;
  ASSERT_EQ(charts.figures().size(), 2u);  // h100-sxm and b200, in the hardware list's order
  const Figure& b200 = charts.figures()[1];
  EXPECT_EQ(b200.name, "predicted-b200");
  ASSERT_EQ(b200.panels.size(), 2u);  // fwd hd128, bwd hd128
  // fa2 has one seqlen on b200 (no line); fa4 non-causal a line; causal and bwd one point each.
  EXPECT_EQ(legend_names(b200), (std::vector<std::string>{"fa4"}));
  EXPECT_EQ(charts.attachments()[1].file_name, "predicted-b200.csv");
  const std::string csv = charts.attachments()[1].text().value();
  EXPECT_TRUE(contains(csv, "b200,fa2,fwd,32,16,16,1024,1024,128,128,0,bf16,610.4,")) << csv;
  EXPECT_TRUE(contains(csv, "b200,fa4,fwd,4,16,16,8192,8192,128,128,1,bf16,1390.0,")) << csv;
}

TEST_F(Sections, SweepChartLinesKeepToOneTokenCount) {
  auto rows = testing::sample_rows();
  rows.resize(2);  // h100-sxm fa2 fwd hd128 at 1024 (batch 32) and 8192 (batch 4)
  rows.push_back(rows[0]);
  rows[2].shape.batch = 16;  // a second sweep at 1024 with half the tokens
  rows[2].tflops = 290;
  sweep(rows);
  ASSERT_EQ(charts.figures().size(), 1u);
  const auto& points = charts.figures()[0].panels.at(0).series.at(0).points;
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0].y, 301);
  EXPECT_EQ(points[1].y, 352);
}

TEST_F(Sections, SweepSaysHowToFillAnEmptyStore) {
  EXPECT_TRUE(contains(sweep({}), "No predictions are stored"));
}

TEST_F(Sections, MeasuredTableHasRatiosToTheBestPeerAndCudnnAndFootnotesSkips) {
  using testing::measurement;
  const std::string dev = "NVIDIA H200";
  const std::string why = "triton is not installed";
  auto fa2_1024 = measurement(dev, "fa2", "ours", 1024, 300);
  fa2_1024.predicted_tflops = 400;
  fa2_1024.predicted_gpu = "h200";
  const std::string s = measured({
      fa2_1024,
      measurement(dev, "fa2", "ours", 8192, 360),
      measurement(dev, "sdpa_flash", "peer:torch-flash", 1024, 500),
      measurement(dev, "sdpa_flash", "peer:torch-flash", 8192, 450),
      measurement(dev, "sdpa_cudnn", "peer:torch-cudnn", 1024, 400),
      measurement(dev, "sdpa_cudnn", "peer:torch-cudnn", 8192, 480),
      measurement(dev, "triton_fa", "peer:triton", 1024, 0, "skipped", why),
      measurement(dev, "triton_fa", "peer:triton", 8192, 0, "skipped", why),
  });
  EXPECT_TRUE(contains(s, "### NVIDIA H200")) << s;
  // Ours first, then the peers in their fixed order (cuDNN before flash, whatever the input's).
  EXPECT_TRUE(contains(s,
                       "| seqlen | batch | heads | fa2 | sdpa_cudnn | sdpa_flash | triton_fa | "
                       "fa2 / best peer | fa2 / cuDNN | fa2 model | fa2 / model |"))
      << s;
  EXPECT_TRUE(contains(s,
                       "| 1024 | 32 | 16 | 300 | 400 | 500 | skipped [1] | 0.60x (sdpa_flash) | "
                       "0.75x | 400 | 0.75x |"))
      << s;
  EXPECT_TRUE(contains(s,
                       "| 8192 | 4 | 16 | 360 | 480 | 450 | skipped [1] | 0.75x (sdpa_cudnn) | "
                       "0.75x | — | — |"))
      << s;
  EXPECT_EQ(count(s, why), 1u) << s;
  EXPECT_TRUE(contains(s, "- [1] skipped: " + why + " (triton_fa at s1024 b32 h16, s8192 b4 h16)."))
      << s;
  EXPECT_FALSE(contains(s, "[2]")) << s;
  EXPECT_TRUE(contains(s, "on hardware model `h200`.")) << s;
  // The chart: triton_fa has no ok measurement, so three lines; the tables are folded.
  ASSERT_EQ(charts.figures().size(), 1u);
  EXPECT_EQ(charts.figures()[0].name, "measured-nvidia-h200");
  EXPECT_EQ(legend_names(charts.figures()[0]),
            (std::vector<std::string>{"fa2", "sdpa_cudnn", "sdpa_flash"}));
  EXPECT_TRUE(contains(s, "![Measured forward TFLOP/s on NVIDIA H200")) << s;
  EXPECT_TRUE(contains(s, "<details><summary>Measured TFLOP/s on NVIDIA H200 (1 table)")) << s;
  // The device's summary: worst and best ratio to cuDNN (both 0.75x here).
  EXPECT_TRUE(contains(s,
                       "fa2 worst 0.75x (fwd b32 h16 s1024 d128 bf16), best 0.75x (fwd b4 h16 "
                       "s8192 d128 bf16), over 2 shapes."))
      << s;
}

TEST_F(Sections, MeasuredFootnotesAnOkMeasurementWhoseSamplesDrifted) {
  using testing::measurement;
  const std::string dev = "NVIDIA H200";
  auto steady = measurement(dev, "fa3", "ours", 1024, 600);
  steady.samples_s = std::vector<double>(12, 1.0);
  auto throttled = measurement(dev, "fa3", "ours", 8192, 637);
  throttled.samples_s = std::vector<double>(20, 3.45);  // the clock stepped down after 5 samples
  std::fill(throttled.samples_s.begin(), throttled.samples_s.begin() + 5, 3.05);
  const std::string s = measured({steady, throttled});
  EXPECT_TRUE(contains(s, "| 1024 | 32 | 16 | 600 |")) << s;
  EXPECT_TRUE(contains(s, "| 8192 | 4 | 16 | 637 [1] |")) << s;
  EXPECT_TRUE(contains(s,
                       "- [1] ok, but the samples drifted by more than 5% from the first quarter "
                       "to the last"))
      << s;
  EXPECT_TRUE(contains(s, "(fa3 at s8192 b4 h16).")) << s;
  EXPECT_FALSE(contains(s, "[2]")) << s;
}

TEST_F(Sections, MeasuredFootnotesAnOkMeasurementWhoseSamplesSpread) {
  using testing::measurement;
  const std::string dev = "NVIDIA H100 80GB HBM3";
  auto steady = measurement(dev, "fa3", "ours", 1024, 195);
  steady.samples_s = std::vector<double>(12, 1.0);
  // A third of the samples at 3.2 ms, the rest at 4.0-4.06 ms, interleaved: no drift.
  auto split = measurement(dev, "fa3", "ours", 8192, 172);
  for (int i = 0; i < 30; ++i) split.samples_s.push_back(i % 3 == 0 ? 3.2 : 4.0 + 0.01 * (i % 7));
  const std::string s = measured({steady, split});
  EXPECT_TRUE(contains(s, "| 1024 | 32 | 16 | 195 |")) << s;
  EXPECT_TRUE(contains(s, "| 8192 | 4 | 16 | 172 [1] |")) << s;
  EXPECT_TRUE(contains(s,
                       "- [1] ok, but the samples spread: their interquartile range is over 5% "
                       "of the median"))
      << s;
  EXPECT_TRUE(contains(s, "(fa3 at s8192 b4 h16).")) << s;
  EXPECT_FALSE(contains(s, "samples drifted by")) << s;
  EXPECT_FALSE(contains(s, "[2]")) << s;
}

TEST_F(Sections, LadderShowsSpeedupsGemmShareAndAblations) {
  auto rows = testing::sample_measurements();  // naive and fa2 at s1024 and s8192
  rows.push_back(testing::measurement("NVIDIA H200", "fa3", "ours", 8192, 655.0));
  rows.push_back(testing::measurement("NVIDIA H200", "fa3_no_ws", "ours", 8192, 570.0));
  store::CeilingRow gemm;
  gemm.run_id = 4;
  gemm.started_at = "2026-01-01T00:00:00Z";
  gemm.ceiling.device = "NVIDIA H200";
  gemm.ceiling.unit = "gemm_bf16";
  gemm.ceiling.value = 800;
  const std::string s = ladder(rows, {gemm});
  const std::string fwd = s.substr(0, s.find("### The backward ladder"));
  EXPECT_TRUE(contains(fwd, "### The kernel ladder on NVIDIA H200, step by step")) << s;
  // The ceiling is labelled with its run, which is not the run of the figures beside it.
  EXPECT_TRUE(contains(fwd,
                       "GEMM ceiling of NVIDIA H200 (800 TFLOP/s, cuBLAS bf16 8192^3, `fa4-analyze "
                       "ceilings`, run 4 of 2026-01-01T00:00:00Z, not the run of these figures)"))
      << s;
  // s8192: naive 44.8 (model 66), fa2 371.4 (392), fa3 655 (none linked), fa3_no_ws 570, cuDNN
  // 612.9 and its model, flash 560.2, math failed -> 8.29x, 1.76x, 655 / 612.9 = 1.07x,
  // 655 / 800 = 81.9%, 570 / 655 = 0.87x.
  EXPECT_TRUE(contains(fwd, "| 8192 | 4 | 16 | 45 | 66 | 371 | 392 | 655 | — | 570 | — | 613 | "))
      << s;
  EXPECT_TRUE(contains(fwd, "| 560 | — | 8.29x | 1.76x | 1.07x | 81.9% | 0.87x |")) << s;
  // s1024 has no fa3: dashes, and the best rung there is fa2 (318.6 / 800 = 39.8%).
  EXPECT_TRUE(contains(fwd, "| 7.73x | — | 0.70x | 39.8% | — |")) << s;
  EXPECT_TRUE(contains(fwd, "- `fa3_no_ws` over `fa3`: 0.87x (b4 h16 s8192 d128 bf16).\n")) << s;
  // The forward tables are folded; no backward kernel is a forward rung or ablation.
  EXPECT_TRUE(contains(fwd, "<details><summary>The forward ladder on NVIDIA H200")) << s;
  EXPECT_FALSE(contains(fwd, "fa2_bwd")) << s;
}

// An ablation measured from another source revision than its rung is not set against it: the
// rung's code may have changed in between.
TEST_F(Sections, LadderComparesAnAblationOnlyWithItsRungOfTheSameRevision) {
  auto rows = testing::sample_measurements();
  rows.push_back(testing::measurement("NVIDIA H200", "fa3", "ours", 8192, 655.0));
  store::MeasurementRow older = testing::measurement("NVIDIA H200", "fa3_no_ws", "ours", 8192, 570);
  older.revision = "0ld0ld0";
  rows.push_back(older);
  const std::string s = ladder(rows);
  const std::string fwd = s.substr(0, s.find("### The backward ladder"));
  EXPECT_TRUE(contains(fwd, "| 8192 | 4 | 16 | 45 | 66 | 371 | 392 | 655 | — | 570 | — |")) << s;
  EXPECT_TRUE(contains(fwd, "| 8.29x | 1.76x | 1.07x | — |")) << s;
  EXPECT_FALSE(contains(fwd, "- `fa3_no_ws` over `fa3`")) << s;
  EXPECT_TRUE(contains(fwd, "(measured from the same source revision, else a dash)")) << s;
}

TEST_F(Sections, ForwardLadderNeedsTwoRungs) {
  EXPECT_EQ(ladder({testing::measurement("NVIDIA H200", "fa2", "ours", 8192, 371.4)}), "");
}

TEST_F(Sections, BackwardLadderChartsEachKernelPerHeadDimWithTheModelAndTheTrainingStep) {
  auto rows = testing::sample_measurements();  // fa2 fwd and bwd, cuDNN fwd and bwd
  // Left out of the chart: an ablation, and a GQA shape of the same tokens (another setting).
  for (const store::MeasurementRow& m : testing::sample_measurements())
    if (m.kernel == "fa2_bwd") {
      store::MeasurementRow atomics = m;
      atomics.kernel = "fa3_bwd_atomics";
      rows.push_back(atomics);
      store::MeasurementRow gqa = m;
      gqa.shape.heads_kv = m.shape.heads_q / 4;
      gqa.shape.seqlen_q = gqa.shape.seqlen_k = 2 * m.shape.seqlen_q;
      gqa.shape.batch = m.shape.batch / 2;
      rows.push_back(gqa);
    }
  const std::string s = ladder(rows);
  const std::string bwd = s.substr(s.find("### The backward ladder on NVIDIA H200"));
  EXPECT_TRUE(contains(bwd, "No GEMM ceiling is recorded for NVIDIA H200")) << s;
  // fa2_bwd 241.7 (model 280), fa3_bwd 402.5 (model 470; 402 rounded to even), cuDNN 428.3 and the
  // model's fa3 for it.
  // (fa3_bwd_atomics, a copy of fa2_bwd's figure, sits between fa3_bwd and cuDNN.)
  EXPECT_TRUE(contains(bwd, "| 8192 | 4 | 16 | 242 | 280 | 402 | 470 | 242 | 280 | 428 | ")) << s;
  EXPECT_TRUE(contains(bwd, "| 1.67x | 0.94x |")) << s;  // fa3_bwd / fa2_bwd, best / cuDNN
  EXPECT_TRUE(contains(bwd, "measured over the model 0.86x (b4 h16 s8192 d128 bf16)")) << s;
  ASSERT_FALSE(charts.figures().empty());
  const Figure& figure = charts.figures().back();
  EXPECT_EQ(figure.name, "ladder-bwd-nvidia-h200");
  ASSERT_EQ(figure.panels.size(), 1u);  // one head dim
  // Only lines of two or more seqlens: the s1024 and s8192 of fa2_bwd and cuDNN.
  std::vector<std::string> names;
  for (const Series& line : figure.panels[0].series) names.push_back(line.name);
  EXPECT_EQ(names, (std::vector<std::string>{"fa2_bwd", "sdpa_cudnn"}));
  EXPECT_EQ(figure.panels[0].series[0].points.size(), 2u);
  // Forward + backward at s8192: fa2 and fa3_bwd against cuDNN, each with its run and the model.
  const std::string step = s.substr(s.find("### Forward + backward on NVIDIA H200"));
  EXPECT_TRUE(contains(step, "Our forward: run 9 of 2026-01-02T00:00:00Z (ours, rev abc1234)."))
      << s;
  EXPECT_TRUE(contains(step, "| b4 h16 s8192 d128 bf16 | fa2 | ")) << s;
  EXPECT_TRUE(contains(step, " | fa3_bwd | ")) << s;
}

TEST_F(Sections, MeasuredSaysHowToMeasureWhenNothingIs) {
  const std::string s = measured({});
  EXPECT_TRUE(contains(s, "Nothing is measured yet")) << s;
  EXPECT_TRUE(contains(s,
                       "fa4-analyze bench --kernel fa2 --sweep data/sweeps/ladder-h128.json "
                       "--peers"))
      << s;
  EXPECT_TRUE(contains(s, "fa4-analyze import FILE")) << s;
  const std::string body = s.substr(s.find("\n\n") + 2);  // the heading "## 5. ..." aside
  EXPECT_EQ(count(body, ". "), 0u) << "one sentence: " << body;
}

TEST_F(Sections, PublishedComparesModeledFiguresAndListsTheOthers) {
  PublishedFigure modeled;
  modeled.source = "published:test";
  modeled.gpu = "b200";
  modeled.kernel = "fa4";
  modeled.modeled_as = model::Algorithm::fa4;
  modeled.tflops = 1000;
  PublishedFigure peer = modeled;
  peer.kernel = "sdpa-math";  // no algorithm of the model stands for it
  peer.modeled_as.reset();
  peer.tflops = 1234;
  auto b200 = hw::find_spec(gpus, "b200");
  ASSERT_TRUE(b200.ok());
  auto p = model::predict(**b200, modeled.shape, {});
  ASSERT_TRUE(p.ok());
  const std::vector<PublishedFigure> figures = {modeled, peer};
  const std::string s = published_section(compare_with_model(gpus, figures), charts);
  const std::string error = signed_percent(100 * (p->tflops - 1000) / 1000);
  EXPECT_TRUE(contains(s, "| " + integer(p->tflops) + " | " + error + " | held out |")) << s;
  EXPECT_TRUE(contains(s, "- held out (n = 1): mean absolute error")) << s;
  EXPECT_TRUE(contains(s, "| GPU | pass | shape | sdpa-math |")) << s;
  EXPECT_TRUE(contains(s, "| 1234 |")) << s;
}

// The record's chart: one panel per GPU model, every predicted record figure one point at
// (published, model), held-out, fit and out-of-bounds apart, beside y = x and the +-10% band.
TEST_F(Sections, PublishedChartsTheRecordAgainstTheModelPerGpu) {
  const std::vector<PublishedFigure> figures = testing::real_published();
  const std::string s = published_section(compare_with_model(gpus, figures), charts);
  const auto chart = std::find_if(charts.figures().begin(), charts.figures().end(),
                                  [](const Figure& f) { return f.name == "record-vs-model"; });
  ASSERT_NE(chart, charts.figures().end());
  EXPECT_TRUE(contains(s, "record-vs-model.svg")) << s;
  std::size_t points = 0, predicted = 0;
  for (const FigureVsModel& c : compare_with_model(gpus, figures))
    if (c.figure->provenance && c.predicted_tflops) ++predicted;
  for (const Panel& panel : chart->panels) {
    ASSERT_GE(panel.series.size(), 4u) << panel.title;
    EXPECT_EQ(panel.series[0].name, "y = x");
    const ChartPoint& low = panel.series[0].points.front();
    EXPECT_DOUBLE_EQ(low.x, low.y);
    EXPECT_NEAR(panel.series[1].points.front().y, low.x * 1.1, 1e-9 * low.x);
    EXPECT_NEAR(panel.series[2].points.front().y, low.x * 0.9, 1e-9 * low.x);
    for (std::size_t i = 3; i < panel.series.size(); ++i) points += panel.series[i].points.size();
  }
  EXPECT_EQ(points, predicted);
  EXPECT_GE(chart->panels.size(), 5u);  // H200, B200, GB200, B300, GB300 at least
}

TEST_F(Sections, PublishedShowsWhyTheModelRefusesAFigure) {
  PublishedFigure unknown;
  unknown.source = "published:test";
  unknown.gpu = "no-such-gpu";
  unknown.kernel = "fa4";
  unknown.modeled_as = model::Algorithm::fa4;
  unknown.tflops = 10;
  const std::vector<PublishedFigure> figures = {unknown};
  const std::string s = published_section(compare_with_model(gpus, figures), charts);
  EXPECT_TRUE(contains(s, "no-such-gpu")) << s;
  EXPECT_TRUE(contains(s, "- the model refuses 1 figure(s)")) << s;
}

TEST_F(Sections, FactorsListEveryConstantAndWhatWasFitted) {
  const std::vector<PublishedFigure> figures = testing::real_published();
  const std::string s =
      factors_section(gpus, digest_model(gpus, figures).representatives, figures);
  for (const char* name :
       {"kSoftmaxFmaOpsPerElement", "kFmaOpsPerEmulatedExp2", "kBackwardFmaOpsPerElement",
        "kMmaSyncShareHopper", "kConditionalRescaleShare", "kFa4DefaultExpEmulation",
        "kOverlapFa2Forward", "kHopperPingPongHiddenShare", "kBlackwellSoftmaxIssueShare",
        "kBlackwellStreamNormExponent", "kOverlapFa2Backward", "kFa2BackwardSmemRereads",
        "kListScheduleTailShare", "kLaunchOverheadSeconds", "kOverlapPersistentBackward",
        "kBlackwellPersistentTileOverheadCycles", "kFa4SharedTmemColumnsStepCycles",
        "kDeterministicWaitTiles",
        "kMmaSyncShareBlackwell", "kFrameworkCallSeconds"})
    EXPECT_TRUE(contains(s, name)) << name;
  // The ping-pong rule is the forward pass's; the backward's overlap is its own factor.
  EXPECT_TRUE(contains(s, "| `pingpong_hidden_share` | 0.27 | fa3 on h100-sxm (fwd) |")) << s;
  EXPECT_TRUE(contains(s, "| `overlap` | 0.25 | fa2 on a100-sxm (fwd) |")) << s;
  EXPECT_TRUE(contains(s, "our fa2 on H200, seqlen 8k, hd 64/128/256")) << s;
}

// The header names no database; the sources of the measurements are folded after the last
// section, one line per device, and there is no such list where nothing is measured.
TEST(Header, FoldsTheMeasurementsSourcesAtTheEndAndListsNoneWhereNothingIsMeasured) {
  ReportInputs in = testing::golden_inputs();
  const std::string measured = header_section(in);
  EXPECT_TRUE(contains(measured, "problem (their sources: at the end, folded)")) << measured;
  EXPECT_FALSE(contains(measured, "<details>")) << measured;
  EXPECT_FALSE(contains(measured, "golden.db")) << measured;
  const std::string sources = sources_section(in);
  EXPECT_TRUE(contains(sources,
                       "<details><summary>Where the 20 stored measurements come from (1 "
                       "line)</summary>\n\n- NVIDIA H200: 20 measurements"))
      << sources;
  const std::string report = render_report(in).markdown;
  EXPECT_GT(report.find("<details><summary>Where the"), report.rfind("\n## ")) << "at the end";
  in.measurements.clear();
  const std::string none = header_section(in);
  EXPECT_TRUE(contains(none, "- Stored measurements: none")) << none;
  EXPECT_EQ(sources_section(in), "");
}

}  // namespace
}  // namespace fa4::report
